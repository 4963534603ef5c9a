/* SPDX-License-Identifier: GPL-2.0-or-later */
/* When the CUDA driver's start-up ends the warm-up (docs/cuda.md, "The
   driver's start-up"). "late": the program grows host memory (64 MiB, kept)
   and starts CUDA three quarters in, so the start-up is a minority of the run clock
   and must not hide the growth before it. "announced": the program ends its
   own warm-up (MEMGROW_WARMUP_END) before it starts CUDA, and that stays the
   warm-up's end. Exits 1 if a call fails. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "include/memgrow.h"

#define STEPS 64

/* Not static: the compiler may drop stores to a static array never read. */
void* late_init_kept[STEPS];

int main(int argc, char** argv) {
    int announced = argc > 1 && strcmp(argv[1], "announced") == 0;
    void* dev = NULL;
    if (announced) MEMGROW_WARMUP_END();
    for (int i = 0; i < STEPS; i++) {
        if (i == STEPS * 3 / 4 && cudaMalloc(&dev, 4096) != cudaSuccess)
            return 1;                        /* CUDA_STARTS_HERE */
        late_init_kept[i] = malloc(1 << 20); /* HOST_GROWING_HERE */
        if (!late_init_kept[i]) return 1;
        memset(late_init_kept[i], 0, 64);
    }
    printf("late_init: %s\n", announced ? "announced" : "late");
    return cudaFree(dev) != cudaSuccess;
}
