/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stand-in for the CUDA runtime, libcudart.so.13, for machines without a
   GPU: the real runtime asks the driver for private export tables
   (cuGetExportTable) before anything else and cannot run on a stand-in
   driver (docs/cuda.md).

   Built against the real CUDA headers; test programs are linked with the
   real -lcudart and pick this library up at run time (LD_LIBRARY_PATH). Like
   the real runtime it dlopens libcuda.so.1, looks up exactly one symbol,
   cuGetProcAddress_v2, asks it for "cuGetProcAddress" and gets every other
   driver entry point through that. It knows nothing of memgrow. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stddef.h>

typedef CUresult (*gpa_fn)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

static struct {
    int ready;
    CUresult (*init)(unsigned int);
    CUresult (*device_get)(CUdevice*, int);
    CUresult (*primary_ctx_retain)(CUcontext*, CUdevice);
    CUresult (*ctx_set_current)(CUcontext);
    CUresult (*ctx_synchronize)(void);
    CUresult (*mem_alloc)(CUdeviceptr*, size_t);
    CUresult (*mem_alloc_pitch)(CUdeviceptr*, size_t*, size_t, size_t, unsigned int);
    CUresult (*mem_free)(CUdeviceptr);
    CUresult (*mem_alloc_managed)(CUdeviceptr*, size_t, unsigned int);
    CUresult (*mem_host_alloc)(void**, size_t, unsigned int);
    CUresult (*mem_free_host)(void*);
    CUresult (*mem_alloc_async)(CUdeviceptr*, size_t, CUstream);
    CUresult (*mem_alloc_from_pool_async)(CUdeviceptr*, size_t, CUmemoryPool, CUstream);
    CUresult (*mem_free_async)(CUdeviceptr, CUstream);
    CUresult (*memcpy)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*memset_d8)(CUdeviceptr, unsigned char, size_t);
    gpa_fn get_proc_address;
} drv;
static cudaError_t last_error;
static int default_pool; /* the address is the pool handle */

static cudaError_t status(CUresult r) {
    cudaError_t e = r == CUDA_SUCCESS                ? cudaSuccess
                    : r == CUDA_ERROR_INVALID_VALUE  ? cudaErrorInvalidValue
                    : r == CUDA_ERROR_OUT_OF_MEMORY  ? cudaErrorMemoryAllocation
                    : r == CUDA_ERROR_NO_DEVICE      ? cudaErrorNoDevice
                    : r == CUDA_ERROR_INVALID_DEVICE ? cudaErrorInvalidDevice
                                                     : cudaErrorUnknown;
    if (e != cudaSuccess) last_error = e;
    return e;
}

static int resolve(const char* name, int version, void* out) {
    CUdriverProcAddressQueryResult q;
    return drv.get_proc_address(name, (void**)out, version, CU_GET_PROC_ADDRESS_DEFAULT, &q) ==
               CUDA_SUCCESS &&
           q == CU_GET_PROC_ADDRESS_SUCCESS;
}

