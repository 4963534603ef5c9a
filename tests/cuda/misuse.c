/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Each misuse of the CUDA memory API memgrow reports, once. The stand-in
   runtime (like the real one) refuses each call with an error code; the
   program checks that it did, and exits 1 if one succeeded. */
#include <cuda_runtime.h>
#include <stdio.h>

static int unexpected;

static void expect_failure(cudaError_t e, const char* what) {
    if (e == cudaSuccess) {
        printf("misuse: %s succeeded\n", what);
        unexpected++;
    }
}

int main(void) {
    static char host[16384];
    void *a, *b, *pinned;
    if (cudaMalloc(&a, 4096) != cudaSuccess || cudaMalloc(&b, 4096) != cudaSuccess ||
        cudaMallocHost(&pinned, 4096) != cudaSuccess)
        return 1;
    expect_failure(cudaFree(host), "free of a host address");                     /* UNKNOWN_FREE */
    expect_failure(cudaMemcpy(a, host, 8192, cudaMemcpyHostToDevice), "overrun"); /* OVERRUN */
    expect_failure(cudaFreeHost(a), "cudaFreeHost of device memory");             /* WRONG_FAMILY */
    expect_failure(cudaFree(pinned), "cudaFree of pinned memory");          /* WRONG_FAMILY_2 */
    if (cudaFree(b) != cudaSuccess) return 1;                               /* FIRST_FREE */
    expect_failure(cudaFree(b), "double free");                             /* DOUBLE_FREE */
    expect_failure(cudaMemsetAsync(b, 0, 16, 0), "memset of freed memory"); /* AFTER_FREE */
    if (cudaFree(a) != cudaSuccess || cudaFreeHost(pinned) != cudaSuccess) return 1;
    return unexpected != 0;
}
