/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Leak scan, simplest case: one block whose only pointer is dropped, one block
   kept in a global.

   memcheck --leak-check=full must report:
     definitely lost: 2,000 bytes in 1 blocks   (LOST_HERE)
     indirectly lost: 0 bytes in 0 blocks
       possibly lost: 0 bytes in 0 blocks
     still reachable: 200 bytes in 1 blocks     (KEPT_HERE)

   Lost blocks are allocated in noinline helpers and the stack is zeroed
   before exit, so no stale copy of a lost pointer is left in live memory:
   memgrow does not track definedness, memcheck does. */
#include <stdlib.h>
#include <string.h>

static char* kept; /* global: still reachable */

__attribute__((noinline)) static void lose_block(void) {
    char* p = malloc(2000); /* LOST_HERE */
    memset(p, 1, 2000);
}

__attribute__((noinline)) static void keep_block(void) {
    kept = malloc(200); /* KEPT_HERE */
    memset(kept, 2, 200);
}

/* Overwrites the dead stack below main's frame, where the helpers kept their
   copies of the pointers. */
__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(void) {
    keep_block();
    lose_block();
    clear_stack();
    exit(0);
}
