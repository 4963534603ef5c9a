/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Thousands of sites that allocate one block and free it (a big program's
   start-up makes a million), some of them allocating again later, and a
   use after free of such a block: the records of the ended sites are
   compacted (records/mg_site_store.cpp), and nothing in the report may tell
   (test_records.py runs it with and without compaction). */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define LEVELS 9
#define PATHS (1 << LEVELS) /* distinct stacks: one per path */

static void* kept[PATHS];

static NOINLINE void* leaf(unsigned long size) {
    return malloc(size); /* ONE_SHOT_HERE */
}

/* Each level calls the next from one of two call sites, by one bit of the
   path: PATHS distinct stacks within LEVELS + 2 frames. */
static NOINLINE void* path(unsigned bits, int level, unsigned long size) {
    void* p;
    if (level == 0) return leaf(size);
    if (bits & 1)
        p = path(bits >> 1, level - 1, size); /* LEFT_HERE */
    else
        p = path(bits >> 1, level - 1, size); /* RIGHT_HERE */
    __asm__ volatile("" ::: "memory");        /* not a tail call */
    return p;
}

static NOINLINE void* uaf_block(void) {
    return malloc(40); /* UAF_ALLOC_HERE */
}

/* Every path allocates a block and frees it; with keep_every, only the
   even paths allocate, and every so many of them keep the block. Both phases come through the same
   call, so the second allocates from the first one's stacks. */
static NOINLINE void phase(unsigned keep_every) {
    for (unsigned b = 0; b < PATHS; b++) {
        if (keep_every && (b & 1)) continue;        /* odd paths stay ended */
        void* p = path(b, LEVELS, b & 1 ? 48 : 24); /* PHASE_HERE */
        if (keep_every && b % keep_every == 0)
            kept[b] = p;
        else
            free(p);
    }
}

int main(void) {
    /* A block freed and then read: the error names its allocation stack,
       whose site ends (one block, freed) and is compacted later. */
    char* volatile gone = uaf_block(); /* volatile: the compiler may not see the free */
    memset(gone, 1, 40);
    free(gone);
    volatile char c = gone[8]; /* UAF_READ_HERE */
    (void)c;
    /* First every path's site ends (one block, freed); then, once they are
       out of the quarantine, the same sites allocate again and every third
       keeps its block: compacted sites come back. */
    for (unsigned round = 0; round < 2; round++) {
        phase(round ? 3 : 0);
        for (int i = 0; i < 4000; i++) /* pushes the freed blocks out */
            free(malloc(4096));
    }
    for (unsigned b = 0; b < PATHS; b += 6) /* every sixth is lost */
        kept[b] = 0;
    return 0;
}
