/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A "service" that keeps 96 bytes a request in a fixed array of 100,000
   slots and marks each request (issue 43, B12): the array bounds the site,
   a plateau whose heap at the bound (9.2 MiB) is far above what it holds
   when the run ends (2,000 requests: 192,000 bytes). */
#include <stdlib.h>
#include <string.h>

#include "memgrow.h"

#define SLOTS 100000
static void* kept[SLOTS];
static int nk;

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    for (int i = 0; i < n && nk < SLOTS; i++) {
        kept[nk++] = malloc(96); /* KEPT_HERE: 96 bytes a request */
        void* t = malloc(512);
        memset(t, i, 512);
        free(t);
        MEMGROW_MARK("request");
    }
    return 0;
}