/* Loads the driver and makes device 0's primary context current, once. */
static cudaError_t lazy_init(void) {
    if (drv.ready) return cudaSuccess;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return status(CUDA_ERROR_NO_DEVICE);
    gpa_fn first = (gpa_fn)dlsym(lib, "cuGetProcAddress_v2");
    CUdriverProcAddressQueryResult q;
    if (!first || first("cuGetProcAddress", (void**)&drv.get_proc_address, 12000,
                        CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS)
        return status(CUDA_ERROR_NO_DEVICE);
    int ok = resolve("cuInit", 2000, &drv.init) && resolve("cuDeviceGet", 2000, &drv.device_get) &&
             resolve("cuDevicePrimaryCtxRetain", 7000, &drv.primary_ctx_retain) &&
             resolve("cuCtxSetCurrent", 4000, &drv.ctx_set_current) &&
             resolve("cuCtxSynchronize", 2000, &drv.ctx_synchronize) &&
             resolve("cuMemAlloc", 3020, &drv.mem_alloc) &&
             resolve("cuMemAllocPitch", 3020, &drv.mem_alloc_pitch) &&
             resolve("cuMemFree", 3020, &drv.mem_free) &&
             resolve("cuMemAllocManaged", 6000, &drv.mem_alloc_managed) &&
             resolve("cuMemHostAlloc", 3020, &drv.mem_host_alloc) &&
             resolve("cuMemFreeHost", 3020, &drv.mem_free_host) &&
             resolve("cuMemAllocAsync", 11020, &drv.mem_alloc_async) &&
             resolve("cuMemAllocFromPoolAsync", 11020, &drv.mem_alloc_from_pool_async) &&
             resolve("cuMemFreeAsync", 11020, &drv.mem_free_async) &&
             resolve("cuMemcpy", 4000, &drv.memcpy) && resolve("cuMemsetD8", 3020, &drv.memset_d8);
    if (!ok) return status(CUDA_ERROR_NO_DEVICE);
    CUdevice dev;
    CUcontext ctx;
    CUresult r = drv.init(0);
    if (r == CUDA_SUCCESS) r = drv.device_get(&dev, 0);
    if (r == CUDA_SUCCESS) r = drv.primary_ctx_retain(&ctx, dev);
    if (r == CUDA_SUCCESS) r = drv.ctx_set_current(ctx);
    if (r != CUDA_SUCCESS) return status(r);
    drv.ready = 1;
    return cudaSuccess;
}

#define INIT_OR_RETURN                                                                             \
    do {                                                                                           \
        cudaError_t e_ = lazy_init();                                                              \
        if (e_ != cudaSuccess) return e_;                                                          \
    } while (0)

cudaError_t cudaMalloc(void** p, size_t n) {
    INIT_OR_RETURN;
    return status(drv.mem_alloc((CUdeviceptr*)p, n));
}
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
    INIT_OR_RETURN;
    return status(drv.mem_alloc_pitch((CUdeviceptr*)p, pitch, width, height, 4));
}
cudaError_t cudaMalloc3D(struct cudaPitchedPtr* p, struct cudaExtent e) {
    INIT_OR_RETURN;
    size_t pitch;
    CUdeviceptr d;
    cudaError_t r = status(drv.mem_alloc_pitch(&d, &pitch, e.width, e.height * e.depth, 4));
    if (r == cudaSuccess) *p = (struct cudaPitchedPtr){(void*)d, pitch, e.width, e.height};
    return r;
}
cudaError_t cudaMallocManaged(void** p, size_t n, unsigned int flags) {
    INIT_OR_RETURN;
    return status(drv.mem_alloc_managed((CUdeviceptr*)p, n, flags));
}
cudaError_t cudaHostAlloc(void** p, size_t n, unsigned int flags) {
    INIT_OR_RETURN;
    return status(drv.mem_host_alloc(p, n, flags));
}
/* As in the real runtime, cudaMallocHost is cudaHostAlloc with no flags. */
cudaError_t cudaMallocHost(void** p, size_t n) {
    return cudaHostAlloc(p, n, cudaHostAllocDefault);
}
cudaError_t cudaFree(void* p) {
    INIT_OR_RETURN;
    return p ? status(drv.mem_free((CUdeviceptr)p)) : cudaSuccess;
}
cudaError_t cudaFreeHost(void* p) {
    INIT_OR_RETURN;
    return p ? status(drv.mem_free_host(p)) : cudaSuccess;
}
cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t s) {
    INIT_OR_RETURN;
    return status(drv.mem_alloc_async((CUdeviceptr*)p, n, (CUstream)s));
}
cudaError_t cudaMallocFromPoolAsync(void** p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
    INIT_OR_RETURN;
    return status(
        drv.mem_alloc_from_pool_async((CUdeviceptr*)p, n, (CUmemoryPool)pool, (CUstream)s));
}
cudaError_t cudaFreeAsync(void* p, cudaStream_t s) {
    INIT_OR_RETURN;
    return status(drv.mem_free_async((CUdeviceptr)p, (CUstream)s));
}
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
    INIT_OR_RETURN;
    if (device != 0) return status(CUDA_ERROR_INVALID_DEVICE);
    *pool = (cudaMemPool_t)&default_pool;
    return cudaSuccess;
}
/* Unified addressing: the driver tells host from device pointers. */
cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, enum cudaMemcpyKind kind) {
    INIT_OR_RETURN;
    (void)kind;
    return status(drv.memcpy((CUdeviceptr)dst, (CUdeviceptr)src, n));
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, enum cudaMemcpyKind kind,
                            cudaStream_t s) {
    (void)s;
    return cudaMemcpy(dst, src, n, kind);
}
cudaError_t cudaMemset(void* p, int value, size_t n) {
    INIT_OR_RETURN;
    return status(drv.memset_d8((CUdeviceptr)p, (unsigned char)value, n));
}
cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t s) {
    (void)s;
    return cudaMemset(p, value, n);
}
cudaError_t cudaDeviceSynchronize(void) {
    INIT_OR_RETURN;
    return status(drv.ctx_synchronize());
}
cudaError_t cudaSetDevice(int device) {
    INIT_OR_RETURN;
    return device == 0 ? cudaSuccess : status(CUDA_ERROR_INVALID_DEVICE);
}
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int version,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult* result) {
    INIT_OR_RETURN;
    CUdriverProcAddressQueryResult q;
    CUresult r = drv.get_proc_address(symbol, fn, (int)version, flags, &q);
    if (result)
        *result = q == CU_GET_PROC_ADDRESS_SUCCESS ? cudaDriverEntryPointSuccess
                  : q == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                      ? cudaDriverEntryPointVersionNotSufficent
                      : cudaDriverEntryPointSymbolNotFound;
    return r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_FOUND ? cudaSuccess : status(r);
}
cudaError_t cudaGetLastError(void) {
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}
const char* cudaGetErrorName(cudaError_t e) {
    switch (e) {
    case cudaSuccess:
        return "cudaSuccess";
    case cudaErrorInvalidValue:
        return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
        return "cudaErrorMemoryAllocation";
    case cudaErrorNoDevice:
        return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice:
        return "cudaErrorInvalidDevice";
    default:
        return "cudaErrorUnknown";
    }
}
const char* cudaGetErrorString(cudaError_t e) {
    return cudaGetErrorName(e);
}
