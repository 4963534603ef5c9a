/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-connection buffers appended to with realloc, never trimmed: four of
   the 64 slots are used, and each buffer grows linearly. A bound on the
   number of blocks is none on their bytes (docs/holders.md).

     conn_bufs [N] */
#include <stdlib.h>
#include <string.h>

#define MAX_CONN 64
static char* conn_buf[MAX_CONN];
static size_t conn_len[MAX_CONN];

static void on_data(int fd, size_t n) {
    conn_buf[fd] = realloc(conn_buf[fd], conn_len[fd] + n); /* CONN_APPEND */
    memset(conn_buf[fd] + conn_len[fd], 'd', n);
    conn_len[fd] += n;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4000;
    for (int i = 0; i < n; i++) {
        on_data(i % 4, 100);
        void* t = malloc(200);
        free(t);
    }
    return 0;
}
