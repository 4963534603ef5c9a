/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Roots the scan must not read: a page made unreadable (PROT_NONE) and one
   unmapped after holding the only pointers to blocks. memcheck skips memory
   that is not readable and writable, so both blocks are definitely lost; the
   scan must neither fault nor find them. A page left readable and writable
   keeps its block reachable.
   memcheck: definitely lost 300 bytes in 2 blocks, still reachable 50 in 1. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void** page_in(void) {
    void* p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : (void**)p;
}

__attribute__((noinline)) static void** fill(size_t size) {
    void** page = page_in();
    if (page) page[7] = malloc(size); /* HIDDEN_HERE */
    return page;
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[8192];
    memset((char*)buf, 0, sizeof buf);
}

static void** visible;

int main(void) {
    void** hidden = fill(100);
    void** gone = fill(200);
    visible = fill(50);
    if (!hidden || !gone || !visible) return 1;
    mprotect(hidden, 4096, PROT_NONE);
    munmap(gone, 4096);
    hidden = gone = NULL;
    clear_stack();
    exit(0);
}
