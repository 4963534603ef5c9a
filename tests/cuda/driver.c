/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CUDA driver API called directly (linked with -lcuda): device memory
   kept in a growing array, an entry point fetched with cuGetProcAddress and
   called through the pointer, and virtual memory (reserve, create, map,
   release while mapped, unmap, copies in the reservation). Exits 1 if a
   call does not do what it should. */
#include <cuda.h>
#include <stdio.h>

#define STEPS 100
#define CHUNK (2u << 20)

static CUdeviceptr kept[STEPS];
static CUdeviceptr fetched[STEPS];
static CUmemGenericAllocationHandle handles[STEPS];
static int failures;

static void check(CUresult r) {
    if (r != CUDA_SUCCESS) failures++;
}

typedef CUresult (*mem_alloc_fn)(CUdeviceptr*, size_t);

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    check(cuInit(0));
    check(cuDeviceGet(&dev, 0));
    check(cuDevicePrimaryCtxRetain(&ctx, dev));
    check(cuCtxSetCurrent(ctx));

    mem_alloc_fn mem_alloc = NULL;
    CUdriverProcAddressQueryResult q;
    check(
        cuGetProcAddress("cuMemAlloc", (void**)&mem_alloc, 3020, CU_GET_PROC_ADDRESS_DEFAULT, &q));

    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUdeviceptr va;
    /* STEPS chunks that grow, one more for the churn (a VA mapped twice
       fails on a real driver). */
    check(cuMemAddressReserve(&va, (size_t)(STEPS + 1) * CHUNK, 0, 0, 0)); /* DRIVER_RESERVE */
    CUmemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};

    for (int i = 0; i < STEPS; i++) {
        check(cuMemAlloc(&kept[i], 10000));                  /* DRIVER_GROWING_HERE */
        if (mem_alloc) check(mem_alloc(&fetched[i], 12000)); /* FETCHED_HERE */
        /* An expandable segment: map one more chunk each step, and drop
           the handle at once (the mapping keeps the memory). */
        CUmemGenericAllocationHandle h;
        check(cuMemCreate(&h, CHUNK, &prop, 0)); /* VMM_GROWING_HERE */
        check(cuMemMap(va + (size_t)i * CHUNK, CHUNK, 0, h, 0));
        check(cuMemSetAccess(va + (size_t)i * CHUNK, CHUNK, &access, 1));
        check(cuMemRelease(h));
        /* A physical allocation mapped and unmapped again: churn. */
        check(cuMemCreate(&handles[i], CHUNK, &prop, 0)); /* VMM_CHURN_HERE */
        check(cuMemMap(va + (size_t)STEPS * CHUNK, CHUNK, 0, handles[i], 0));
        check(cuMemUnmap(va + (size_t)STEPS * CHUNK, CHUNK));
        check(cuMemRelease(handles[i]));
        void* pinned;
        check(cuMemHostAlloc(&pinned, 7000, 0)); /* DRIVER_PINNED_HERE */
        check(cuMemFreeHost(pinned));
    }
    /* The reservation is one range: a copy across two chunks is valid, one
       from the last kept chunk into the churn's (unmapped again) fails. */
    check(cuMemcpyDtoD(va + CHUNK - 4096, va + 2 * CHUNK - 4096, 8192));
    CUdeviceptr last = va + (size_t)STEPS * CHUNK - 4096;
    if (cuMemcpyDtoD(last, va, 8192) == CUDA_SUCCESS) failures++; /* DRIVER_UNMAPPED */
    printf("driver: %d failed calls\n", failures);
    return failures != 0;
}
