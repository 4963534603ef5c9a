/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Follows memcheck's leak-pool.c: a memory pool (VALGRIND_CREATE_MEMPOOL)
   in a malloc()ed buffer marked inaccessible, 100 cells of it handed out
   (VALGRIND_MEMPOOL_ALLOC) and held in an array local to main, or in a
   global; then, by the argument, nothing more (0, 3), the pool trimmed to
   20 cells (1, 4) or destroyed (2, 5). main returns: the local array's
   frame is dead, and exit()'s frames cover it, so the cells held only
   there are lost (the check at exit only). */
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

struct cell {
    struct cell* next;
    int x;
};

struct pool {
    size_t allocated, used;
    char* buf;
};

static void* pool_alloc(struct pool* p, size_t n) {
    void* a = p->buf + p->used;
    VALGRIND_MEMPOOL_ALLOC(p, a, n);
    p->used += n;
    return a;
}

static struct pool* pool_new(void) {
    struct pool* p = malloc(sizeof *p);
    p->allocated = 4096;
    p->used = 0;
    p->buf = calloc(1, p->allocated);
    VALGRIND_CREATE_MEMPOOL(p, 0, 0);
    (void)VALGRIND_MAKE_MEM_NOACCESS(p->buf, p->allocated);
    return p;
}

#define N 100
struct cell* global_cells[N];

int main(int argc, char** argv) {
    struct cell* local_cells[N];
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    struct pool* p = pool_new();
    struct cell** cells = mode >= 3 ? global_cells : local_cells;
    memset(local_cells, 0, sizeof local_cells);
    for (int i = 0; i < N; ++i)
        cells[i] = pool_alloc(p, sizeof(struct cell));
    if (mode % 3 == 1)
        VALGRIND_MEMPOOL_TRIM(p, p->buf + 10 * sizeof(struct cell), 20 * sizeof(struct cell) + 2);
    if (mode % 3 == 2) VALGRIND_DESTROY_MEMPOOL(p);
    return 0;
}
