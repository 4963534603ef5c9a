/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Instructions the host runs but Valgrind's decoder may refuse (RDTSCP where
 * CPUID hides it, RDPID always), an instruction nobody decodes, and one
 * whose SIGILL the program catches. Allocates a growing list throughout, so
 * the report shows the run went on (or where it stopped). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node {
    struct node* next;
    char pad[56];
};
static struct node* head;

static void grow(int n) {
    for (int i = 0; i < n; ++i) {
        struct node* x = malloc(sizeof *x); /* GROW_HERE */
        x->next = head;
        head = x;
    }
}

/* rdtscp with known values in the registers it must not touch. */
static int check_rdtscp(unsigned long long* prev) {
    unsigned lo, hi, aux;
    unsigned long rbx = 0x1111222233334444ul, rsi = 0x5555666677778888ul, rbx_after, rsi_after;
    __asm__ volatile("mov %5, %%rbx\n\tmov %6, %%rsi\n\trdtscp\n\tmov %%rbx, %3\n\tmov %%rsi, %4"
                     : "=a"(lo), "=d"(hi), "=c"(aux), "=r"(rbx_after), "=r"(rsi_after)
                     : "r"(rbx), "r"(rsi)
                     : "rbx", "rsi");
    unsigned long long tsc = ((unsigned long long)hi << 32) | lo;
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    if (rbx_after != rbx || rsi_after != rsi) return fprintf(stderr, "rdtscp: clobbered\n"), 0;
    if (tsc <= *prev) return fprintf(stderr, "rdtscp: tsc went back\n"), 0;
    if ((long)(aux & 0xfff) >= cpus) return fprintf(stderr, "rdtscp: aux %u\n", aux), 0;
    *prev = tsc;
    return 1;
}

/* rdpid into r9 (a REX-prefixed encoding), rax left alone. */
static int check_rdpid(void) {
    unsigned long r9, rax = 0x0123456789abcdeful, rax_after;
    __asm__ volatile("mov %2, %%rax\n\t.byte 0xf3, 0x41, 0x0f, 0xc7, 0xf9\n\tmov %%r9, %0\n\t"
                     "mov %%rax, %1"
                     : "=r"(r9), "=r"(rax_after)
                     : "r"(rax)
                     : "rax", "r9");
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    if (rax_after != rax) return fprintf(stderr, "rdpid: clobbered rax\n"), 0;
    if ((long)(r9 & 0xfff) >= cpus || (r9 >> 32) != 0)
        return fprintf(stderr, "rdpid: %lx\n", r9), 0;
    return 1;
}

/* Valid on no x86-64 CPU: VEX refuses it and so does the host. */
static void __attribute__((noinline)) undecodable(void) {
    __asm__ volatile(".byte 0x0f, 0x04");
}

static sigjmp_buf caught;
static void on_sigill(int sig) {
    (void)sig;
    siglongjmp(caught, 1);
}

int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : "rdtscp";
    unsigned long long prev = 0;
    for (int round = 0; round < 200; ++round) {
        grow(50);
        if (!strcmp(what, "rdtscp") && !check_rdtscp(&prev)) return 1;
        if (!strcmp(what, "rdpid") && !check_rdpid()) return 1;
        if (!strcmp(what, "undecodable") && round == 100) undecodable();
        if (!strcmp(what, "caught") && round == 100) {
            signal(SIGILL, on_sigill);
            if (!sigsetjmp(caught, 1)) undecodable();
            puts("caught SIGILL");
        }
    }
    printf("%s ok\n", what);
    return 0;
}
