/* SPDX-License-Identifier: GPL-2.0-or-later */
/* leak_heap.c: a large heap for timing the leak scan (bench/run.py, "scan").
 *
 *   leak_heap [BLOCKS [BLOCK_SIZE]]      (defaults: 1048576 blocks of 1024 bytes)
 *
 * Allocates BLOCKS blocks of BLOCK_SIZE bytes (at least 8) and keeps a pointer
 * to each in an array that a global variable points at, so they are
 * reachable from a root. One block in 100 (block i with i % 100 == 99) is
 * then made lost: its array slot is cleared. The first word of every block
 * links it to the next block of its own kind: the kept blocks form one chain
 * (the scan follows heap pointers as well as the array), the lost blocks form
 * another chain that nothing outside it points at, so its head is definitely
 * lost and the rest of it indirectly lost. The other words of every block
 * hold non-pointer data (0xa5 bytes). The program then calls exit(0) without
 * freeing anything, so the leak scan at exit sees the whole heap.
 *
 * Expected at exit (kept = BLOCKS - LOST):
 *   definitely lost  BLOCK_SIZE bytes in 1 block           (the chain's head)
 *   indirectly lost  (LOST - 1) * BLOCK_SIZE in LOST - 1 blocks
 *   still reachable  kept * BLOCK_SIZE + BLOCKS * 8 (the array), plus what
 *                    the C library itself keeps (the stdout buffer)
 * The program prints these numbers on stdout ("leak_heap: expect ...").
 *
 * 1,048,576 blocks of 1 KiB = 1 GiB of heap; natively about 0.7 s.
 *
 * Build: cc -O2 -g -o leak_heap leak_heap.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define LOST_EVERY 100 /* one block in LOST_EVERY is lost */

/* The root: not static (and volatile), so the compiler keeps the store. */
void** volatile leak_heap_blocks;

/* Builds the heap; returns the number of lost blocks. Done in a function of
 * its own so that no pointer to a lost block stays in main's frame or in a
 * callee-saved register when exit() runs: its frame is gone by then. */
NOINLINE static unsigned long build(unsigned long n, size_t size) {
    void** blocks = malloc(n * sizeof(void*));
    if (!blocks) {
        perror("leak_heap: malloc");
        exit(2);
    }
    leak_heap_blocks = blocks;
    for (unsigned long i = 0; i < n; i++) {
        char* p = malloc(size);
        if (!p) {
            perror("leak_heap: malloc");
            exit(2);
        }
        memset(p + sizeof(void*), 0xa5, size - sizeof(void*));
        *(void**)p = NULL;
        blocks[i] = p;
    }
    /* Link each block to the next one of its kind, then forget the lost
     * ones. */
    void** last_kept = NULL;
    void** last_lost = NULL;
    unsigned long lost = 0;
    for (unsigned long i = 0; i < n; i++) {
        void** p = blocks[i];
        if (i % LOST_EVERY == LOST_EVERY - 1) {
            if (last_lost) *last_lost = p;
            last_lost = p;
            blocks[i] = NULL;
            lost++;
        } else {
            if (last_kept) *last_kept = p;
            last_kept = p;
        }
    }
    return lost;
}

/* Overwrites the stack below main's frame, where build() left pointers. */
NOINLINE static void scrub_stack(void) {
    volatile char pad[4096];
    memset((char*)pad, 0, sizeof pad);
}

int main(int argc, char** argv) {
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1048576;
    size_t size = argc > 2 ? strtoul(argv[2], NULL, 10) : 1024;
    if (size < sizeof(void*)) size = sizeof(void*);
    if (n == 0) {
        fprintf(stderr, "usage: leak_heap [BLOCKS [BLOCK_SIZE]]\n");
        return 2;
    }
    unsigned long lost = build(n, size);
    scrub_stack();
    unsigned long kept = n - lost;
    printf("leak_heap: %lu blocks of %zu bytes, %lu lost\n", n, size, lost);
    printf("leak_heap: expect definite %zu bytes in %lu blocks, indirect %zu bytes in %lu blocks, "
           "reachable at least %zu bytes in %lu blocks\n",
           lost ? size : 0, lost ? 1UL : 0UL, lost ? (lost - 1) * size : 0, lost ? lost - 1 : 0,
           kept * size + n * sizeof(void*), kept + 1);
    fflush(stdout);
    exit(0);
}
