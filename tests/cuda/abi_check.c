/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks cuda-shim/mg_cuda_abi.h, which lets memgrow build without the CUDA
   toolkit, against the real CUDA headers: it fails to compile if they
   differ. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stddef.h>

#define CUresult MG_CUresult
#define cudaError_t MG_cudaError_t
#define CUdeviceptr MG_CUdeviceptr
#define CUmemGenericAllocationHandle MG_CUmemGenericAllocationHandle
#define cuuint64_t MG_cuuint64_t
#define CUdevice MG_CUdevice
#define CUstream MG_CUstream
#define CUmemoryPool MG_CUmemoryPool
#include "cuda-shim/mg_cuda_abi.h"
#undef CUresult
#undef cudaError_t
#undef CUdeviceptr
#undef CUmemGenericAllocationHandle
#undef cuuint64_t
#undef CUdevice
#undef CUstream
#undef CUmemoryPool

#define SAME(a, b) _Static_assert(sizeof(a) == sizeof(b), #a " and " #b " differ in size")
SAME(MG_CUresult, CUresult);
SAME(MG_cudaError_t, cudaError_t);
SAME(MG_CUdeviceptr, CUdeviceptr);
SAME(MG_CUmemGenericAllocationHandle, CUmemGenericAllocationHandle);
SAME(MG_cuuint64_t, cuuint64_t);
SAME(MG_CUdevice, CUdevice);
SAME(MG_CUstream, CUstream);
SAME(MG_CUmemoryPool, CUmemoryPool);
_Static_assert(CUDA_SUCCESS == 0 && cudaSuccess == 0, "success is 0");
_Static_assert(offsetof(MgCuMemAllocationPropHead, location.type) ==
                   offsetof(CUmemAllocationProp, location.type),
               "CUmemAllocationProp.location.type moved");
_Static_assert(offsetof(MgCuMemAllocationPropHead, location.id) ==
                   offsetof(CUmemAllocationProp, location.id),
               "CUmemAllocationProp.location.id moved");
_Static_assert(sizeof(MgCuMemAccessDesc) == sizeof(CUmemAccessDesc) &&
                   offsetof(MgCuMemAccessDesc, flags) == offsetof(CUmemAccessDesc, flags),
               "CUmemAccessDesc");
_Static_assert(CU_MEM_ACCESS_FLAGS_PROT_READ == 1 && CU_MEM_ACCESS_FLAGS_PROT_READWRITE == 3,
               "CUmemAccess_flags (the tool's MEMGROW_VA_SET_ACCESS)");
_Static_assert(MG_CU_MEM_LOCATION_TYPE_DEVICE == CU_MEM_LOCATION_TYPE_DEVICE, "location type");
_Static_assert(MG_CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM ==
                   CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
               "cuGetProcAddress flag");
_Static_assert(MG_CUDA_MEMCPY_HOST_TO_DEVICE == cudaMemcpyHostToDevice &&
                   MG_CUDA_MEMCPY_DEVICE_TO_HOST == cudaMemcpyDeviceToHost &&
                   MG_CUDA_MEMCPY_DEVICE_TO_DEVICE == cudaMemcpyDeviceToDevice &&
                   MG_CUDA_MEMCPY_DEFAULT == cudaMemcpyDefault,
               "cudaMemcpyKind");

int main(void) {
    return 0;
}
