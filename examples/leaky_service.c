/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A toy request-serving loop with three kinds of memory behaviour, to see
   what memgrow reports:
   - per-client statistics that are never evicted (grows without bound),
   - a cache of recent responses capped at 2048 entries (fills, then holds),
   - per-request scratch buffers freed at the end of each request (stable). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct client_stats {
    struct client_stats* next;
    unsigned id;
    unsigned long requests;
    char name[48];
};

#define CACHE_SLOTS 2048
static struct client_stats* stats_by_client; /* every client ever seen */
static char* response_cache[CACHE_SLOTS];    /* ring: the oldest is evicted */

static struct client_stats* stats_for(unsigned client) {
    for (struct client_stats* s = stats_by_client; s; s = s->next)
        if (s->id == client) return s;
    struct client_stats* s = calloc(1, sizeof *s); /* grows: clients are never evicted */
    s->id = client;
    snprintf(s->name, sizeof s->name, "client-%u", client);
    s->next = stats_by_client;
    stats_by_client = s;
    return s;
}

static void cache_response(unsigned request, const char* body) {
    unsigned slot = request % CACHE_SLOTS;
    free(response_cache[slot]);
    response_cache[slot] = strdup(body); /* bounded: 2048 entries at most */
}

static void handle(unsigned request) {
    char* scratch = malloc(2048); /* freed below: stable */
    snprintf(scratch, 2048, "response to request %u", request);
    stats_for(request / 4)->requests++; /* a new client every 4 requests */
    cache_response(request, scratch);
    free(scratch);
}

int main(int argc, char** argv) {
    unsigned requests = argc > 1 ? (unsigned)atoi(argv[1]) : 8000;
    for (unsigned r = 0; r < requests; r++)
        handle(r);
    printf("served %u requests\n", requests);
    return 0;
}
