/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Teardown's losses told from the program's. A list is held by a global
   head all through main; a destructor run at exit frees the head but not the
   nodes, so at exit the first node is definitely lost and the others
   indirectly -- memcheck's totals, which memgrow keeps -- but all of them
   were reachable when teardown began: lost by teardown. One more block is
   lost by the program itself, before exit.

   memcheck --leak-check=full must report:
     definitely lost: 48 + 2,000 bytes in 2 blocks (NODE_HERE's first node, LOST_HERE)
     indirectly lost: 99 * 48 bytes in 99 blocks   (NODE_HERE)
   memgrow adds: lost by teardown: 100 * 48 bytes in 100 blocks. */
#include <stdlib.h>
#include <string.h>

struct node {
    struct node* next;
    char payload[40];
};

struct list {
    struct node* first;
    long n;
};

static struct list* the_list; /* reachable until the destructor runs */

__attribute__((destructor)) static void drop_list(void) {
    free(the_list); /* the nodes are forgotten */
    the_list = NULL;
}

__attribute__((noinline)) static void push(void) {
    struct node* x = malloc(sizeof *x); /* NODE_HERE */
    memset(x, 0, sizeof *x);
    x->next = the_list->first;
    the_list->first = x;
    the_list->n++;
}

__attribute__((noinline)) static void lose_block(void) {
    char* p = malloc(2000); /* LOST_HERE */
    memset(p, 1, 2000);
}

/* Overwrites the dead stack below main's frame, where the helpers kept their
   copies of the pointers. */
__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

/* The program's own loss comes first, so that the hundred calls after it
   leave no copy of its pointer in a register when exit() begins. */
int main(void) {
    lose_block();
    the_list = calloc(1, sizeof *the_list); /* HEAD_HERE */
    for (int i = 0; i < 100; i++)
        push();
    clear_stack();
    exit(0);
}
