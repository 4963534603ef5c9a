/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Accesses to freed memory (after memcheck's fprw, describe-block and
   big_blocks_freed_list), a system call writing into a freed buffer, and
   a read below the stack pointer, a read-modify-write instruction on freed
   memory. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) static void deep(void) {
    volatile char pad[4096];
    for (int k = 0; k < 4096; k += 64)
        pad[k] = 0;
}

int main(void) {
    long sum = 0;
    volatile int* p = malloc(177); /* ALLOC_177 */
    free((void*)p);                /* FREE_177 */
    sum += p[2];                   /* READ_FREED */
    ((volatile char*)p)[0] = 1;    /* WRITE_FREED */
    /* One instruction that reads and writes (memgrow checks it once). */
    __asm__ volatile("addq $1, (%0)" : : "r"(p + 4) : "memory", "cc"); /* RMW_FREED */

    volatile char* r = malloc(16);         /* ALLOC_16 */
    char* moved = realloc((void*)r, 4000); /* REALLOC_16 */
    sum += r[15];                          /* READ_AFTER_REALLOC */
    free(moved);

    char* buf = malloc(10); /* ALLOC_BUF */
    free(buf);              /* FREE_BUF */
    int fd = open("/dev/zero", O_RDONLY);
    if (read(fd, buf, 10) != 10) return 2; /* READ_SYSCALL */
    close(fd);

    /* The quarantine (--freelist-vol=10000 --freelist-big-blocks=2000, as
       memcheck's big_blocks_freed_list): big blocks leave it first. */
    volatile char* small = malloc(100); /* ALLOC_SMALL */
    free((void*)small);                 /* FREE_SMALL */
    volatile char* big = malloc(3000);  /* ALLOC_BIG */
    free((void*)big);
    char* big2 = malloc(8000);
    free(big2);                 /* over 10000 bytes held: `big` leaves first */
    char* again = malloc(3000); /* takes `big`'s memory back */
    sum += big[1];              /* READ_PAST_QUARANTINE */
    sum += small[1];            /* READ_SMALL_QUARANTINED */
    printf("%s\n", again == (char*)big ? "reused" : "not reused");
    free(again);

    /* A small block whose memory left the quarantine and went to no other
       block: memcheck describes the arena's free memory. */
    volatile char* gone = malloc(40); /* ALLOC_GONE */
    free((void*)gone);
    for (int k = 0; k < 12; ++k)
        free(malloc(1000));     /* 12000 bytes freed after it: `gone` leaves */
    sum += gone[3];             /* READ_RELEASED */

    deep();
    long below;
    __asm__ volatile("movq -1024(%%rsp), %0" : "=r"(below)); /* BELOW_SP */
    sum += below;
    printf("sum %ld\n", sum != 0);
    return 0;
}
