/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Mempools annotated for memcheck (valgrind.h; test_custom_alloc.py,
   test_leaks.py). Pool A, on a malloc()ed superblock, holds a growing list,
   ten kept chunks (one moved and resized by MEMPOOL_CHANGE) and five lost
   ones, and changes its handle (MOVE_MEMPOOL); pool B is destroyed with its
   chunks; pool C is trimmed (MEMPOOL_TRIM) to two chunks, one cut in half.

   memcheck --leak-check=full must report:
     definitely lost: 320 bytes in 5 blocks        (LOST_HERE)
     indirectly lost: 0 bytes in 0 blocks
       possibly lost: 0 bytes in 0 blocks
     still reachable: 5000 * 32 + 9 * 100 + 120 + 48 + 24 bytes in 5,012 blocks
   The superblocks holding chunks are left out, as memcheck leaves them out.

   Arguments: "bad" sends requests naming no pool or no chunk; "uaf" reads a
   freed chunk and writes into a chunk's redzone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/valgrind.h>

#define RZ 16

struct pool {
    char* super;
    size_t used, size;
};
static struct pool a, a_moved, b, c;

static void* pool_alloc(struct pool* handle, struct pool* p, size_t n) {
    char* q = p->super + p->used + RZ;
    p->used += (n + 15) / 16 * 16 + 2 * RZ;
    if (p->used > p->size) abort();
    VALGRIND_MEMPOOL_ALLOC(handle, q, n); /* POOL_ALLOC_HERE */
    return q;
}

static void pool_init(struct pool* p, size_t size) {
    p->super = malloc(size); /* SUPER_HERE */
    p->size = size;
    VALGRIND_CREATE_MEMPOOL(p, RZ, 0);
}

struct node {
    struct node* next;
    char payload[24];
};
static struct node* all_nodes; /* global: still reachable */
static char* kept[10];
static char* trimmed[4];
static volatile char sink; /* reads land here: a load whose value is unused is optimised away */

__attribute__((noinline)) static void remember(int i) {
    struct node* r = pool_alloc(&a, &a, sizeof *r); /* GROW_HERE */
    memset(r->payload, i, sizeof r->payload);
    r->next = all_nodes;
    all_nodes = r;
}

__attribute__((noinline)) static void lose(int i) {
    char* p = pool_alloc(&a, &a, 64); /* LOST_HERE */
    memset(p, i, 64);
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(int argc, char** argv) {
    pool_init(&a, 1 << 20);
    pool_init(&b, 4096);
    pool_init(&c, 4096);
    for (int i = 0; i < 5000; i++) {
        remember(i);
        if (i % 1000 == 0) lose(i);
    }
    for (int i = 0; i < 10; i++)
        kept[i] = pool_alloc(&a, &a, 100); /* KEPT_HERE */
    char* freed = pool_alloc(&a, &a, 100);
    VALGRIND_MEMPOOL_FREE(&a, freed);
    /* kept[0] moves to fresh room in the superblock, with 120 bytes. */
    char* moved = a.super + a.used + RZ;
    a.used += 128 + 2 * RZ;
    VALGRIND_MEMPOOL_CHANGE(&a, kept[0], moved, 120);
    kept[0] = moved;
    VALGRIND_MOVE_MEMPOOL(&a, &a_moved);
    printf("exists: old %d new %d\n", VALGRIND_MEMPOOL_EXISTS(&a),
           VALGRIND_MEMPOOL_EXISTS(&a_moved));

    for (int i = 0; i < 3; i++)
        pool_alloc(&b, &b, 256); /* DESTROYED_HERE */
    VALGRIND_DESTROY_MEMPOOL(&b);
    free(b.super);

    for (int i = 0; i < 4; i++)
        trimmed[i] = pool_alloc(&c, &c, 48); /* TRIMMED_HERE */
    VALGRIND_MEMPOOL_TRIM(&c, trimmed[1], trimmed[2] + 24 - trimmed[1]);

    if (argc > 1 && !strcmp(argv[1], "bad")) {
        VALGRIND_MEMPOOL_ALLOC(&b, b.super, 8);       /* BAD_POOL */
        VALGRIND_MEMPOOL_FREE(&a_moved, kept[1] + 8); /* BAD_CHUNK */
    }
    if (argc > 1 && !strcmp(argv[1], "uaf")) {
        volatile char* f = freed;
        sink = f[4]; /* READ_FREED_CHUNK */
        volatile char* k = kept[2];
        k[100] = 1; /* WRITE_REDZONE */
        volatile char* t = trimmed[2];
        sink = t[30]; /* READ_TRIMMED */
    }
    clear_stack();
    exit(0);
}
