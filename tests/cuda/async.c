/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stream-ordered allocation through the CUDA runtime: a growing array of
   cudaMallocAsync blocks, churn through the device's default pool
   (cudaMallocFromPoolAsync + cudaFreeAsync) and pinned host buffers
   (cudaHostAlloc) churned, and a managed buffer kept from the start. Exits 1 if a call fails. */
#include <cuda_runtime.h>
#include <stdio.h>

#define STEPS 150

static void* kept[STEPS];
static int failures;

static void check(cudaError_t e) {
    if (e != cudaSuccess) failures++;
}

int main(void) {
    cudaMemPool_t pool;
    check(cudaDeviceGetDefaultMemPool(&pool, 0));
    void* managed;
    check(cudaMallocManaged(&managed, 1 << 16, cudaMemAttachGlobal)); /* MANAGED_HERE */
    for (int i = 0; i < STEPS; i++) {
        check(cudaMallocAsync(&kept[i], 3000, 0)); /* ASYNC_GROWING_HERE */
        void* tmp;
        check(cudaMallocFromPoolAsync(&tmp, 5000, pool, 0)); /* POOL_CHURN_HERE */
        check(cudaFreeAsync(tmp, 0));
        void* pinned;
        check(cudaHostAlloc(&pinned, 6000, cudaHostAllocDefault)); /* PINNED_CHURN_HERE */
        check(cudaFreeHost(pinned));
    }
    check(cudaDeviceSynchronize());
    printf("async: %d failed calls, managed %p kept\n", failures, managed);
    return failures != 0;
}
