/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frees a block twice with argv[1] bytes of other blocks freed between the
   two frees: a DoubleFree while the first free is still in the freed-block
   queue (--freelist-vol), an InvalidFree once it has left. A live block
   right after it keeps its memory from merging into a bigger free chunk, so
   no later block can start at its address. */
#include <stdio.h>
#include <stdlib.h>

static void release(char* p) {
    free(p);
}

int main(int argc, char** argv) {
    long churn = argc > 1 ? atol(argv[1]) : 0;
    char* p = malloc(40);
    char* fence = malloc(40);
    release(p); /* FIRST_FREE */
    for (long freed = 0; freed < churn; freed += 4000)
        free(malloc(4000));
    free(p); /* SECOND_FREE */
    free(fence);
    puts("still running");
    return 0;
}
