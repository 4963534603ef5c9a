/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A pool of mapped chunks that recycles: chunks given back go to a free
   list, and a step maps a new one only when the list is empty. A step holds
   at most 4 chunks, reached in the first steps, so the mapped level is
   flat (stable); a scratch mapping made and unmapped each step churns. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK (128 << 10)
#define SCRATCH (64 << 10)

static char* free_list[4]; /* global: reachable at exit */
static int n_free;

static char* pool_get(void) {
    if (n_free) return free_list[--n_free];
    int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
    char* p = mmap(NULL, CHUNK, prot, flags, -1, 0); /* POOL_HERE */
    if (p == MAP_FAILED) abort();
    return p;
}

static void pool_put(char* p) {
    free_list[n_free++] = p;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 400;
    for (int i = 0; i < n; i++) {
        char* held[4];
        int k = 1 + i % 4;
        for (int j = 0; j < k; j++) {
            held[j] = pool_get();
            memset(held[j], i, CHUNK);
        }
        for (int j = 0; j < k; j++)
            pool_put(held[j]);
        int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
        char* s = mmap(NULL, SCRATCH, prot, flags, -1, 0); /* SCRATCH_HERE */
        if (s == MAP_FAILED) abort();
        memset(s, i, SCRATCH);
        munmap(s, SCRATCH);
        char* buf = malloc(SCRATCH);
        memset(buf, i, SCRATCH);
        free(buf);
    }
    return 0;
}
