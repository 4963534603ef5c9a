/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The few CUDA driver and runtime ABI types the shim needs, declared here so
   that memgrow builds without the CUDA toolkit. They are the ABI of CUDA 13
   (cuda.h, driver_types.h); tests/cuda/abi_check.c checks them against the
   real headers. */
#ifndef MG_CUDA_ABI_H
#define MG_CUDA_ABI_H

typedef int CUresult;    /* CUDA_SUCCESS is 0 */
typedef int cudaError_t; /* cudaSuccess is 0 */
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef unsigned long long cuuint64_t;
typedef int CUdevice;
typedef void* CUstream;
typedef void* CUmemoryPool;

/* The part of CUmemAllocationProp that says where cuMemCreate's memory is. */
typedef struct {
    int type;
    int requestedHandleTypes;
    struct {
        int type; /* CUmemLocationType */
        int id;   /* device ordinal when type is device */
    } location;
} MgCuMemAllocationPropHead;
#define MG_CU_MEM_LOCATION_TYPE_DEVICE 1

/* CUmemAccessDesc: a location and the access granted there
   (CUmemAccess_flags: 0 none, 1 read, 3 read and write). */
typedef struct {
    struct {
        int type;
        int id;
    } location;
    int flags;
} MgCuMemAccessDesc;

/* cuGetProcAddress flags */
#define MG_CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM 2ull

/* cudaMemcpyKind */
#define MG_CUDA_MEMCPY_HOST_TO_DEVICE 1
#define MG_CUDA_MEMCPY_DEVICE_TO_HOST 2
#define MG_CUDA_MEMCPY_DEVICE_TO_DEVICE 3
#define MG_CUDA_MEMCPY_DEFAULT 4

#endif
