/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frees one block, then frees a million others from a million distinct
   stacks (every path through a binary tree of calls 20 deep), then frees the
   first block again: a DoubleFree whose first free must still be known after
   memgrow's tree of free stacks has forgotten the stacks it no longer holds
   a quarantined block for. The million blocks are 1 byte each, so the first
   one stays in the freed-block queue. */
#include <stdio.h>
#include <stdlib.h>

static void release(char* p) {
    free(p); /* FIRST_FREE */
}

/* Two callers for each level: each path is a stack of its own. */
static void down(unsigned depth, unsigned path);

__attribute__((noinline)) static void left(unsigned depth, unsigned path) {
    down(depth, path);
    __asm__ volatile(""); /* no tail call: the frame stays */
}
__attribute__((noinline)) static void right(unsigned depth, unsigned path) {
    down(depth, path);
    __asm__ volatile("");
}

__attribute__((noinline)) static void down(unsigned depth, unsigned path) {
    if (depth == 0) {
        free(malloc(1));
        return;
    }
    if (path & 1)
        right(depth - 1, path >> 1);
    else
        left(depth - 1, path >> 1);
    __asm__ volatile("");
}

int main(void) {
    char* p = malloc(40);
    char* fence = malloc(40);
    release(p);
    for (unsigned path = 0; path < (1u << 20); ++path)
        down(20, path);
    free(p); /* SECOND_FREE */
    free(fence);
    puts("still running");
    return 0;
}
