/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An allocator that maps its own pool: a chunk of 256 KiB from mmap each
   step, kept in a global list (growing, in the "mapped" space). Every
   fourth chunk gives its upper half back (munmap of a mapping's end); now
   and then a scratch mapping is dropped with its address forgotten
   (leaked); a buffer grows by mremap; a mapping loses the middle of its
   pages (two parts of one site); the break moves up (sbrk); a PROT_NONE
   reservation has its first pages committed by mprotect. The heap buffer of each step moves the
   clock as a program's own work would. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "forget_pointers.h"

#define CHUNK (256 << 10)
#define SCRATCH (64 << 10)
#define PAGE 4096
#define MAX_STEPS 1000

static char* chunks[MAX_STEPS]; /* globals: reachable at exit */
static char* holed, *holed_top;
static char* growable;
static size_t growable_size;
static char* above_break;
static char* reserved;

static void* map(size_t n) {
    void* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) abort();
    return p;
}

__attribute__((noinline)) static char* pool_grow(void) {
    return map(CHUNK); /* GROW_HERE */
}

__attribute__((noinline)) static void scratch(int i) {
    char* p = map(SCRATCH); /* LEAK_HERE */
    memset(p, i, SCRATCH);
}

__attribute__((noinline)) static void grow_buffer(void) {
    size_t to = growable_size + 16 * PAGE;
    growable = mremap(growable, growable_size, to, MREMAP_MAYMOVE); /* REMAP_HERE */
    if (growable == MAP_FAILED) abort();
    growable_size = to;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (n > MAX_STEPS) n = MAX_STEPS;
    holed = map(4 * PAGE); /* HOLE_HERE */
    munmap(holed + PAGE, 2 * PAGE);
    holed_top = holed + 3 * PAGE;
    above_break = sbrk(16 * PAGE); /* BRK_HERE */
    if (above_break == (void*)-1) abort();
    memset(above_break, 1, 16 * PAGE);
    reserved = mmap(NULL, 64 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (reserved == MAP_FAILED) abort();
    mprotect(reserved, 8 * PAGE, PROT_READ | PROT_WRITE); /* COMMIT_HERE */
    growable_size = 16 * PAGE;
    growable = map(growable_size); /* REMAP_START */
    for (int i = 0; i < n; i++) {
        char* buf = malloc(SCRATCH);
        memset(buf, i, SCRATCH);
        free(buf);
        chunks[i] = pool_grow();
        memset(chunks[i], i, CHUNK);
        if (i % 4 == 3) munmap(chunks[i] + CHUNK / 2, CHUNK / 2);
        if (i % 20 == 10) scratch(i);
        if (i % 10 == 5) grow_buffer();
    }
    printf("growable %zu\n", growable_size);
    forget();
    return 0;
}
