/* Frees a block twice: a DoubleFree error with three stacks (this free, the
   first free, the allocation), and the program goes on. */
#include <stdio.h>
#include <stdlib.h>

static void release(char* p) {
    free(p); /* FIRST_FREE */
}

int main(void) {
    char* p = malloc(40); /* ALLOC_HERE */
    release(p);
    free(p); /* SECOND_FREE */
    puts("still running");
    return 0;
}
