/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CUDA driver API with a context of the program's own (cuCtxCreate,
   linked with -lcuda): its creation is the driver's start-up too, and the
   device memory allocated after it grows. Exits 1 if a call fails. */
#include <cuda.h>
#include <stdio.h>

#define STEPS 100

static CUdeviceptr kept[STEPS];

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuCtxCreate(&ctx, NULL, 0, dev) != CUDA_SUCCESS) /* CTX_CREATE_HERE */
        return 1;
    for (int i = 0; i < STEPS; i++)
        if (cuMemAlloc(&kept[i], 4096) != CUDA_SUCCESS) return 1; /* CTX_GROWING_HERE */
    printf("ctx_create: %d blocks kept\n", STEPS);
    return 0;
}
