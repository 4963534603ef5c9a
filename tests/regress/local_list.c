/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The growing list is a local of main, freed just before main returns:
   with the bytes-allocated clock those frees all land in the last bucket,
   and the growth before them must still be reported. */
#include <stdlib.h>

struct node {
    struct node* next;
    char pad[72];
};

int main(void) {
    struct node* head = NULL;
    for (int i = 0; i < 20000; i++) {
        struct node* n = malloc(sizeof *n); /* GROW_HERE */
        n->next = head;
        head = n;
        free(malloc(64 + i % 256));
    }
    while (head) {
        struct node* next = head->next;
        free(head);
        head = next;
    }
    return 0;
}
