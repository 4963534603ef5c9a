/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memgrow's CUDA interception, compiled into the preload
   (vgpreload_memgrow-amd64-linux.so). docs/cuda.md explains the design.

   Three layers, each reporting through memgrow's client requests:
   - cuGetProcAddress[_v2] of libcuda is wrapped: for the allocation, free,
     virtual-memory, copy and set entry points it resolves (and for
     "cuGetProcAddress" itself) it hands back a trampoline here that calls
     the driver's function and reports. The CUDA runtime (dynamic or
     static), cuBLAS, cuDNN, NCCL and PyTorch's driver calls all reach the
     driver this way.
   - the exported driver symbols are wrapped, for programs linked with -lcuda;
   - the runtime's allocation, free, copy and set calls are wrapped, in
     libcudart.so* and in the executable (static cudart): they name the API
     the user called, give the stack at the user's call and check ranges.
   The tool counts the wrappers active on each thread (the preload has no
   thread-local storage): only the outermost one reports, so a cudaMalloc that reaches cuMemAlloc is
   one allocation. The driver's functions are called without redirection (CALL_FN_*), so a driver
   that hands out its exported addresses does not re-enter the name wrappers either. */
#include "pub_tool_basics.h"
#include "pub_tool_redir.h"
#include "valgrind.h"
#include "../include/memgrow.h"
#include "mg_cuda_abi.h"

/* ---- state ---- */

static int tracking_state = -1; /* --cuda, asked once */

static int tracking(void) {
    if (tracking_state < 0) tracking_state = MEMGROW_CUDA_TRACKING(MEMGROW_CUDA_IS_ON);
    return tracking_state;
}

/* Around each call into CUDA; a wrapper reports only when it is the
   outermost one on its thread (checked after leaving, or before entering). */
static void enter(void) {
    if (tracking()) (void)MEMGROW_CUDA_TRACKING(MEMGROW_CUDA_ENTER);
}
static void leave(void) {
    if (tracking()) (void)MEMGROW_CUDA_TRACKING(MEMGROW_CUDA_LEAVE);
}
static int outermost(void) {
    return tracking() && MEMGROW_CUDA_TRACKING(MEMGROW_CUDA_OUTERMOST);
}

static OrigFn orig_at(void* fn) {
    OrigFn o;
    o.nraddr = (Addr)fn;
    return o;
}

/* The device of the current context, through the driver's cuCtxGetDevice
   when the shim has seen cuGetProcAddress (else device 0). */
static void* ctx_get_device;

static int current_device(void) {
    CUdevice dev = 0;
    UWord r = 1;
    if (ctx_get_device) {
        OrigFn fn = orig_at(ctx_get_device);
        enter();
        CALL_FN_W_W(r, fn, &dev);
        leave();
    }
    return r == 0 ? dev : 0;
}

static void report_alloc(UWord addr, UWord size, int space, int api) {
    MEMGROW_DEVICE_ALLOC(addr, size, space, space == MEMGROW_SPACE_PINNED ? 0 : current_device(),
                         api);
}

