/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stale pointers in reused heap memory must not keep a lost block
   reachable. A block holding the only pointer to a target is freed; its
   memory, once out of memgrow's quarantine, comes back from malloc to a
   block the program keeps but never writes. memcheck ignores unwritten
   (undefined) words, so the targets are definitely lost; memgrow hands out
   memory zeroed, so it agrees.
   memcheck: definitely lost 300 bytes in 2 blocks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 64
#define LARGE (256 * 1024)

static void* reused_small[64];
static void* reused_large;

__attribute__((noinline)) static void plant(size_t holder_size, size_t target_size) {
    void** holder = malloc(holder_size);
    memset(holder, 0, holder_size);
    for (size_t i = 0; i < holder_size / sizeof(void*); i++)
        holder[i] = (char*)0 + 1;    /* not a pointer */
    holder[0] = malloc(target_size); /* STALE_TARGET */
    memset(holder[0], 7, target_size);
    free(holder);
}

/* Pushes the freed holders through memgrow's quarantine of freed blocks
   (4 MiB, 4096 blocks) back to the allocator. */
__attribute__((noinline)) static void flush_quarantine(void) {
    for (int i = 0; i < 8192; i++)
        free(malloc(1024));
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[8192];
    memset((char*)buf, 0, sizeof buf);
}

int main(void) {
    plant(SMALL, 100);
    plant(LARGE, 200);
    flush_quarantine();
    for (int i = 0; i < 64; i++)
        reused_small[i] = malloc(SMALL); /* REUSED_HERE: never written */
    reused_large = malloc(LARGE);
    clear_stack();
    exit(0);
}
