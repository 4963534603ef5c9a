/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Leak scan: the only pointer to a block is a local variable on a second
   thread's stack; that thread blocks forever in read() on a pipe nobody
   writes to while main calls exit(). Thread stacks are roots: the block is
   still reachable. Plus one definitely lost block.

   memcheck --leak-check=full must report:
     definitely lost: 100 bytes in 1 blocks     (LOST_HERE)
     indirectly lost: 0 bytes in 0 blocks
       possibly lost: 272 bytes in 1 blocks     (glibc's DTV of the running thread, calloc'd by
                                                 pthread_create; the thread's TCB points 16 bytes
                                                 into it)
     still reachable: 333 bytes in 1 blocks     (ON_STACK_HERE) */
/* x86-64 only: scratch registers are cleared in asm. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ready[2]; /* the thread says it holds its block */
static int never[2]; /* nobody ever writes here */

static void* holder(void* arg) {
    (void)arg;
    char* volatile mine = malloc(333); /* ON_STACK_HERE: only pointer is this local */
    memset(mine, 5, 333);
    /* memset (valgrind's replacement too) can leave a copy of the pointer in a
       scratch register, and memcheck takes this thread's registers as roots:
       clear them before telling main, so that the stack slot is the only copy. */
    __asm__ volatile("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\t"
                     "xor %%esi, %%esi\n\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n\t"
                     "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\txor %%r11d, %%r11d"
                     :
                     :
                     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11");
    char c = 1;
    if (write(ready[1], &c, 1) != 1) abort();
    for (;;)
        if (read(never[0], &c, 1) <= 0) /* blocks forever */
            abort();
    return mine;
}

__attribute__((noinline)) static void lose_block(void) {
    char* p = malloc(100); /* LOST_HERE */
    memset(p, 6, 100);
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(void) {
    pthread_t t;
    char c;
    if (pipe(ready) != 0 || pipe(never) != 0) return 1;
    if (pthread_create(&t, NULL, holder, NULL) != 0) return 1;
    if (read(ready[0], &c, 1) != 1) /* the thread holds its block now */
        return 1;
    lose_block();
    clear_stack();
    exit(0); /* the thread is still blocked in read() */
}
