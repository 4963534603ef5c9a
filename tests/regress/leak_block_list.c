/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A "service" for memcheck's block_list monitor command over vgdb, driven
   step by step by test_leak_check.py (under memgrow and under memcheck):

     leak_block_list GO_FILE STOP_FILE

   phase 1 makes one loss record of each shape, each of its own total size
   (records are numbered by size), prints "ready 1" and spins until GO_FILE
   exists:

     TREE_ROOT_HERE   definitely lost, 32 bytes; through it two 48-byte
                      nodes (TREE_NODE_HERE) and, through the second, a
                      16-byte leaf (TREE_LEAF_HERE) are indirectly lost:
                      144 bytes in all
     LOST_HERE        definitely lost, 3 blocks of 24 bytes (one stack)
     INTERIOR_HERE    possibly lost, 64 bytes: its only pointer is 8 bytes in
     ARRAY_HERE       40 bytes, an element count 4, then 4 elements of 8
                      bytes, with a global pointing past the count: still
                      reachable through the newarray heuristic, possibly lost
                      without it
     KEPT_HERE        still reachable, 2 blocks of 100 bytes (one stack)

   phase 2 frees one KEPT_HERE block (the block list of the last leak
   search is obsolete then), prints "ready 2" and spins until STOP_FILE
   exists; then exits.

   Lost blocks are allocated in noinline helpers, and the dead stack and the
   scratch registers are cleared before spinning: a scan mid-run takes the
   running thread's stack and registers as roots. Lines go out through
   write(): stdio's buffer would be one more block. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "forget_pointers.h"

static char* interior;
static char* array_elements;
static char* kept[2];

__attribute__((noinline)) static void lose_tree(void) {
    void** root = malloc(32); /* TREE_ROOT_HERE */
    memset(root, 0, 32);
    for (int i = 0; i < 2; i++) {
        root[i] = malloc(48); /* TREE_NODE_HERE */
        memset(root[i], 0, 48);
    }
    void** second = root[1];
    second[0] = malloc(16); /* TREE_LEAF_HERE */
    memset(second[0], 0, 16);
}

__attribute__((noinline)) static void lose_block(void) {
    char* p = malloc(24); /* LOST_HERE */
    memset(p, 1, 24);
}

__attribute__((noinline)) static void make_interior(void) {
    char* p = malloc(64); /* INTERIOR_HERE */
    memset(p, 2, 64);
    interior = p + 8;
}

__attribute__((noinline)) static void make_array(void) {
    uint64_t* p = malloc(40); /* ARRAY_HERE */
    p[0] = 4;
    for (int i = 1; i < 5; i++)
        p[i] = (uint64_t)i;
    array_elements = (char*)(p + 1);
}

__attribute__((noinline)) static void keep_block(int i) {
    kept[i] = malloc(100); /* KEPT_HERE */
    memset(kept[i], 3, 100);
}


/* Busy until `path` exists; gives up (exit 3) after 120 s so that a lost
   test does not leave it spinning. */
__attribute__((noinline)) static void spin_until(const char* path) {
    volatile unsigned long work = 0;
    time_t start = time(NULL);
    while (access(path, F_OK) != 0) {
        for (int k = 0; k < 20000; k++)
            work += k;
        if (time(NULL) - start > 120) exit(3);
    }
}

static void say(const char* line) {
    if (write(1, line, strlen(line)) < 0) exit(4);
}

int main(int argc, char** argv) {
    if (argc != 3) {
        say("usage: leak_block_list GO_FILE STOP_FILE\n");
        return 2;
    }
    lose_tree();
    for (int i = 0; i < 3; i++)
        lose_block();
    make_interior();
    make_array();
    for (int i = 0; i < 2; i++)
        keep_block(i); /* one stack for both */
    forget();
    say("ready 1\n");
    spin_until(argv[1]);
    free(kept[1]);
    kept[1] = NULL;
    forget();
    say("ready 2\n");
    spin_until(argv[2]);
    return 0;
}
