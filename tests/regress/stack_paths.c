/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The same allocation function reached through different callers at the
   same stack depth, over and over: every block must be charged to the
   stack that really made it (memgrow reuses verified stacks between
   allocations, and this is where a wrong reuse would show). */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define N 3000

static void* kept[4][N];

static NOINLINE void* make(unsigned long size) {
    return malloc(size); /* MAKE_HERE */
}

static NOINLINE void* via_left(unsigned long size) {
    return make(size); /* LEFT_HERE */
}
static NOINLINE void* via_right(unsigned long size) {
    return make(size); /* RIGHT_HERE */
}

static NOINLINE void* recurse(int depth, unsigned long size) {
    if (depth == 0) return make(size);
    return recurse(depth - 1, size); /* RECURSE_HERE */
}

int main(void) {
    for (int i = 0; i < N; i++) {
        kept[0][i] = via_left(16);  /* CALL_LEFT */
        kept[1][i] = via_right(32); /* CALL_RIGHT */
        kept[2][i] = via_left(64);  /* CALL_LEFT_AGAIN */
        kept[3][i] = recurse(i % 5, 128);
    }
    return 0;
}