static int streq(const char* a, const char* b) {
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* Checks the device-side ranges a copy touches: which pointers are device
   memory follows from the kind (cudaMemcpyDefault: either may be). */
static void check_copy(UWord dst, UWord src, SizeT n, int kind, int api) {
    if (!outermost() || n == 0) return;
    if (kind == MG_CUDA_MEMCPY_HOST_TO_DEVICE || kind == MG_CUDA_MEMCPY_DEVICE_TO_DEVICE ||
        kind == MG_CUDA_MEMCPY_DEFAULT)
        (void)MEMGROW_DEVICE_ACCESS(dst, n, MEMGROW_ACCESS_WRITE, api);
    if (kind == MG_CUDA_MEMCPY_DEVICE_TO_HOST || kind == MG_CUDA_MEMCPY_DEVICE_TO_DEVICE ||
        kind == MG_CUDA_MEMCPY_DEFAULT)
        (void)MEMGROW_DEVICE_ACCESS(src, n, MEMGROW_ACCESS_READ, api);
}

/* ---- the driver layer: one do_ function per entry point, called by the
   name wrapper (the exported symbol) and by the trampolines ---- */

static CUresult do_mem_alloc(OrigFn fn, CUdeviceptr* p, SizeT n, int space, int api) {
    CUresult r;
    enter();
    CALL_FN_W_WW(r, fn, p, n);
    leave();
    if (r == 0 && outermost()) report_alloc(*p, n, space, api);
    return r;
}

static CUresult do_mem_alloc_flags(OrigFn fn, CUdeviceptr* p, SizeT n, UInt flags, int space) {
    CUresult r;
    enter();
    CALL_FN_W_WWW(r, fn, p, n, flags);
    leave();
    if (r == 0 && outermost())
        report_alloc(*p, n, space,
                     space == MEMGROW_SPACE_PINNED ? MEMGROW_API_HOST : MEMGROW_API_DRIVER);
    return r;
}

static CUresult do_mem_alloc_pitch(OrigFn fn, CUdeviceptr* p, SizeT* pitch, SizeT w, SizeT h,
                                   UInt elem) {
    CUresult r;
    enter();
    CALL_FN_W_5W(r, fn, p, pitch, w, h, elem);
    leave();
    if (r == 0 && outermost())
        report_alloc(*p, *pitch * h, MEMGROW_SPACE_DEVICE, MEMGROW_API_DRIVER);
    return r;
}

static CUresult do_mem_free(OrigFn fn, UWord p, int space, int api) {
    CUresult r;
    if (p && outermost()) (void)MEMGROW_DEVICE_FREE(p, space, api);
    enter();
    CALL_FN_W_W(r, fn, p);
    leave();
    return r;
}

static CUresult do_mem_alloc_async(OrigFn fn, CUdeviceptr* p, SizeT n, CUstream s) {
    CUresult r;
    enter();
    CALL_FN_W_WWW(r, fn, p, n, s);
    leave();
    if (r == 0 && outermost()) report_alloc(*p, n, MEMGROW_SPACE_DEVICE, MEMGROW_API_ASYNC);
    return r;
}

static CUresult do_mem_alloc_from_pool_async(OrigFn fn, CUdeviceptr* p, SizeT n, CUmemoryPool pool,
                                             CUstream s) {
    CUresult r;
    enter();
    CALL_FN_W_WWWW(r, fn, p, n, pool, s);
    leave();
    if (r == 0 && outermost()) report_alloc(*p, n, MEMGROW_SPACE_DEVICE, MEMGROW_API_ASYNC);
    return r;
}

static CUresult do_mem_free_async(OrigFn fn, CUdeviceptr p, CUstream s) {
    CUresult r;
    if (p && outermost()) (void)MEMGROW_DEVICE_FREE(p, MEMGROW_SPACE_DEVICE, MEMGROW_API_ASYNC);
    enter();
    CALL_FN_W_WW(r, fn, p, s);
    leave();
    return r;
}

/* Virtual memory: the physical allocation is the block (keyed by its
   handle); mappings keep it alive after cuMemRelease. */
static CUresult do_mem_create(OrigFn fn, CUmemGenericAllocationHandle* h, SizeT size,
                              const MgCuMemAllocationPropHead* prop, cuuint64_t flags) {
    CUresult r;
    enter();
    CALL_FN_W_WWWW(r, fn, h, size, prop, flags);
    leave();
    if (r == 0 && outermost()) {
        int on_device = prop->location.type == MG_CU_MEM_LOCATION_TYPE_DEVICE;
        MEMGROW_DEVICE_ALLOC(*h, size, on_device ? MEMGROW_SPACE_DEVICE : MEMGROW_SPACE_PINNED,
                             on_device ? prop->location.id : 0, MEMGROW_API_VMM);
    }
    return r;
}

static CUresult do_mem_release(OrigFn fn, CUmemGenericAllocationHandle h) {
    CUresult r;
    if (outermost()) (void)MEMGROW_DEVICE_FREE(h, MEMGROW_SPACE_DEVICE, MEMGROW_API_VMM);
    enter();
    CALL_FN_W_W(r, fn, h);
    leave();
    return r;
}

static CUresult do_mem_map(OrigFn fn, CUdeviceptr p, SizeT size, SizeT offset,
                           CUmemGenericAllocationHandle h, cuuint64_t flags) {
    CUresult r;
    enter();
    CALL_FN_W_5W(r, fn, p, size, offset, h, flags);
    leave();
    if (r == 0 && outermost()) MEMGROW_DEVICE_MAP(p, size, h);
    return r;
}

static CUresult do_mem_unmap(OrigFn fn, CUdeviceptr p, SizeT size) {
    CUresult r;
    enter();
    CALL_FN_W_WW(r, fn, p, size);
    leave();
    if (r == 0 && outermost()) MEMGROW_DEVICE_UNMAP(p, size);
    return r;
}

/* The address space: a reservation is no memory (docs/cuda.md), but copies
   into it must stay inside it and touch only mapped, accessible pages. */
static CUresult do_mem_address_reserve(OrigFn fn, CUdeviceptr* p, SizeT size, SizeT align,
                                       CUdeviceptr addr, cuuint64_t flags) {
    CUresult r;
    enter();
    CALL_FN_W_5W(r, fn, p, size, align, addr, flags);
    leave();
    if (r == 0 && outermost()) MEMGROW_DEVICE_VA(MEMGROW_VA_RESERVE, *p, size, current_device());
    return r;
}

static CUresult do_mem_address_free(OrigFn fn, CUdeviceptr p, SizeT size) {
    CUresult r;
    enter();
    CALL_FN_W_WW(r, fn, p, size);
    leave();
    if (r == 0 && outermost()) MEMGROW_DEVICE_VA(MEMGROW_VA_FREE, p, size, 0);
    return r;
}

/* The widest access any location is granted. */
static CUresult do_mem_set_access(OrigFn fn, CUdeviceptr p, SizeT size,
                                  const MgCuMemAccessDesc* desc, SizeT count) {
    CUresult r;
    enter();
    CALL_FN_W_WWWW(r, fn, p, size, desc, count);
    leave();
    if (r == 0 && outermost()) {
        int prot = 0;
        for (SizeT i = 0; i < count; i++)
            prot |= desc[i].flags;
        MEMGROW_DEVICE_VA(MEMGROW_VA_SET_ACCESS, p, size, prot);
    }
    return r;
}

/* The driver's copies and sets (cuMemcpy*, cuMemsetD*): all take the
   destination, the source or value, the count and, when async, a stream. */
static CUresult do_copy(OrigFn fn, UWord dst, UWord src, SizeT n, int kind, int async, UWord s) {
    CUresult r;
    check_copy(dst, src, n, kind, async ? MEMGROW_API_ASYNC : MEMGROW_API_DRIVER);
    enter();
    if (async)
        CALL_FN_W_WWWW(r, fn, dst, src, n, s);
    else
        CALL_FN_W_WWW(r, fn, dst, src, n);
    leave();
    return r;
}

static CUresult do_set(OrigFn fn, UWord dst, UWord value, SizeT count, SizeT elem, int async,
                       UWord s) {
    CUresult r;
    if (outermost() && count)
        (void)MEMGROW_DEVICE_ACCESS(dst, count * elem, MEMGROW_ACCESS_WRITE,
                                    async ? MEMGROW_API_ASYNC : MEMGROW_API_DRIVER);
    enter();
    if (async)
        CALL_FN_W_WWWW(r, fn, dst, value, count, s);
    else
        CALL_FN_W_WWW(r, fn, dst, value, count);
    leave();
    return r;
}

/* The driver's start-up (cuInit, a context's creation) allocates tens of MB
   of host memory once: the tool may end the warm-up after it (docs/cuda.md,
   "The driver's start-up"). The signatures differ between versions
   (cuCtxCreate_v2, _v3, _v4), but none takes more than six integer or
   pointer arguments: six words are forwarded, and a function taking fewer
   ignores the rest. */
static CUresult do_startup(OrigFn fn, UWord a, UWord b, UWord c, UWord d, UWord e, UWord f) {
    CUresult r;
    if (tracking()) (void)MEMGROW_CUDA_TRACKING(MEMGROW_CUDA_STARTUP_BEGIN);
    enter();
    CALL_FN_W_6W(r, fn, a, b, c, d, e, f);
    leave();
    if (tracking()) (void)MEMGROW_CUDA_TRACKING(MEMGROW_CUDA_STARTUP_END);
    return r;
}

static CUresult do_get_proc_address(OrigFn fn, const char* symbol, void** pfn, int version,
                                    cuuint64_t flags, void* status, int v2);

/* ---- trampolines: what cuGetProcAddress hands out instead of the driver's
   function. real[1] is the per-thread-default-stream (_ptsz) form. ---- */

enum entry_id {
    E_MEM_ALLOC,
    E_MEM_ALLOC_PITCH,
    E_MEM_FREE,
    E_MEM_ALLOC_MANAGED,
    E_MEM_HOST_ALLOC,
    E_MEM_ALLOC_HOST,
    E_MEM_FREE_HOST,
    E_MEM_ALLOC_ASYNC,
    E_MEM_ALLOC_FROM_POOL_ASYNC,
    E_MEM_FREE_ASYNC,
    E_MEM_CREATE,
    E_MEM_RELEASE,
    E_MEM_MAP,
    E_MEM_UNMAP,
    E_MEM_ADDRESS_RESERVE,
    E_MEM_ADDRESS_FREE,
    E_MEM_SET_ACCESS,
    E_MEMCPY,
    E_MEMCPY_ASYNC,
    E_MEMCPY_HTOD,
    E_MEMCPY_HTOD_ASYNC,
    E_MEMCPY_DTOH,
    E_MEMCPY_DTOH_ASYNC,
    E_MEMCPY_DTOD,
    E_MEMCPY_DTOD_ASYNC,
    E_MEMSET_D8,
    E_MEMSET_D8_ASYNC,
    E_MEMSET_D16,
    E_MEMSET_D16_ASYNC,
    E_MEMSET_D32,
    E_MEMSET_D32_ASYNC,
    E_GET_PROC_ADDRESS,
    E_INIT,
    E_PRIMARY_CTX_RETAIN,
    E_CTX_CREATE,
    E_COUNT
};
static void* real[E_COUNT][2];
#define REAL(e, v) orig_at(real[e][v])

static CUresult t_mem_alloc(CUdeviceptr* p, SizeT n) {
    return do_mem_alloc(REAL(E_MEM_ALLOC, 0), p, n, MEMGROW_SPACE_DEVICE, MEMGROW_API_DRIVER);
}
static CUresult t_mem_alloc_pitch(CUdeviceptr* p, SizeT* pitch, SizeT w, SizeT h, UInt e) {
    return do_mem_alloc_pitch(REAL(E_MEM_ALLOC_PITCH, 0), p, pitch, w, h, e);
}
static CUresult t_mem_free(CUdeviceptr p) {
    return do_mem_free(REAL(E_MEM_FREE, 0), p, MEMGROW_SPACE_DEVICE, MEMGROW_API_DRIVER);
}
static CUresult t_mem_alloc_managed(CUdeviceptr* p, SizeT n, UInt flags) {
    return do_mem_alloc_flags(REAL(E_MEM_ALLOC_MANAGED, 0), p, n, flags, MEMGROW_SPACE_MANAGED);
}
static CUresult t_mem_host_alloc(void** p, SizeT n, UInt flags) {
    return do_mem_alloc_flags(REAL(E_MEM_HOST_ALLOC, 0), (CUdeviceptr*)p, n, flags,
                              MEMGROW_SPACE_PINNED);
}
static CUresult t_mem_alloc_host(void** p, SizeT n) {
    return do_mem_alloc(REAL(E_MEM_ALLOC_HOST, 0), (CUdeviceptr*)p, n, MEMGROW_SPACE_PINNED,
                        MEMGROW_API_HOST);
}
static CUresult t_mem_free_host(void* p) {
    return do_mem_free(REAL(E_MEM_FREE_HOST, 0), (UWord)p, MEMGROW_SPACE_PINNED, MEMGROW_API_HOST);
}
static CUresult t_mem_alloc_async(CUdeviceptr* p, SizeT n, CUstream s) {
    return do_mem_alloc_async(REAL(E_MEM_ALLOC_ASYNC, 0), p, n, s);
}
static CUresult t_mem_alloc_async_ptsz(CUdeviceptr* p, SizeT n, CUstream s) {
    return do_mem_alloc_async(REAL(E_MEM_ALLOC_ASYNC, 1), p, n, s);
}
static CUresult t_mem_alloc_from_pool_async(CUdeviceptr* p, SizeT n, CUmemoryPool pool,
                                            CUstream s) {
    return do_mem_alloc_from_pool_async(REAL(E_MEM_ALLOC_FROM_POOL_ASYNC, 0), p, n, pool, s);
}
static CUresult t_mem_alloc_from_pool_async_ptsz(CUdeviceptr* p, SizeT n, CUmemoryPool pool,
                                                 CUstream s) {
    return do_mem_alloc_from_pool_async(REAL(E_MEM_ALLOC_FROM_POOL_ASYNC, 1), p, n, pool, s);
}
static CUresult t_mem_free_async(CUdeviceptr p, CUstream s) {
    return do_mem_free_async(REAL(E_MEM_FREE_ASYNC, 0), p, s);
}
static CUresult t_mem_free_async_ptsz(CUdeviceptr p, CUstream s) {
    return do_mem_free_async(REAL(E_MEM_FREE_ASYNC, 1), p, s);
}
static CUresult t_mem_create(CUmemGenericAllocationHandle* h, SizeT size,
                             const MgCuMemAllocationPropHead* prop, cuuint64_t flags) {
    return do_mem_create(REAL(E_MEM_CREATE, 0), h, size, prop, flags);
}
static CUresult t_mem_release(CUmemGenericAllocationHandle h) {
    return do_mem_release(REAL(E_MEM_RELEASE, 0), h);
}
static CUresult t_mem_map(CUdeviceptr p, SizeT size, SizeT offset, CUmemGenericAllocationHandle h,
                          cuuint64_t flags) {
    return do_mem_map(REAL(E_MEM_MAP, 0), p, size, offset, h, flags);
}
static CUresult t_mem_unmap(CUdeviceptr p, SizeT size) {
    return do_mem_unmap(REAL(E_MEM_UNMAP, 0), p, size);
}
static CUresult t_mem_address_reserve(CUdeviceptr* p, SizeT size, SizeT align, CUdeviceptr addr,
                                      cuuint64_t flags) {
    return do_mem_address_reserve(REAL(E_MEM_ADDRESS_RESERVE, 0), p, size, align, addr, flags);
}
static CUresult t_mem_address_free(CUdeviceptr p, SizeT size) {
    return do_mem_address_free(REAL(E_MEM_ADDRESS_FREE, 0), p, size);
}
static CUresult t_mem_set_access(CUdeviceptr p, SizeT size, const MgCuMemAccessDesc* desc,
                                 SizeT count) {
    return do_mem_set_access(REAL(E_MEM_SET_ACCESS, 0), p, size, desc, count);
}
/* Copies and sets: the plain form and the per-thread-default-stream one
   (_ptds, or _ptsz when async). */
#define T_COPY(e, name, kind)                                                                      \
    static CUresult t_##name(UWord d, UWord s, SizeT n) {                                          \
        return do_copy(REAL(e, 0), d, s, n, kind, 0, 0);                                           \
    }                                                                                              \
    static CUresult t_##name##_ptds(UWord d, UWord s, SizeT n) {                                   \
        return do_copy(REAL(e, 1), d, s, n, kind, 0, 0);                                           \
    }                                                                                              \
    static CUresult t_##name##_async(UWord d, UWord s, SizeT n, UWord st) {                        \
        return do_copy(REAL(e##_ASYNC, 0), d, s, n, kind, 1, st);                                  \
    }                                                                                              \
    static CUresult t_##name##_async_ptsz(UWord d, UWord s, SizeT n, UWord st) {                   \
        return do_copy(REAL(e##_ASYNC, 1), d, s, n, kind, 1, st);                                  \
    }
#define T_SET(e, name, elem)                                                                       \
    static CUresult t_##name(UWord d, UWord v, SizeT n) {                                          \
        return do_set(REAL(e, 0), d, v, n, elem, 0, 0);                                            \
    }                                                                                              \
    static CUresult t_##name##_ptds(UWord d, UWord v, SizeT n) {                                   \
        return do_set(REAL(e, 1), d, v, n, elem, 0, 0);                                            \
    }                                                                                              \
    static CUresult t_##name##_async(UWord d, UWord v, SizeT n, UWord st) {                        \
        return do_set(REAL(e##_ASYNC, 0), d, v, n, elem, 1, st);                                   \
    }                                                                                              \
    static CUresult t_##name##_async_ptsz(UWord d, UWord v, SizeT n, UWord st) {                   \
        return do_set(REAL(e##_ASYNC, 1), d, v, n, elem, 1, st);                                   \
    }
T_COPY(E_MEMCPY, memcpy, MG_CUDA_MEMCPY_DEFAULT)
T_COPY(E_MEMCPY_HTOD, memcpy_htod, MG_CUDA_MEMCPY_HOST_TO_DEVICE)
T_COPY(E_MEMCPY_DTOH, memcpy_dtoh, MG_CUDA_MEMCPY_DEVICE_TO_HOST)
T_COPY(E_MEMCPY_DTOD, memcpy_dtod, MG_CUDA_MEMCPY_DEVICE_TO_DEVICE)
T_SET(E_MEMSET_D8, memset_d8, 1)
T_SET(E_MEMSET_D16, memset_d16, 2)
T_SET(E_MEMSET_D32, memset_d32, 4)
/* "cuGetProcAddress" asked for itself: version 12000 on is the 5-argument
   form, before it the 4-argument one; each has its own slot. */
static CUresult t_get_proc_address_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                      void* status) {
    return do_get_proc_address(REAL(E_GET_PROC_ADDRESS, 0), symbol, pfn, version, flags, status, 1);
}
static CUresult t_get_proc_address_v1(const char* symbol, void** pfn, int version,
                                      cuuint64_t flags) {
    return do_get_proc_address(REAL(E_GET_PROC_ADDRESS, 1), symbol, pfn, version, flags, 0, 0);
}

static CUresult t_init(UWord a, UWord b, UWord c, UWord d, UWord e, UWord f) {
    return do_startup(REAL(E_INIT, 0), a, b, c, d, e, f);
}
static CUresult t_primary_ctx_retain(UWord a, UWord b, UWord c, UWord d, UWord e, UWord f) {
    return do_startup(REAL(E_PRIMARY_CTX_RETAIN, 0), a, b, c, d, e, f);
}
static CUresult t_ctx_create(UWord a, UWord b, UWord c, UWord d, UWord e, UWord f) {
    return do_startup(REAL(E_CTX_CREATE, 0), a, b, c, d, e, f);
}

/* The entry points by the base name cuGetProcAddress is asked for, with the
   CUDA version from which the driver returns the signature wrapped here
   (an older version gets an older ABI, which is passed through untouched). */
static const struct {
    const char* name;
    int version;
    void* trampoline[2];
} entries[E_COUNT] = {
    [E_MEM_ALLOC] = {"cuMemAlloc", 3020, {(void*)t_mem_alloc, 0}},
    [E_MEM_ALLOC_PITCH] = {"cuMemAllocPitch", 3020, {(void*)t_mem_alloc_pitch, 0}},
    [E_MEM_FREE] = {"cuMemFree", 3020, {(void*)t_mem_free, 0}},
    [E_MEM_ALLOC_MANAGED] = {"cuMemAllocManaged", 6000, {(void*)t_mem_alloc_managed, 0}},
    [E_MEM_HOST_ALLOC] = {"cuMemHostAlloc", 2020, {(void*)t_mem_host_alloc, 0}},
    [E_MEM_ALLOC_HOST] = {"cuMemAllocHost", 3020, {(void*)t_mem_alloc_host, 0}},
    [E_MEM_FREE_HOST] = {"cuMemFreeHost", 2000, {(void*)t_mem_free_host, 0}},
    [E_MEM_ALLOC_ASYNC] = {"cuMemAllocAsync",
                           11020,
                           {(void*)t_mem_alloc_async, (void*)t_mem_alloc_async_ptsz}},
    [E_MEM_ALLOC_FROM_POOL_ASYNC] = {"cuMemAllocFromPoolAsync",
                                     11020,
                                     {(void*)t_mem_alloc_from_pool_async,
                                      (void*)t_mem_alloc_from_pool_async_ptsz}},
    [E_MEM_FREE_ASYNC] = {"cuMemFreeAsync",
                          11020,
                          {(void*)t_mem_free_async, (void*)t_mem_free_async_ptsz}},
    [E_MEM_CREATE] = {"cuMemCreate", 10020, {(void*)t_mem_create, 0}},
    [E_MEM_RELEASE] = {"cuMemRelease", 10020, {(void*)t_mem_release, 0}},
    [E_MEM_MAP] = {"cuMemMap", 10020, {(void*)t_mem_map, 0}},
    [E_MEM_UNMAP] = {"cuMemUnmap", 10020, {(void*)t_mem_unmap, 0}},
    [E_MEM_ADDRESS_RESERVE] = {"cuMemAddressReserve", 10020, {(void*)t_mem_address_reserve, 0}},
    [E_MEM_ADDRESS_FREE] = {"cuMemAddressFree", 10020, {(void*)t_mem_address_free, 0}},
    [E_MEM_SET_ACCESS] = {"cuMemSetAccess", 10020, {(void*)t_mem_set_access, 0}},
/* A copy or set and its Async form, each with its per-thread-default-stream
   trampoline. */
#define COPY_ENTRIES(e, name, t, version)                                                          \
    [e] = {name, version, {(void*)t_##t, (void*)t_##t##_ptds}},                                    \
    [e##_ASYNC] = {name "Async", version, {(void*)t_##t##_async, (void*)t_##t##_async_ptsz}}
    COPY_ENTRIES(E_MEMCPY, "cuMemcpy", memcpy, 4000),
    COPY_ENTRIES(E_MEMCPY_HTOD, "cuMemcpyHtoD", memcpy_htod, 3020),
    COPY_ENTRIES(E_MEMCPY_DTOH, "cuMemcpyDtoH", memcpy_dtoh, 3020),
    COPY_ENTRIES(E_MEMCPY_DTOD, "cuMemcpyDtoD", memcpy_dtod, 3020),
    COPY_ENTRIES(E_MEMSET_D8, "cuMemsetD8", memset_d8, 3020),
    COPY_ENTRIES(E_MEMSET_D16, "cuMemsetD16", memset_d16, 3020),
    COPY_ENTRIES(E_MEMSET_D32, "cuMemsetD32", memset_d32, 3020),
    [E_GET_PROC_ADDRESS] = {"cuGetProcAddress",
                            11030,
                            {(void*)t_get_proc_address_v2, (void*)t_get_proc_address_v1}},
    [E_INIT] = {"cuInit", 2000, {(void*)t_init, 0}},
    [E_PRIMARY_CTX_RETAIN] = {"cuDevicePrimaryCtxRetain", 7000, {(void*)t_primary_ctx_retain, 0}},
    [E_CTX_CREATE] = {"cuCtxCreate", 3020, {(void*)t_ctx_create, 0}},
};

static int is_trampoline(void* fn) {
    for (int e = 0; e < E_COUNT; e++)
        if (fn && (fn == entries[e].trampoline[0] || fn == entries[e].trampoline[1])) return 1;
    return 0;
}

/* Swaps the driver's function in *pfn for the trampoline of its entry. */
static void substitute(const char* symbol, void** pfn, int version, cuuint64_t flags) {
    for (int e = 0; e < E_COUNT; e++) {
        if (!streq(symbol, entries[e].name) || version < entries[e].version) continue;
        int v = e == E_GET_PROC_ADDRESS ? version < 12000
                : entries[e].trampoline[1]
                    ? (flags & MG_CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0
                    : 0;
        if (is_trampoline(*pfn)) return; /* asked through a trampoline of ours */
        real[e][v] = *pfn;
        *pfn = entries[e].trampoline[v];
        return;
    }
}

static CUresult do_get_proc_address(OrigFn fn, const char* symbol, void** pfn, int version,
                                    cuuint64_t flags, void* status, int v2) {
    CUresult r;
    enter();
    if (v2)
        CALL_FN_W_5W(r, fn, symbol, pfn, version, flags, status);
    else
        CALL_FN_W_WWWW(r, fn, symbol, pfn, version, flags);
    if (r == 0 && !ctx_get_device) {
        /* For the device number of later allocations. */
        void* f = 0;
        UWord r2;
        int status2;
        if (v2)
            CALL_FN_W_5W(r2, fn, "cuCtxGetDevice", &f, 2000, 0, &status2);
        else
            CALL_FN_W_WWWW(r2, fn, "cuCtxGetDevice", &f, 2000, 0);
        if (r2 == 0) ctx_get_device = f;
    }
    leave();
    if (r == 0 && symbol && pfn && *pfn && tracking()) substitute(symbol, pfn, version, flags);
    return r;
}

/* ---- the exported driver symbols ---- */

#define DRV(ret, name, params)                                                                     \
    ret I_WRAP_SONAME_FNNAME_ZU(libcudaZdsoZa, name) params;                                       \
    ret I_WRAP_SONAME_FNNAME_ZU(libcudaZdsoZa, name)                                               \
    params

DRV(CUresult, cuGetProcAddress_v2,
    (const char* symbol, void** pfn, int version, cuuint64_t flags, void* status)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_get_proc_address(fn, symbol, pfn, version, flags, status, 1);
}
DRV(CUresult, cuGetProcAddress, (const char* symbol, void** pfn, int version, cuuint64_t flags)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_get_proc_address(fn, symbol, pfn, version, flags, 0, 0);
}
DRV(CUresult, cuInit, (UInt flags)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_startup(fn, flags, 0, 0, 0, 0, 0);
}
DRV(CUresult, cuDevicePrimaryCtxRetain, (void* ctx, Int dev)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_startup(fn, (UWord)ctx, (UWord)dev, 0, 0, 0, 0);
}
DRV(CUresult, cuCtxCreate_v2, (void* ctx, UInt flags, Int dev)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_startup(fn, (UWord)ctx, flags, (UWord)dev, 0, 0, 0);
}
DRV(CUresult, cuCtxCreate_v3, (void* ctx, void* params, Int n, UInt flags, Int dev)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_startup(fn, (UWord)ctx, (UWord)params, (UWord)n, flags, (UWord)dev, 0);
}
DRV(CUresult, cuCtxCreate_v4, (void* ctx, void* params, UInt flags, Int dev)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_startup(fn, (UWord)ctx, (UWord)params, flags, (UWord)dev, 0, 0);
}
DRV(CUresult, cuMemAlloc_v2, (CUdeviceptr * p, SizeT n)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_alloc(fn, p, n, MEMGROW_SPACE_DEVICE, MEMGROW_API_DRIVER);
}
DRV(CUresult, cuMemAllocPitch_v2, (CUdeviceptr * p, SizeT* pitch, SizeT w, SizeT h, UInt e)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_alloc_pitch(fn, p, pitch, w, h, e);
}
DRV(CUresult, cuMemFree_v2, (CUdeviceptr p)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_free(fn, p, MEMGROW_SPACE_DEVICE, MEMGROW_API_DRIVER);
}
DRV(CUresult, cuMemAllocManaged, (CUdeviceptr * p, SizeT n, UInt flags)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_alloc_flags(fn, p, n, flags, MEMGROW_SPACE_MANAGED);
}
DRV(CUresult, cuMemHostAlloc, (void** p, SizeT n, UInt flags)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_alloc_flags(fn, (CUdeviceptr*)p, n, flags, MEMGROW_SPACE_PINNED);
}
DRV(CUresult, cuMemAllocHost_v2, (void** p, SizeT n)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_alloc(fn, (CUdeviceptr*)p, n, MEMGROW_SPACE_PINNED, MEMGROW_API_HOST);
}
DRV(CUresult, cuMemFreeHost, (void* p)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_free(fn, (UWord)p, MEMGROW_SPACE_PINNED, MEMGROW_API_HOST);
}
#define DRV_ASYNC(suffix)                                                                          \
    DRV(CUresult, cuMemAllocAsync##suffix, (CUdeviceptr * p, SizeT n, CUstream s)) {               \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_mem_alloc_async(fn, p, n, s);                                                    \
    }                                                                                              \
    DRV(CUresult, cuMemAllocFromPoolAsync##suffix,                                                 \
        (CUdeviceptr * p, SizeT n, CUmemoryPool pool, CUstream s)) {                               \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_mem_alloc_from_pool_async(fn, p, n, pool, s);                                    \
    }                                                                                              \
    DRV(CUresult, cuMemFreeAsync##suffix, (CUdeviceptr p, CUstream s)) {                           \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_mem_free_async(fn, p, s);                                                        \
    }
DRV_ASYNC()
DRV_ASYNC(_ptsz)
DRV(CUresult, cuMemCreate,
    (CUmemGenericAllocationHandle * h, SizeT size, const MgCuMemAllocationPropHead* prop,
     cuuint64_t flags)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_create(fn, h, size, prop, flags);
}
DRV(CUresult, cuMemRelease, (CUmemGenericAllocationHandle h)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_release(fn, h);
}
DRV(CUresult, cuMemMap,
    (CUdeviceptr p, SizeT size, SizeT offset, CUmemGenericAllocationHandle h, cuuint64_t flags)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_map(fn, p, size, offset, h, flags);
}
DRV(CUresult, cuMemUnmap, (CUdeviceptr p, SizeT size)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_unmap(fn, p, size);
}

DRV(CUresult, cuMemAddressReserve,
    (CUdeviceptr * p, SizeT size, SizeT align, CUdeviceptr addr, cuuint64_t flags)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_address_reserve(fn, p, size, align, addr, flags);
}
DRV(CUresult, cuMemAddressFree, (CUdeviceptr p, SizeT size)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_address_free(fn, p, size);
}
DRV(CUresult, cuMemSetAccess,
    (CUdeviceptr p, SizeT size, const MgCuMemAccessDesc* desc, SizeT count)) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    return do_mem_set_access(fn, p, size, desc, count);
}
/* The exported copies and sets: name is the symbol (cuMemcpyDtoD_v2), sz
   the per-thread-default-stream suffix of the synchronous form. */
#define DRV_COPY(name, sync_sz, kind)                                                              \
    DRV(CUresult, name, (UWord d, UWord s, SizeT n)) {                                             \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_copy(fn, d, s, n, kind, 0, 0);                                                   \
    }                                                                                              \
    DRV(CUresult, name##sync_sz, (UWord d, UWord s, SizeT n)) {                                    \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_copy(fn, d, s, n, kind, 0, 0);                                                   \
    }
#define DRV_COPY_ASYNC(name, kind)                                                                 \
    DRV(CUresult, name, (UWord d, UWord s, SizeT n, UWord st)) {                                   \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_copy(fn, d, s, n, kind, 1, st);                                                  \
    }                                                                                              \
    DRV(CUresult, name##_ptsz, (UWord d, UWord s, SizeT n, UWord st)) {                            \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_copy(fn, d, s, n, kind, 1, st);                                                  \
    }
#define DRV_SET(name, async_name, elem)                                                            \
    DRV(CUresult, name, (UWord d, UWord v, SizeT n)) {                                             \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_set(fn, d, v, n, elem, 0, 0);                                                    \
    }                                                                                              \
    DRV(CUresult, name##_ptds, (UWord d, UWord v, SizeT n)) {                                      \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_set(fn, d, v, n, elem, 0, 0);                                                    \
    }                                                                                              \
    DRV(CUresult, async_name, (UWord d, UWord v, SizeT n, UWord st)) {                             \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_set(fn, d, v, n, elem, 1, st);                                                   \
    }                                                                                              \
    DRV(CUresult, async_name##_ptsz, (UWord d, UWord v, SizeT n, UWord st)) {                      \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return do_set(fn, d, v, n, elem, 1, st);                                                   \
    }
DRV_COPY(cuMemcpy, _ptds, MG_CUDA_MEMCPY_DEFAULT)
DRV_COPY_ASYNC(cuMemcpyAsync, MG_CUDA_MEMCPY_DEFAULT)
DRV_COPY(cuMemcpyHtoD_v2, _ptds, MG_CUDA_MEMCPY_HOST_TO_DEVICE)
DRV_COPY_ASYNC(cuMemcpyHtoDAsync_v2, MG_CUDA_MEMCPY_HOST_TO_DEVICE)
DRV_COPY(cuMemcpyDtoH_v2, _ptds, MG_CUDA_MEMCPY_DEVICE_TO_HOST)
DRV_COPY_ASYNC(cuMemcpyDtoHAsync_v2, MG_CUDA_MEMCPY_DEVICE_TO_HOST)
DRV_COPY(cuMemcpyDtoD_v2, _ptds, MG_CUDA_MEMCPY_DEVICE_TO_DEVICE)
DRV_COPY_ASYNC(cuMemcpyDtoDAsync_v2, MG_CUDA_MEMCPY_DEVICE_TO_DEVICE)
DRV_SET(cuMemsetD8_v2, cuMemsetD8Async, 1)
DRV_SET(cuMemsetD16_v2, cuMemsetD16Async, 2)
DRV_SET(cuMemsetD32_v2, cuMemsetD32Async, 4)

/* ---- the runtime layer: the API the user called, at the user's call ---- */

static cudaError_t rt_alloc(OrigFn fn, void** p, SizeT n, UWord a3, UWord a4, int nargs, int space,
                            int api) {
    cudaError_t r;
    enter();
    if (nargs == 2)
        CALL_FN_W_WW(r, fn, p, n);
    else if (nargs == 3)
        CALL_FN_W_WWW(r, fn, p, n, a3);
    else
        CALL_FN_W_WWWW(r, fn, p, n, a3, a4);
    leave();
    if (r == 0 && outermost()) report_alloc((UWord)*p, n, space, api);
    return r;
}

static cudaError_t rt_free(OrigFn fn, void* p, UWord a2, int nargs, int space, int api) {
    cudaError_t r;
    if (p && outermost()) (void)MEMGROW_DEVICE_FREE(p, space, api);
    enter();
    if (nargs == 1)
        CALL_FN_W_W(r, fn, p);
    else
        CALL_FN_W_WW(r, fn, p, a2);
    leave();
    return r;
}

static cudaError_t rt_memcpy(OrigFn fn, void* dst, const void* src, SizeT n, int kind, void* s,
                             int async) {
    cudaError_t r;
    check_copy((UWord)dst, (UWord)src, n, kind, async ? MEMGROW_API_ASYNC : MEMGROW_API_RUNTIME);
    enter();
    if (async)
        CALL_FN_W_5W(r, fn, dst, src, n, kind, s);
    else
        CALL_FN_W_WWWW(r, fn, dst, src, n, kind);
    leave();
    return r;
}

static cudaError_t rt_memset(OrigFn fn, void* p, int value, SizeT n, void* s, int async) {
    cudaError_t r;
    if (outermost() && n)
        (void)MEMGROW_DEVICE_ACCESS(p, n, MEMGROW_ACCESS_WRITE,
                                    async ? MEMGROW_API_ASYNC : MEMGROW_API_RUNTIME);
    enter();
    if (async)
        CALL_FN_W_WWWW(r, fn, p, value, n, s);
    else
        CALL_FN_W_WWW(r, fn, p, value, n);
    leave();
    return r;
}

#define RT(so, name, params)                                                                       \
    cudaError_t I_WRAP_SONAME_FNNAME_ZU(so, name) params;                                          \
    cudaError_t I_WRAP_SONAME_FNNAME_ZU(so, name) params

#define RT_ASYNC_WRAPS(so, sz, ds)                                                                 \
    RT(so, cudaMallocAsync##sz, (void** p, SizeT n, void* s)) {                                    \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_alloc(fn, p, n, (UWord)s, 0, 3, MEMGROW_SPACE_DEVICE, MEMGROW_API_ASYNC);        \
    }                                                                                              \
    RT(so, cudaMallocFromPoolAsync##sz, (void** p, SizeT n, void* pool, void* s)) {                \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_alloc(fn, p, n, (UWord)pool, (UWord)s, 4, MEMGROW_SPACE_DEVICE,                  \
                        MEMGROW_API_ASYNC);                                                        \
    }                                                                                              \
    RT(so, cudaFreeAsync##sz, (void* p, void* s)) {                                                \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_free(fn, p, (UWord)s, 2, MEMGROW_SPACE_DEVICE, MEMGROW_API_ASYNC);               \
    }                                                                                              \
    RT(so, cudaMemcpyAsync##sz, (void* dst, const void* src, SizeT n, int kind, void* s)) {        \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_memcpy(fn, dst, src, n, kind, s, 1);                                             \
    }                                                                                              \
    RT(so, cudaMemsetAsync##sz, (void* p, int value, SizeT n, void* s)) {                          \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_memset(fn, p, value, n, s, 1);                                                   \
    }                                                                                              \
    RT(so, cudaMemcpy##ds, (void* dst, const void* src, SizeT n, int kind)) {                      \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_memcpy(fn, dst, src, n, kind, 0, 0);                                             \
    }                                                                                              \
    RT(so, cudaMemset##ds, (void* p, int value, SizeT n)) {                                        \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_memset(fn, p, value, n, 0, 0);                                                   \
    }

/* so: libcudart.so* (dynamic) or NONE (static cudart in the executable,
   found by its symbol table when it is not stripped). */
#define RT_WRAPS(so)                                                                               \
    RT(so, cudaMalloc, (void** p, SizeT n)) {                                                      \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_alloc(fn, p, n, 0, 0, 2, MEMGROW_SPACE_DEVICE, MEMGROW_API_RUNTIME);             \
    }                                                                                              \
    RT(so, cudaMallocPitch, (void** p, SizeT* pitch, SizeT w, SizeT h)) {                          \
        OrigFn fn;                                                                                 \
        cudaError_t r;                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        enter();                                                                                   \
        CALL_FN_W_WWWW(r, fn, p, pitch, w, h);                                                     \
        leave();                                                                                   \
        if (r == 0 && outermost())                                                                 \
            report_alloc((UWord)*p, *pitch* h, MEMGROW_SPACE_DEVICE, MEMGROW_API_RUNTIME);         \
        return r;                                                                                  \
    }                                                                                              \
    RT(so, cudaMallocManaged, (void** p, SizeT n, UInt flags)) {                                   \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_alloc(fn, p, n, flags, 0, 3, MEMGROW_SPACE_MANAGED, MEMGROW_API_RUNTIME);        \
    }                                                                                              \
    RT(so, cudaMallocHost, (void** p, SizeT n)) {                                                  \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_alloc(fn, p, n, 0, 0, 2, MEMGROW_SPACE_PINNED, MEMGROW_API_HOST);                \
    }                                                                                              \
    RT(so, cudaHostAlloc, (void** p, SizeT n, UInt flags)) {                                       \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_alloc(fn, p, n, flags, 0, 3, MEMGROW_SPACE_PINNED, MEMGROW_API_HOST);            \
    }                                                                                              \
    RT(so, cudaFree, (void* p)) {                                                                  \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_free(fn, p, 0, 1, MEMGROW_SPACE_DEVICE, MEMGROW_API_RUNTIME);                    \
    }                                                                                              \
    RT(so, cudaFreeHost, (void* p)) {                                                              \
        OrigFn fn;                                                                                 \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        return rt_free(fn, p, 0, 1, MEMGROW_SPACE_PINNED, MEMGROW_API_HOST);                       \
    }                                                                                              \
    RT_ASYNC_WRAPS(so, , )                                                                         \
    RT_ASYNC_WRAPS(so, _ptsz, _ptds)

RT_WRAPS(libcudartZdsoZa)
RT_WRAPS(NONE)
