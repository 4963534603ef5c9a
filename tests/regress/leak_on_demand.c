/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Leak scans on demand: MEMGROW_LEAK_CHECK() between two batches of lost
   blocks.

   First scan: 10 bytes definitely lost (FIRST_LOST_HERE), returns 10.
   Second scan: 2 x 20 more bytes lost at another line (SECOND_LOST_HERE,
   one stack), returns 50 (all lost bytes, not only the new ones); only the new
   record is listed, "40 (+40) bytes in 2 (+2) blocks".
   At exit: both records, without deltas.

   Lost blocks are allocated in noinline helpers and the stack below main is
   zeroed before each scan, so no stale copy of a lost pointer stays in live
   memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgrow.h"

static char* kept; /* global: still reachable */

__attribute__((noinline)) static void lose_first(void) {
    char* p = malloc(10); /* FIRST_LOST_HERE */
    memset(p, 1, 10);
}

__attribute__((noinline)) static void lose_second(void) {
    char* p = malloc(20); /* SECOND_LOST_HERE */
    memset(p, 2, 20);
}

__attribute__((noinline)) static void keep_block(void) {
    kept = malloc(300); /* KEPT_HERE */
    memset(kept, 3, 300);
}

/* Overwrites the dead stack below main's frame, where the helpers kept their
   copies of the pointers, and the argument registers (without this, the
   last lost block stays reachable from one after memset): a scan mid-run
   takes the running thread's registers as roots. */
__attribute__((noinline)) static long clear_stack(long a, long b, long c, long d, long e, long f) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
    return a + b + c + d + e + f;
}

/* The scans are made from main's own frame: a helper's frame would have
   slots the helpers' stale pointers are left in. */
int main(void) {
    unsigned long lost;
    keep_block();
    lose_first(); /* FIRST_CALL_HERE */
    clear_stack(0, 0, 0, 0, 0, 0);
    lost = MEMGROW_LEAK_CHECK();
    printf("first scan: %lu\n", lost);
    fflush(stdout);
    for (int i = 0; i < 2; i++)
        lose_second(); /* SECOND_CALL_HERE */
    clear_stack(0, 0, 0, 0, 0, 0);
    lost = MEMGROW_LEAK_CHECK();
    printf("second scan: %lu\n", lost);
    fflush(stdout);
    clear_stack(0, 0, 0, 0, 0, 0);
    exit(0);
}
