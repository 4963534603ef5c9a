/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One of each thing memgrow and compute-sanitizer look for, for the table of
   docs/cuda.md ("compute-sanitizer side by side"): device memory leaked (its
   pointer dropped) and device memory still referenced at exit, a double
   free, a free of the wrong family, a cudaMemcpy past the end, a host leak
   (which only memgrow looks for). Built with nvcc, "kernel" as argv[1] also
   launches a kernel that writes past its allocation (which only
   compute-sanitizer sees), last: the fault may spoil the context. Exits 1
   if the runtime accepted a misuse. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void* kept;                /* still referenced at exit */
static char* volatile host_block; /* overwritten: the host leak */
static int unexpected;

static void expect_failure(cudaError_t e, const char* what) {
    if (e == cudaSuccess) {
        printf("side_by_side: %s succeeded\n", what);
        unexpected++;
    }
}

/* In a function of its own, so that no stale copy of the pointer stays in
   main's frame for the leak scan. */
static __attribute__((noinline)) void leak_device(void) {
    void* lost;
    if (cudaMalloc(&lost, 1 << 20) != cudaSuccess) exit(1); /* DEVICE_LEAK */
    lost = NULL;
    (void)lost;
}

#ifdef __CUDACC__
__global__ void write_past(int* p, int n) {
    p[n + threadIdx.x] = 1; /* KERNEL_OVERRUN */
}
#endif

int main(int argc, char** argv) {
    static char host[8192];
    void *twice, *dev;
    leak_device();
    if (cudaMalloc(&kept, 1 << 16) != cudaSuccess) return 1; /* AT_EXIT */
    if (cudaMalloc(&twice, 4096) != cudaSuccess || cudaFree(twice) != cudaSuccess) return 1;
    expect_failure(cudaFree(twice), "double free"); /* DOUBLE_FREE */
    if (cudaMalloc(&dev, 4096) != cudaSuccess) return 1;
    expect_failure(cudaFreeHost(dev), "cudaFreeHost of device memory"); /* WRONG_FAMILY */
    const enum cudaMemcpyKind h2d = cudaMemcpyHostToDevice;
    expect_failure(cudaMemcpy(dev, host, 8192, h2d), "overrun"); /* MEMCPY_OVERRUN */
    host_block = (char*)malloc(100);                             /* HOST_LEAK */
    memset(host_block, 1, 100);
    host_block = NULL;
    if (argc > 1 && strcmp(argv[1], "kernel") == 0) {
#ifdef __CUDACC__
        write_past<<<1, 32>>>((int*)dev, 1024);
        printf("side_by_side: kernel: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
#else
        printf("side_by_side: no kernel without nvcc\n");
#endif
    } else if (cudaFree(dev) != cudaSuccess)
        return 1;
    printf("side_by_side: %d misuses accepted\n", unexpected);
    return unexpected != 0;
}
