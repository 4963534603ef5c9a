/* SPDX-License-Identifier: GPL-2.0-or-later */
/* malloc_heavy.c: a malloc-heavy workload for the memgrow benchmark.
 *
 *   malloc_heavy [ITERATIONS [grow|flat]]
 *
 * Each iteration makes about 3.4 malloc/free pairs of varied small sizes
 * (8..~600 bytes) from a handful of call sites at stack depths 1 to 5:
 *
 *   site_short     depth 1   malloc + free at once
 *   top/mid/leaf   depth 3   malloc + free at once, through two callers
 *   ring_replace   depth 2   a bounded ring of RING live blocks; each call
 *                            frees the oldest and allocates a new one
 *   calloc_pair    depth 1   calloc + free, every third iteration
 *   realloc_buf    depth 2   a scratch buffer grown by realloc, reset every
 *                            256 iterations (so it is bounded too)
 *   list_push      depth 5   one 48-byte node appended to a linked list
 *                            every LIST_EVERY iterations, never freed
 *                            before the end: the slowly growing site
 *
 * "flat" disables list_push: the live set is then the ring plus the scratch
 * buffer, the same for any ITERATIONS (used by the run-length measurement).
 * The default mode is "grow". Everything is freed before exit, so a leak
 * checker has nothing to report.
 *
 * Build: cc -O2 -g -o malloc_heavy malloc_heavy.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

#define RING 4096     /* live blocks kept by ring_replace */
#define LIST_EVERY 32 /* iterations per growing-list node */

struct node {
    struct node* next;
    unsigned long payload[5];
};

static void* ring[RING];
static unsigned ring_pos;
static struct node* list_head;
static unsigned long list_len;
static char* scratch;
static size_t scratch_len;
static volatile unsigned long checksum;
static unsigned rng_state = 2463534242u;

static inline unsigned rnd(void) {
    unsigned x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

/* Writes both ends of a block and reads one back, so the compiler cannot
 * drop a malloc/free pair as dead. */
NOINLINE static void touch(char* p, size_t n) {
    p[0] = (char)n;
    p[n - 1] = (char)(n >> 3);
    checksum += (unsigned char)p[0] + (unsigned char)p[n - 1];
}

static void* xmalloc(size_t n) {
    void* p = malloc(n);
    if (!p) {
        fprintf(stderr, "malloc_heavy: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* depth 1 */
NOINLINE static void site_short(size_t n) {
    char* p = xmalloc(n);
    memset(p, 0x11, n < 16 ? n : 16); /* also keeps its body unlike leaf_tmp's, */
    touch(p, n);                      /* so the linker cannot fold the two */
    free(p);
}

/* depth 3: top_tmp -> mid_tmp -> leaf_tmp */
NOINLINE static void leaf_tmp(size_t n) {
    char* p = xmalloc(n);
    touch(p, n);
    free(p);
}
NOINLINE static void mid_tmp(size_t n) {
    leaf_tmp(n + 16);
    checksum++;
}
NOINLINE static void top_tmp(size_t n) {
    mid_tmp(n * 2);
    checksum++;
}

/* depth 2: ring_step -> ring_replace */
NOINLINE static void ring_replace(size_t n) {
    unsigned i = ring_pos++ % RING;
    free(ring[i]);
    char* p = xmalloc(n);
    touch(p, n);
    ring[i] = p;
}
NOINLINE static void ring_step(size_t n) {
    ring_replace(n);
    checksum++;
}

/* depth 1, calloc */
NOINLINE static void calloc_pair(size_t n) {
    char* p = calloc(1, n);
    if (!p) exit(2);
    touch(p, n);
    free(p);
}

/* depth 2: realloc growth of a scratch buffer, reset periodically */
NOINLINE static void realloc_buf(size_t add, int reset) {
    if (reset) {
        free(scratch);
        scratch = NULL;
        scratch_len = 0;
    }
    char* p = realloc(scratch, scratch_len + add);
    if (!p) exit(2);
    scratch = p;
    scratch_len += add;
    touch(scratch, scratch_len);
}
NOINLINE static void scratch_step(size_t add, int reset) {
    realloc_buf(add, reset);
    checksum++;
}

/* depth 5: push_a -> push_b -> push_c -> push_d -> list_push */
NOINLINE static void list_push(unsigned long v) {
    struct node* n = xmalloc(sizeof *n);
    n->next = list_head;
    n->payload[0] = v;
    n->payload[4] = v ^ 0x5a5a;
    list_head = n;
    list_len++;
}
NOINLINE static void push_d(unsigned long v) {
    list_push(v);
    checksum++;
}
NOINLINE static void push_c(unsigned long v) {
    push_d(v + 1);
    checksum++;
}
NOINLINE static void push_b(unsigned long v) {
    push_c(v + 1);
    checksum++;
}
NOINLINE static void push_a(unsigned long v) {
    push_b(v + 1);
    checksum++;
}

int main(int argc, char** argv) {
    unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
    int grow = 1, in_child = 0;
    if (argc > 2) {
        if (strcmp(argv[2], "flat") == 0)
            grow = 0;
        else if (strcmp(argv[2], "grow") != 0) {
            fprintf(stderr, "usage: %s [ITERATIONS [grow|flat] [fork]]\n", argv[0]);
            return 64;
        }
    }
    if (argc > 3) {
        if (strcmp(argv[3], "fork") != 0) {
            fprintf(stderr, "usage: %s [ITERATIONS [grow|flat] [fork]]\n", argv[0]);
            return 64;
        }
        in_child = 1;
    }

    for (unsigned long i = 0; i < iters; i++) {
        /* "fork": a tenth of the iterations in the process, the rest in a
         * forked child that inherits the ring and the list (the parent
         * waits): what a forked child's store checks cost (--fork-pages). */
        if (in_child && i == iters / 10) {
            fflush(stdout);
            pid_t pid = fork();
            if (pid < 0) {
                perror("fork");
                return 1;
            }
            if (pid > 0) {
                int status;
                if (waitpid(pid, &status, 0) != pid) {
                    perror("waitpid");
                    return 1;
                }
                return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
            }
        }
        unsigned r = rnd();
        site_short(8 + (r & 127));             /* 8..135 */
        top_tmp(4 + ((r >> 7) & 63));          /* 24..150 */
        ring_step(16 + ((r >> 13) & 255) * 2); /* 16..526 */
        if (i % 3 == 0) calloc_pair(32 + ((r >> 21) & 63) * 4);
        if ((i & 7) == 0) scratch_step(16 + ((r >> 27) & 15), (i & 2047) == 0);
        if (grow && i % LIST_EVERY == 0) push_a(i);
    }

    unsigned long list_bytes = list_len * sizeof(struct node);
    while (list_head) {
        struct node* n = list_head;
        list_head = n->next;
        free(n);
    }
    for (unsigned i = 0; i < RING; i++)
        free(ring[i]);
    free(scratch);
    printf("malloc_heavy: %lu iterations, %s, list %lu nodes (%lu bytes), checksum %lu\n", iters,
           grow ? "grow" : "flat", list_len, list_bytes, (unsigned long)checksum);
    return 0;
}
