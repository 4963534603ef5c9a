/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Holders (docs/holders.md): memory kept by a global linked list, by a list
   only main's stack holds, by a list a thread-local variable holds, by a
   global array of pointers, and lost: a lost head with its nodes lost
   through it.

     holders_native N      (N nodes in each structure)  */
#include <stdlib.h>
#include <string.h>

struct node {
    struct node* next;
    char payload[40];
};

struct node* journal; /* a global list: its nodes grow to the end */
char* slots[4096];    /* a global array of pointers */
static __thread struct node* per_thread; /* main's thread-local list */

__attribute__((noinline)) static struct node* new_node(struct node* next, int i) {
    struct node* n = malloc(sizeof *n); /* NODE_HERE */
    n->next = next;
    memset(n->payload, i, sizeof n->payload);
    return n;
}

__attribute__((noinline)) static char* new_slot(int i) {
    char* s = malloc(24); /* SLOT_HERE */
    memset(s, i, 24);
    return s;
}

__attribute__((noinline)) static struct node* new_local(struct node* next) {
    struct node* n = malloc(sizeof *n); /* LOCAL_HERE */
    n->next = next;
    return n;
}

__attribute__((noinline)) static struct node* new_tls_node(struct node* next) {
    struct node* n = malloc(sizeof *n); /* TLS_HERE */
    n->next = next;
    return n;
}

__attribute__((noinline)) static void lose_list(int n) {
    struct node* head = NULL;
    for (int i = 0; i < n; i++) {
        struct node* x = malloc(sizeof *x); /* LOST_HERE */
        x->next = head;
        head = x;
    }
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    if (n > 4096) n = 4096;
    struct node* local_head = NULL; /* only main's frame holds this list */
    for (int i = 0; i < n; i++) {
        journal = new_node(journal, i);
        slots[i] = new_slot(i);
        local_head = new_local(local_head);
        per_thread = new_tls_node(per_thread);
    }
    lose_list(50);
    /* Scanned at exit while main's frame still holds local_head. */
    __asm__ volatile("" : : "r"(local_head) : "memory");
    exit(0);
}
