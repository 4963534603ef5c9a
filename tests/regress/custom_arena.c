/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small arena allocator annotated for memcheck with valgrind.h's
   MALLOCLIKE / FREELIKE / RESIZEINPLACE requests (test_custom_alloc.py,
   test_leaks.py): a list kept from a global grows, one site loses its
   blocks, scratch blocks come and go, one buffer grows in place.

   memcheck --leak-check=full must report:
     definitely lost: 20,000 bytes in 100 blocks   (LOST_HERE)
     indirectly lost: 0 bytes in 0 blocks
       possibly lost: 0 bytes in 0 blocks
     still reachable: 20000 * 32 + 150 bytes in 20,001 blocks
   The arena itself, a malloc()ed block holding the others, is left out, as
   memcheck leaves it out.

   Arguments: "uaf" reads a block after FREELIKE and writes into a block's
   redzone; "badfree" frees an address that is no block; a second argument,
   "mmap", takes the arena from mmap (memcheck then describes the address by
   the arena's blocks, not by the arena). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <valgrind/valgrind.h>

#define RZ 16
#define ARENA (8 << 20)
#define CLASSES 32

static char* arena;
static size_t used;
/* Freed blocks by size class (16 bytes each), kept outside the arena: the
   freed memory is not addressable. */
static char* free_blocks[CLASSES][64];
static int n_free[CLASSES];

struct node {
    struct node* next;
    char payload[24];
};
static struct node* all_nodes; /* global: still reachable */
static char* buffer;
static volatile char sink; /* reads land here: a load whose value is unused is optimised away */

__attribute__((noinline)) static void* arena_alloc(size_t n) {
    size_t cls = (n + 15) / 16;
    char* p;
    if (cls < CLASSES && n_free[cls])
        p = free_blocks[cls][--n_free[cls]];
    else {
        p = arena + used + RZ;
        used += cls * 16 + 2 * RZ;
        if (used > ARENA) abort();
    }
    VALGRIND_MALLOCLIKE_BLOCK(p, n, RZ, 0); /* MALLOCLIKE_HERE */
    return p;
}

__attribute__((noinline)) static void arena_free(void* p, size_t n) {
    size_t cls = (n + 15) / 16;
    VALGRIND_FREELIKE_BLOCK(p, RZ); /* FREELIKE_HERE */
    if (cls < CLASSES && n_free[cls] < 64) free_blocks[cls][n_free[cls]++] = p;
}

__attribute__((noinline)) static void remember(int i) {
    struct node* r = arena_alloc(sizeof *r); /* GROW_HERE */
    memset(r->payload, i, sizeof r->payload);
    r->next = all_nodes;
    all_nodes = r;
}

__attribute__((noinline)) static void lose(int i) {
    char* p = arena_alloc(200); /* LOST_HERE */
    memset(p, i, 200);
}

__attribute__((noinline)) static void scratch(int i) {
    char* p = arena_alloc(64 + i % 4 * 16); /* CHURN_HERE */
    memset(p, i, 64);
    arena_free(p, 64 + i % 4 * 16);
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main(int argc, char** argv) {
    if (argc > 2 && !strcmp(argv[2], "mmap"))
        arena = mmap(0, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    else
        arena = malloc(ARENA); /* ARENA_HERE */
    buffer = arena_alloc(100); /* BUFFER_HERE */
    VALGRIND_RESIZEINPLACE_BLOCK(buffer, 100, 150, RZ);
    used += 64; /* room for the larger buffer */
    memset(buffer, 1, 150);
    for (int i = 0; i < 20000; i++) {
        remember(i);
        if (i % 200 == 0) lose(i);
        scratch(i);
    }
    if (argc > 1 && !strcmp(argv[1], "uaf")) {
        volatile char* p = arena_alloc(40);
        arena_free((void*)p, 40);
        sink = p[8]; /* READ_FREED */
        volatile char* q = arena_alloc(40);
        q[40] = 1; /* WRITE_REDZONE */
    }
    if (argc > 1 && !strcmp(argv[1], "badfree")) arena_free(arena + 4, 16); /* BAD_FREE */
    clear_stack();
    exit(0);
}
