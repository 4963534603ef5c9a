/* SPDX-License-Identifier: GPL-2.0-or-later */
/* many_stacks.c: N distinct allocation stacks, for measuring what memgrow
 * costs per distinct stack (bench/stacks.py).
 *
 *   many_stacks N
 *
 * Allocation i is made at the end of a chain of calls that spells i in
 * binary: one level per bit, each bit taken through one of two call sites,
 * so that every i has its own stack (log2 N levels, within memgrow's default
 * --depth of 32). Each block is freed at once: the live heap stays empty and
 * what grows with N is the tool's record of the stacks. Built with -O0 so
 * that the two call sites of a level stay two return addresses.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static void __attribute__((noinline)) step(unsigned long i, int level) {
    if (level == 0) {
        char* p = malloc(32);
        p[0] = (char)i;
        sink += (unsigned long)p[0];
        free(p);
        return;
    }
    if ((i >> (level - 1)) & 1)
        step(i, level - 1); /* bit 1 */
    else
        step(i, level - 1); /* bit 0: another return address */
    sink++;                 /* no tail call: the frame stays on the stack */
}

int main(int argc, char** argv) {
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    int levels = 0;
    while ((1ul << levels) < n)
        ++levels;
    for (unsigned long i = 0; i < n; ++i)
        step(i, levels);
    printf("%lu stacks, %d levels\n", n, levels);
    return 0;
}
