/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A K&R chained hash table: `n->next = table[h]; table[h] = n;`, never
   freed. Its nodes are scattered over the 16,384 buckets; with these keys no
   two collide yet, and the chains would grow past the buckets all the same:
   the table is no bound (docs/holders.md).

     chained_table [N] */
#include <stdlib.h>
#include <string.h>

#define BUCKETS 16384
struct node {
    struct node* next;
    long key;
    char value[40];
};
static struct node* table[BUCKETS];

static void insert(long key) {
    unsigned h = (unsigned)(key % BUCKETS);
    struct node* n = malloc(sizeof *n); /* TABLE_NODE */
    n->key = key;
    memset(n->value, 'v', sizeof n->value);
    n->next = table[h];
    table[h] = n;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 3000;
    for (long i = 0; i < n; i++) {
        insert(i * 7919 + 1);
        void* t = malloc(200);
        free(t);
    }
    return 0;
}
