/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A ring of allocations that frees the oldest once full: the level rises
   while the ring fills (the first quarter of the run), then holds. */
#include <stdlib.h>
#include <string.h>

#define SLOTS 500
static char* ring[SLOTS]; /* global: reachable at exit */

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    for (int i = 0; i < n; i++) {
        int slot = i % SLOTS;
        free(ring[slot]);
        ring[slot] = malloc(256); /* RING_HERE */
        memset(ring[slot], i, 256);
    }
    return 0;
}
