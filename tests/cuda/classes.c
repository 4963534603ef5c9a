/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device memory through the CUDA runtime, in the four shapes memgrow tells
   apart: a pointer overwritten (leaked), kept in a growing array (growing),
   a ring that frees its oldest (plateau), alloc/free churn (stable). Built
   against the real CUDA headers and linked with the real -lcudart; runs on
   the stand-ins in tests/cuda (or a GPU). Exits 1 if a call fails. */
#include <cuda_runtime.h>
#include <stdio.h>

#define STEPS 200
#define RING 64

static void* growing[STEPS]; /* globals: the exit scan sees them reachable */
static void* ring[RING];
static int failures;

static void check(cudaError_t e) {
    if (e != cudaSuccess) failures++;
}

static void step(int i) {
    void* lost;
    check(cudaMalloc(&lost, 1024)); /* LEAKED_HERE */
    lost = NULL;
    check(cudaMalloc(&growing[i], 2048)); /* GROWING_HERE */
    if (ring[i % RING]) check(cudaFree(ring[i % RING]));
    check(cudaMalloc(&ring[i % RING], 4096)); /* RING_HERE */
    void* tmp;
    check(cudaMalloc(&tmp, 8192)); /* CHURN_HERE */
    check(cudaMemset(tmp, 0, 8192));
    check(cudaFree(tmp));
    (void)lost;
}

int main(void) {
    for (int i = 0; i < STEPS; i++)
        step(i);
    printf("classes: %d failed calls\n", failures);
    return failures != 0;
}
