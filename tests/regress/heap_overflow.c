/* SPDX-License-Identifier: GPL-2.0-or-later */
/* heap_overflow.c: writes past the end (and before the start) of heap
 * blocks of every size, from a few bytes to several MiB, frees each block
 * and allocates again. Under Valgrind's allocator such a write reaches the
 * arena's own bookkeeping next to the block; memgrow must report each write
 * and survive it.
 *
 *   heap_overflow after|before|far|syscall
 *
 * after, before: byte by byte, past the end or before the start.
 * far: the 64 bytes past the end of a 1 MiB block, in 8-byte stores from
 * three places of their own, each the first bad write of its kind: the
 * arena's size of the block (24 bytes past its end), the size of the next
 * (32) and that free block's list link (40). Memcheck dies at the free.
 * syscall: read() of 64 bytes more than a 1 MiB block holds.
 *
 * Blocks below 4 MiB share the arena's 4 MiB superblocks: they are overrun
 * by up to 4096 bytes. A bigger block has a mapping of its own that ends 24
 * bytes after it when its size is 5 MiB - 80 (the arena's 16-byte redzone
 * and 8-byte size field): overrunning that by more would be a fault, not a
 * heap error. The underruns stay within the arena's 56 bytes before a
 * block, for the same reason. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const size_t kSizes[] = {10, 100, 1000, 1024, 1025, 4096, 65536, 1 << 20, 3 << 20};
static const size_t kOverflows[] = {1, 8, 16, 17, 24, 32, 48, 64, 100, 1000, 4096};
static const size_t kOwnMapping = (5 << 20) - 80;
static const size_t kOwnMappingOverflows[] = {1, 8, 16, 24};
static const size_t kUnderflows[] = {1, 8, 16, 17, 24, 32, 48};

/* Byte by byte, through a volatile pointer: every byte is a store memgrow
 * checks, whatever the compiler would make of a memset. */
static void scribble(volatile unsigned char* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        p[i] = 0xa5; /* SCRIBBLE */
}

static unsigned long bad_bytes;

static void overrun(size_t size, size_t after, size_t before) {
    unsigned char* p = malloc(size);
    if (!p) exit(2);
    memset(p, 1, size);
    scribble(p + size, after);
    scribble(p - before, before);
    free(p);
    /* The arena's next moves: blocks taken next to it and given back. */
    void* q = malloc(size);
    void* r = malloc(size / 2 + 1);
    free(r);
    free(q);
    bad_bytes += after + before;
}

/* Stores far past the end, then the block's free and the arena's next
 * moves. */
static void far(void) {
    for (int i = 0; i < 3; ++i) {
        volatile unsigned long* end = malloc(1 << 20) + (1 << 20);
        end[3] = ~0UL;
        end[4] = ~0UL;
        end[5] = ~0UL;
        free((char*)end - (1 << 20));
        free(malloc(1 << 20));
        bad_bytes += 24;
    }
}

/* The kernel writes past the end: the error comes before the call. */
static void syscall_overrun(void) {
    int fd = open("/dev/zero", O_RDONLY);
    if (fd < 0) exit(2);
    volatile size_t n = (1 << 20) + 64; /* the compiler would see the overrun */
    for (int i = 0; i < 3; ++i) {
        unsigned char* p = malloc(1 << 20);
        if (!p || read(fd, p, n) != (ssize_t)n) exit(2); /* READ */
        free(p);
        free(malloc(1 << 20));
        bad_bytes += 64;
    }
    close(fd);
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    if (!strcmp(argv[1], "far")) far();
    if (!strcmp(argv[1], "syscall")) syscall_overrun();
    int after = !strcmp(argv[1], "after");
    int before = !strcmp(argv[1], "before");
    for (size_t s = 0; s < sizeof kSizes / sizeof *kSizes; ++s) {
        if (after)
            for (size_t o = 0; o < sizeof kOverflows / sizeof *kOverflows; ++o)
                overrun(kSizes[s], kOverflows[o], 0);
        if (before)
            for (size_t u = 0; u < sizeof kUnderflows / sizeof *kUnderflows; ++u)
                overrun(kSizes[s], 0, kUnderflows[u]);
    }
    if (after)
        for (size_t o = 0; o < sizeof kOwnMappingOverflows / sizeof *kOwnMappingOverflows; ++o)
            overrun(kOwnMapping, kOwnMappingOverflows[o], 0);
    if (before)
        for (size_t u = 0; u < sizeof kUnderflows / sizeof *kUnderflows; ++u)
            overrun(kOwnMapping, 0, kUnderflows[u]);
    printf("heap_overflow: survived %lu bad bytes written\n", bad_bytes);
    return 0;
}
