/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Grows, then leaves through _exit(): no exit() handlers, no teardown
   request; the report is written at process end. */
#include <stdlib.h>
#include <unistd.h>

struct node {
    struct node* next;
    char pad[56];
};
static struct node* head;

int main(void) {
    for (int i = 0; i < 5000; i++) {
        struct node* x = malloc(sizeof *x); /* GROW_HERE */
        x->next = head;
        head = x;
        free(malloc(200));
    }
    _exit(3);
}
