/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Follows memcheck's leak-cases.c: the nine ways a root and two blocks can
   point at each other, with start and interior pointers (each block two
   nodes, so that "+ 1" points inside it):

     root -> A               A reachable
     root -> A -> B          both reachable
             A               A definitely lost
             A -> B          A definitely lost, B indirectly lost
     root ~> A               A possibly lost
     root -> A ~> B          A reachable, B possibly lost
     root ~> A -> B          both possibly lost
     root ~> A ~> B          both possibly lost
             A ~> B          A definitely lost, B indirectly lost

   The blocks are made in make_cases() and counted in main(): no stale
   pointer to them stays in main's frame. */
#include <stdlib.h>
#include "mc_leak.h"

struct node {
    struct node* next;
};

static struct node* make(struct node* next) {
    struct node* n = malloc(2 * sizeof *n);
    n->next = next;
    return n;
}

static struct node* roots[9];

__attribute__((noinline)) static void make_cases(void) {
    roots[0] = make(NULL);
    roots[1] = make(make(NULL));
    (void)make(NULL);
    (void)make(make(NULL));
    roots[4] = make(NULL) + 1;
    roots[5] = make(make(NULL));
    roots[5]->next++;
    roots[6] = make(make(NULL)) + 1;
    roots[7] = make(make(NULL));
    roots[7]->next++;
    roots[7]++;
    roots[8] = make(make(NULL));
    roots[8]->next++;
    roots[8] = NULL;
}

int main(void) {
    PRINT_LEAK_COUNTS("before");
    make_cases();
    CLEAR_SCRATCH_REGISTERS;
    PRINT_LEAK_COUNTS("after");
    return 0;
}
