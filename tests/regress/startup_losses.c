/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Start-up's losses told from the program's (issue 45). Before its start-up
   ends (MEMGROW_WARMUP_END, or its first MEMGROW_MARK with the argument
   "mark") the program builds a table of 10 nodes and drops it, and loses
   one block: lost at start-up. Then each of 20 requests loses one block:
   the program's own leak.

   memcheck --leak-check=full must report:
     definitely lost: 48 + 1,000 + 20 * 64 bytes in 22 blocks
                      (STARTUP_NODE_HERE's first node, STARTUP_LOST_HERE, REQUEST_LOST_HERE)
     indirectly lost: 9 * 48 bytes in 9 blocks (STARTUP_NODE_HERE)
   memgrow adds: lost at start-up: 10 * 48 + 1,000 bytes in 11 blocks. */
#include <stdlib.h>
#include <string.h>

#include "memgrow.h"

struct node {
    struct node* next;
    char payload[40];
};

static struct node* table; /* dropped once start-up is done with it */

__attribute__((noinline)) static void add_node(void) {
    struct node* x = malloc(sizeof *x); /* STARTUP_NODE_HERE */
    memset(x, 0, sizeof *x);
    x->next = table;
    table = x;
}

__attribute__((noinline)) static void lose_at_startup(void) {
    char* p = malloc(1000); /* STARTUP_LOST_HERE */
    memset(p, 1, 1000);
}

__attribute__((noinline)) static void handle_request(int i) {
    char* p = malloc(64); /* REQUEST_LOST_HERE */
    memset(p, i, 64);
}

/* Overwrites the dead stack below main's frame, where the helpers kept their
   copies of the pointers. */
__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(int argc, char** argv) {
    int marks = argc > 1 && strcmp(argv[1], "mark") == 0;
    lose_at_startup();
    for (int i = 0; i < 10; i++)
        add_node();
    table = NULL;
    clear_stack();
    if (!marks) MEMGROW_WARMUP_END();
    for (int i = 0; i < 20; i++) {
        if (marks) MEMGROW_MARK("request");
        handle_request(i);
    }
    clear_stack();
    return 0;
}
