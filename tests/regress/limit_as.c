/* SPDX-License-Identifier: GPL-2.0-or-later */
/* limit_as.c: a program that limits its own address space
 * (setrlimit(RLIMIT_AS)) to 64 MiB, reads the limit back, then allocates
 * blocks of 1 MiB until malloc fails, and carries on: it frees them and
 * allocates once more. Under Valgrind, whose own memory lies in the same
 * process, the limit must still be the program's: malloc fails near where
 * it fails natively, and the run ends with its report. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

int main(void) {
    struct rlimit r = {64 << 20, 64 << 20};
    if (setrlimit(RLIMIT_AS, &r)) {
        perror("setrlimit");
        return 2;
    }
    struct rlimit back;
    getrlimit(RLIMIT_AS, &back);
    printf("set %lu/%lu, read back %lu/%lu\n", (unsigned long)r.rlim_cur,
           (unsigned long)r.rlim_max, (unsigned long)back.rlim_cur, (unsigned long)back.rlim_max);
    enum { kMax = 4096 };
    static void* blocks[kMax];
    int n = 0;
    while (n < kMax) {
        void* p = malloc(1 << 20); /* LIMIT_MALLOC */
        if (!p) break;
        blocks[n++] = p;
    }
    printf("malloc returned NULL after %d blocks of 1 MiB\n", n);
    for (int i = 0; i < n; ++i)
        free(blocks[i]);
    void* small = malloc(100);
    printf("after freeing them: %s\n", small ? "malloc(100) works" : "malloc(100) fails");
    free(small);
    return n < kMax ? 0 : 1;
}
