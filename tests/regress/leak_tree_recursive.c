/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Leak scan: a binary tree of 15 blocks of 48 bytes built by recursion and
   dropped just before main returns (built -O0, as every test program). Its
   frames leave pointers to the nodes in dead stack that exit()'s frames
   later cover without writing; memcheck takes no pointer from there
   (undefined), so neither may memgrow. memcheck --leak-check=full:

     definitely lost: 48 bytes in 1 blocks      (the root)
     indirectly lost: 672 bytes in 14 blocks */
#include <stdlib.h>

struct node {
    struct node* left;
    struct node* right;
    long payload[4];
};

static struct node* build(int depth) {
    if (depth == 0) return NULL;
    struct node* n = malloc(sizeof *n);
    n->left = build(depth - 1);
    n->right = build(depth - 1);
    return n;
}

int main(void) {
    struct node* root = build(4);
    root = NULL;
    return root != NULL;
}
