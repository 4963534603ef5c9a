/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A "service" that marks each request with MEMGROW_MARK and leaks a fixed
   96 bytes per request into a global list, beside per-request churn and its
   configuration, read once before the first request (a quiet site). */
#include <stdlib.h>
#include <string.h>

#include "memgrow.h"

struct entry {
    struct entry* next;
    char data[88];
};
static struct entry* history; /* global: reachable at exit */
static char* config;

static void handle_request(int i) {
    char* body = malloc(512 + (i * 37) % 4096); /* SCRATCH_HERE: freed */
    memset(body, i, 512);
    struct entry* e = malloc(sizeof *e); /* PER_MARK_HERE: 96 bytes a request */
    e->next = history;
    history = e;
    free(body);
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    config = strdup("requests=all"); /* CONFIG_HERE: one block, kept */
    for (int i = 0; i < n; i++) {
        handle_request(i);
        MEMGROW_MARK("request");
    }
    return sizeof(struct entry) != 96 || !config;
}
