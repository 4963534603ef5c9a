/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Leak scan: pointers whose only copy is in a callee-saved register (r12).

   memcheck takes as roots the registers of the threads that the process's end
   killed, but not those of the thread that called exit_group itself
   (valgrind's PRE(sys_exit_group) marks the caller VgSrc_ExitThread, "its
   registers must be considered as not reachable"). So:
   - a second thread that holds its block only in r12 while it blocks in a raw
     read() on a pipe nobody writes to: still reachable;
   - main holding its block only in r12 when it calls a raw exit_group (no exit
     handlers run to clobber it): definitely lost;
   - plus one ordinary definitely lost block.

   No memory copy of either pointer remains: the helpers leave it only in a
   global, the dead stack is zeroed, and the final asm moves it from the global
   into r12 and zeroes the global without storing it anywhere else.

   memcheck --leak-check=full must report:
     definitely lost: 3,700 bytes in 2 blocks   (MAIN_REGISTER_HERE 3,000 + LOST_HERE 700)
     indirectly lost: 0 bytes in 0 blocks
       possibly lost: 272 bytes in 1 blocks     (glibc's DTV of the running thread, calloc'd by
                                                 pthread_create; the thread's TCB points 16 bytes
                                                 into it)
     still reachable: 4,000 bytes in 1 blocks   (THREAD_REGISTER_HERE)

   x86-64 Linux only (the regression tests run there). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void* thread_holder; /* the thread's block until its asm moves it to r12 */
static void* main_holder;   /* main's block until its asm moves it to r12 */
static int ready[2];        /* the thread says its pointer is in r12 */
static int never[2];        /* nobody ever writes here */
static char byte = 1;

__attribute__((noinline)) static void alloc_thread_block(void) {
    thread_holder = malloc(4000); /* THREAD_REGISTER_HERE */
    memset(thread_holder, 7, 4000);
}

__attribute__((noinline)) static void alloc_main_block(void) {
    main_holder = malloc(3000); /* MAIN_REGISTER_HERE */
    memset(main_holder, 9, 3000);
}

__attribute__((noinline)) static void lose_block(void) {
    char* p = malloc(700); /* LOST_HERE */
    memset(p, 8, 700);
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

static void* holder(void* arg) {
    (void)arg;
    alloc_thread_block();
    clear_stack();
    long ready_fd = ready[1], never_fd = never[0];
    __asm__ volatile("mov %0, %%r12\n\t" /* the only copy: r12 */
                     "movq $0, %0\n\t"   /* drop the memory copy */
                     /* memset can leave a stale copy in a scratch register */
                     "xor %%ecx, %%ecx\n\txor %%r8d, %%r8d\n\txor %%r9d, %%r9d\n\t"
                     "xor %%r10d, %%r10d\n\txor %%r11d, %%r11d\n\t"
                     "mov $1, %%eax\n\t" /* write(ready_fd, &byte, 1) */
                     "mov %1, %%rdi\n\t"
                     "lea %3, %%rsi\n\t"
                     "mov $1, %%edx\n\t"
                     "syscall\n\t"
                     "1:\n\t"
                     "xor %%eax, %%eax\n\t" /* read(never_fd, &byte, 1): blocks forever */
                     "mov %2, %%rdi\n\t"
                     "lea %3, %%rsi\n\t"
                     "mov $1, %%edx\n\t"
                     "syscall\n\t"
                     "jmp 1b\n\t"
                     : "+m"(thread_holder)
                     : "r"(ready_fd), "r"(never_fd), "m"(byte)
                     : "r12", "rax", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11",
                       "memory");
    return NULL; /* not reached */
}

int main(void) {
    pthread_t t;
    char c;
    if (pipe(ready) != 0 || pipe(never) != 0) return 1;
    if (pthread_create(&t, NULL, holder, NULL) != 0) return 1;
    if (read(ready[0], &c, 1) != 1) /* the thread's pointer is in its r12 now */
        return 1;
    alloc_main_block();
    lose_block();
    clear_stack();
    __asm__ volatile("mov %0, %%r12\n\t"   /* the only copy: r12 */
                     "movq $0, %0\n\t"     /* drop the memory copy */
                     "mov $231, %%eax\n\t" /* exit_group(0) */
                     "xor %%edi, %%edi\n\t"
                     "syscall\n\t"
                     "ud2\n\t"
                     : "+m"(main_holder)
                     :
                     : "r12", "rax", "rdi", "rcx", "r11", "memory");
    return 1; /* not reached */
}
