/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frees pointers that were never allocated: a stack address, a wild
   pointer, an interior pointer, and realloc of a wild pointer. memgrow
   reports each and the program goes on. */
#pragma GCC diagnostic ignored "-Wfree-nonheap-object" /* the point of the test */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int local = 0;
    free(&local);        /* STACK_FREE */
    free((void*)0x1234); /* WILD_FREE */
    char* p = malloc(64);
    free(p + 8);                           /* INTERIOR_FREE */
    void* q = realloc((void*)0x5678, 100); /* WILD_REALLOC */
    free(p);
    printf("still running %p\n", q);
    return 0;
}
