/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A service that marks 50 requests with MEMGROW_MARK, then stops marking and
   keeps 100 bytes 3,000 times (300 KB in a straight line) until it exits:
   its marks stopped early, and the growth after them is still growth. */
#include <stdlib.h>
#include <string.h>

#include "memgrow.h"

struct entry {
    struct entry* next;
    char data[92];
};
static struct entry* history; /* global: reachable at exit */

static void handle_request(int i) {
    char* body = malloc(1024 + (i * 37) % 2048); /* freed */
    memset(body, i, 1024);
    free(body);
}

static void remember(int i) {
    struct entry* e = malloc(sizeof *e); /* AFTER_MARKS_HERE */
    memset(e->data, i, sizeof e->data);
    e->next = history;
    history = e;
}

int main(void) {
    for (int i = 0; i < 50; i++) {
        handle_request(i);
        MEMGROW_MARK("request");
    }
    for (int i = 0; i < 3000; i++)
        remember(i);
    return history == NULL;
}
