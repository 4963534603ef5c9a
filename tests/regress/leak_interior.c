/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Leak scan: a block reached only through a pointer into its middle (offset
   100 of 256: not word aligned, so none of memcheck's heuristics -- stdstring
   at 24, length64 and newarray at 8, multipleinheritance on aligned vtable
   pointers -- accepts it) is possibly lost. Plus one definitely lost block.

   memcheck --leak-check=full must report:
     definitely lost: 24 bytes in 1 blocks      (LOST_HERE)
     indirectly lost: 0 bytes in 0 blocks
       possibly lost: 256 bytes in 1 blocks     (INTERIOR_HERE)
     still reachable: 0 bytes in 0 blocks */
#include <stdlib.h>
#include <string.h>

static char* middle; /* global: points 100 bytes into the INTERIOR_HERE block */

__attribute__((noinline)) static void keep_interior(void) {
    char* p = malloc(256); /* INTERIOR_HERE */
    memset(p, 0, 256);
    middle = p + 100;
}

__attribute__((noinline)) static void lose_block(void) {
    char* p = malloc(24); /* LOST_HERE */
    memset(p, 3, 24);
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(void) {
    keep_interior();
    lose_block();
    clear_stack();
    exit(0);
}
