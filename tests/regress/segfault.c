/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Grows a list, then dies of SIGSEGV: the report must still be written,
   with teardown when the process died. */
#include <stdlib.h>

struct node {
    struct node* next;
    char pad[120];
};
static struct node* head;

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 5000;
    for (int i = 0; i < n; i++) {
        struct node* x = malloc(sizeof *x); /* GROW_HERE */
        x->next = head;
        head = x;
        free(malloc(100));
    }
    volatile int* null = 0;
    return *null;
}
