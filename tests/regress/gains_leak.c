/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One program, two builds, for memgrow-report's diff: gains_leak_base as
   written, and gains_leak_new, built with -DGAIN_LEAK, which also drops one
   block every 50 requests (definitely lost at exit). Both builds share every
   source line, so the sites they have in common keep their keys while their
   addresses move. Both have a growing list and a plateau ring, so a diff of
   the two must fail on the leak alone.

   As in leak_lost_block.c, the lost blocks come from a noinline helper and
   the stack is zeroed before exit, so no stale copy keeps them reachable. */
#include <stdlib.h>
#include <string.h>

struct record {
    struct record* next;
    char payload[96];
};

static struct record* all_records; /* global: reachable at exit */

#define SLOTS 1000
static char* ring[SLOTS]; /* global: reachable at exit */

__attribute__((noinline)) static void remember(int i) {
    struct record* r = malloc(sizeof *r); /* GROW_HERE */
    memset(r->payload, i, sizeof r->payload);
    r->next = all_records;
    all_records = r;
}

__attribute__((noinline)) static void cache(int i) {
    int slot = i % SLOTS;
    free(ring[slot]);
    ring[slot] = malloc(256); /* RING_HERE */
    memset(ring[slot], i, 256);
}

__attribute__((noinline)) static void scratch(int i) {
    char* tmp = malloc(64 + i % 512); /* CHURN_HERE */
    tmp[0] = (char)i;
    free(tmp);
}

#ifdef GAIN_LEAK
__attribute__((noinline)) static void forget(int i) {
    char* note = malloc(40); /* LEAK_HERE */
    memset(note, i, 40);
}
#endif

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4000;
    for (int i = 0; i < n; i++) {
        remember(i);
        cache(i);
        scratch(i);
#ifdef GAIN_LEAK
        if (i % 50 == 0) forget(i);
#endif
    }
    clear_stack();
    exit(0);
}
