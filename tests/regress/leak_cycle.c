/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Leak scan: two blocks pointing at each other and nothing else pointing at
   either. memcheck makes one of them (the clique leader, by address order)
   definitely lost and the other indirectly lost; both are the same size and
   come from the same line, so neither the totals nor the site's numbers depend
   on which one leads.

   memcheck --leak-check=full must report:
     definitely lost: 64 bytes in 1 blocks      (NODE_HERE)
     indirectly lost: 64 bytes in 1 blocks      (NODE_HERE)
       possibly lost: 0 bytes in 0 blocks
     still reachable: 0 bytes in 0 blocks */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void** new_node(void) {
    void** n = malloc(64); /* NODE_HERE */
    memset(n, 0, 64);
    return n;
}

__attribute__((noinline)) static void lose_cycle(void) {
    void** a = new_node();
    void** b = new_node();
    a[0] = b;
    b[0] = a;
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(void) {
    lose_cycle();
    clear_stack();
    exit(0);
}
