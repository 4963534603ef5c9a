/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Follows memcheck's leak-cycle.c: rings of three blocks with no pointer
   from outside. Two separate rings, a ring that points into another (their
   cliques merge), and two rings that point at each other: every block lost,
   one definitely lost block per group and the rest indirectly. */
#include <stdlib.h>
#include "mc_leak.h"

struct node {
    struct node* left;
    struct node* right;
};

static struct node* make(struct node* left) {
    struct node* n = malloc(sizeof *n);
    n->left = left;
    n->right = NULL;
    return n;
}

static struct node* ring(void) {
    struct node* a = make(NULL);
    a->left = make(make(a));
    return a;
}

__attribute__((noinline)) static void make_rings(void) {
    struct node* volatile one = ring();
    struct node* volatile two = ring();
    one = two = NULL;
    one = ring();
    two = ring();
    if (one < two)
        two->right = one;
    else
        one->right = two;
    one = two = NULL;
    one = ring();
    two = ring();
    one->right = two;
    two->right = one;
    one = two = NULL;
}

int main(void) {
    PRINT_LEAK_COUNTS("before");
    make_rings();
    CLEAR_SCRATCH_REGISTERS;
    PRINT_LEAK_COUNTS("after");
    return 0;
}
