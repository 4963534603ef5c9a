/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two leaks at different functions and a growing list, for suppression
   tests: a suppression must silence exactly the site it names. */
#include <stdlib.h>
#include <string.h>

struct item {
    struct item* next;
    char payload[120];
};
static struct item* list; /* grows to the end: a growing site */

__attribute__((noinline)) static void lose_a(void) {
    char* p = malloc(100); /* LOSE_A */
    memset(p, 1, 100);
}

__attribute__((noinline)) static void lose_b(void) {
    char* p = malloc(200); /* LOSE_B */
    memset(p, 2, 200);
}

__attribute__((noinline)) static void grow_one(void) {
    struct item* it = malloc(sizeof *it); /* GROW_HERE */
    it->next = list;
    list = it;
}

/* No stale copy of a lost pointer may stay on the stack. */
__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[8192];
    memset((char*)buf, 0, sizeof buf);
}

int main(void) {
    lose_a();
    lose_b();
    for (int i = 0; i < 20000; i++) {
        grow_one();
        free(malloc(64));
    }
    clear_stack();
    exit(0);
}
