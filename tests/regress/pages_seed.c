/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The picture a dashboard shows of a service that loaded a batch and let it
   go: 32 MiB of small heap blocks allocated, then freed (the heap's live
   bytes back at their start), and a 16 MiB mapped buffer unmapped; the
   allocator keeps the heap's pages, so the resident bytes stay up. The rest
   of the run is steady work. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SMALL 96
#define BATCH (32 << 20) / SMALL
#define MAPPED (16 << 20)

static char* batch[BATCH];

int main(void) {
    int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
    char* buffer = mmap(NULL, MAPPED, prot, flags, -1, 0);
    if (buffer == MAP_FAILED) return 1;
    memset(buffer, 1, MAPPED);
    for (int i = 0; i < BATCH; i++) {
        batch[i] = malloc(SMALL); /* BATCH_HERE */
        memset(batch[i], i, SMALL);
    }
    for (int i = 0; i < BATCH; i++)
        free(batch[i]);
    munmap(buffer, MAPPED);
    for (int i = 0; i < 20000; i++) { /* steady work: a buffer made and freed */
        char* p = malloc(4096);
        memset(p, i, 4096);
        free(p);
    }
    return 0;
}
