/* SPDX-License-Identifier: GPL-2.0-or-later */
/* 64 MiB mapped and written, 90 small allocations, the 64 MiB given back
   with MADV_DONTNEED, 90 small allocations again (issue 43, B12): the
   resident bytes rise at the memset and fall at the madvise. The small
   allocations take less than the 50 ms between resident samples, so the
   buckets they end after the madvise kept the level sampled before it.
   The pause after the memset lets the 50 ms pass, so that the rise is
   sampled however fast or loaded the machine is. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIZE (64 << 20)

static void* kept[200];

int main(void) {
    char* p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    for (int i = 0; i < 20; i++)
        kept[i] = malloc(1000);
    memset(p, 1, SIZE);
    usleep(200 * 1000);
    for (int i = 20; i < 110; i++)
        kept[i] = malloc(1000);
    madvise(p, SIZE, MADV_DONTNEED);
    for (int i = 110; i < 200; i++)
        kept[i] = malloc(1000);
    return 0;
}
