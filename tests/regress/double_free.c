/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frees a block twice, with allocations between the two frees (blocks too
   big to reuse its memory): a DoubleFree error with three stacks (this free,
   the first free, the allocation), and the program goes on. */
#include <stdio.h>
#include <stdlib.h>

static void release(char* p) {
    free(p); /* FIRST_FREE */
}

int main(void) {
    char* p = malloc(40); /* ALLOC_HERE */
    release(p);
    char* later[100];
    for (int i = 0; i < 100; ++i)
        later[i] = malloc(400);
    free(p); /* SECOND_FREE */
    for (int i = 0; i < 100; ++i)
        free(later[i]);
    puts("still running");
    return 0;
}
