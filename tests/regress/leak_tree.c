/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Leak scan: a lost tree. The root is definitely lost; its two children and
   the grandchild (reachable only through the root) are indirectly lost.

   memcheck --leak-check=full must report:
     definitely lost: 32 bytes in 1 blocks      (ROOT_HERE)
     indirectly lost: 192 bytes in 3 blocks     (LEFT_HERE 48 + RIGHT_HERE 64 + GRANDCHILD_HERE 80)
       possibly lost: 0 bytes in 0 blocks
     still reachable: 0 bytes in 0 blocks */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void lose_tree(void) {
    void** root = malloc(32);       /* ROOT_HERE */
    void** left = malloc(48);       /* LEFT_HERE */
    void** right = malloc(64);      /* RIGHT_HERE */
    void** grandchild = malloc(80); /* GRANDCHILD_HERE */
    memset(root, 0, 32);
    memset(left, 0, 48);
    memset(right, 0, 64);
    memset(grandchild, 0, 80);
    root[0] = left;
    root[1] = right;
    left[2] = grandchild; /* an interior slot: the pointer itself points at the start */
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(void) {
    lose_tree();
    clear_stack();
    exit(0);
}
