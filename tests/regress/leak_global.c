/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Leak scan: blocks reachable from a global pointer, from a static array and
   through a pointer inside a reachable block are still reachable; one block
   is definitely lost.

   memcheck --leak-check=full must report:
     definitely lost: 50 bytes in 1 blocks      (LOST_HERE)
     indirectly lost: 0 bytes in 0 blocks
       possibly lost: 0 bytes in 0 blocks
     still reachable: 160 bytes in 5 blocks     (GLOBAL_HERE 40 + ARRAY_HERE 3 * 16 + INNER_HERE 72)
 */
#include <stdlib.h>
#include <string.h>

void** global_block;   /* a global pointer */
static void* table[3]; /* a static array of pointers */

__attribute__((noinline)) static void keep_blocks(void) {
    global_block = malloc(40); /* GLOBAL_HERE */
    memset(global_block, 0, 40);
    global_block[1] = malloc(72); /* INNER_HERE: only pointer is inside GLOBAL_HERE's block */
    memset(global_block[1], 0, 72);
    for (int i = 0; i < 3; i++) {
        table[i] = malloc(16); /* ARRAY_HERE */
        memset(table[i], 0, 16);
    }
}

__attribute__((noinline)) static void lose_block(void) {
    char* p = malloc(50); /* LOST_HERE */
    memset(p, 4, 50);
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(void) {
    keep_blocks();
    lose_block();
    clear_stack();
    exit(0);
}
