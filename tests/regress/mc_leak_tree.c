/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Follows memcheck's leak-tree.c: a tree of seven blocks under a global,

            A
          /   \
         B     C
        / \   / \
       D   E F   G

   then B's link to D and A's link to C cut: D definitely lost, C
   definitely lost with F and G indirectly lost through it. */
#include <stdlib.h>
#include "mc_leak.h"

struct node {
    struct node* left;
    struct node* right;
};

static struct node* make(void) {
    return calloc(1, sizeof(struct node));
}

struct node* tree;

__attribute__((noinline)) static void grow_and_cut(void) {
    tree = make();
    tree->left = make();
    tree->right = make();
    tree->left->left = make();
    tree->left->right = make();
    tree->right->left = make();
    tree->right->right = make();
    tree->left->left = NULL;
    tree->right = NULL;
}

int main(void) {
    PRINT_LEAK_COUNTS("before");
    grow_and_cut();
    CLEAR_SCRATCH_REGISTERS;
    PRINT_LEAK_COUNTS("after");
    return 0;
}
