/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stand-in for the CUDA driver, libcuda.so.1, for machines without a GPU.

   Built against the real CUDA headers. Like the real driver it exports the
   cu* entry points and cuGetProcAddress[_v2], and what cuGetProcAddress
   hands out are internal (non-exported) functions, so that only an
   interceptor of cuGetProcAddress itself sees the calls made through them.
   "Device" memory is host pages mapped PROT_NONE: the host cannot read it,
   as it cannot read a GPU's; the copy functions open them for the copy.
   Virtual memory works as on a GPU: a reservation is a PROT_NONE range, a
   physical allocation (cuMemCreate) a memfd, mapped shared into the
   reservation by cuMemMap, so that a copy may run across mappings.
   It checks what the real driver checks (CUDA_ERROR_INVALID_VALUE for an
   unknown pointer, a copy past the end of an allocation or reservation or
   into reserved pages not mapped with the access, a second mapping of a
   page), keeps its
   bookkeeping in static storage and knows nothing of memgrow. Its start-up
   allocates host memory as the real driver's does (startup_state). */
#define _GNU_SOURCE
#include <cuda.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_RECORDS 4096
#define PAGE 4096ul

enum kind { FREE_SLOT, DEVICE, MANAGED, PINNED, RESERVED, PHYSICAL, MAPPING };

/* An allocation, a VA reservation, a physical (VMM) allocation or a
   mapping of one into a reservation. */
struct record {
    enum kind kind;
    unsigned long addr; /* the pointer, or the VMM handle */
    size_t size;
    int fd;   /* PHYSICAL: its memory */
    int prot; /* MAPPING: CUmemAccess_flags granted by cuMemSetAccess */
};
static struct record records[MAX_RECORDS];
static unsigned long next_handle = 0x1000;
static CUcontext current;

static struct record* find(unsigned long addr, enum kind kind) {
    for (int i = 0; i < MAX_RECORDS; i++)
        if (records[i].kind == kind && records[i].addr == addr) return &records[i];
    return NULL;
}

/* The record of that kind holding addr, or NULL. */
static struct record* holding(unsigned long addr, enum kind kind) {
    for (int i = 0; i < MAX_RECORDS; i++) {
        struct record* r = &records[i];
        if (r->kind == kind && addr >= r->addr && addr - r->addr < r->size) return r;
    }
    return NULL;
}

/* The allocation or reservation holding addr, or NULL (host memory). */
static struct record* holder(unsigned long addr) {
    for (int i = 0; i < MAX_RECORDS; i++) {
        struct record* r = &records[i];
        if ((r->kind == DEVICE || r->kind == MANAGED || r->kind == PINNED || r->kind == RESERVED) &&
            addr >= r->addr && addr - r->addr < r->size)
            return r;
    }
    return NULL;
}

/* Whether [addr, addr + n) fits in r, the holder of addr; in a reservation
   every page must be mapped with the access (prot: 1 read, 2 write). */
static int fits(const struct record* r, unsigned long addr, size_t n, int prot) {
    if (n > r->size - (addr - r->addr)) return 0;
    if (r->kind != RESERVED) return 1;
    for (unsigned long a = addr; a < addr + n;) {
        struct record* m = holding(a, MAPPING);
        if (!m || !(m->prot & prot)) return 0;
        a = m->addr + m->size;
    }
    return 1;
}

/* The allocation holding all of [addr, addr + n) (in a reservation: mapped
   with the access), or NULL. */
static struct record* find_range(unsigned long addr, size_t n, int prot) {
    struct record* r = holder(addr);
    return r && fits(r, addr, n, prot) ? r : NULL;
}

static CUresult add(enum kind kind, unsigned long addr, size_t size, int fd) {
    for (int i = 0; i < MAX_RECORDS; i++) {
        if (records[i].kind == FREE_SLOT) {
            records[i] = (struct record){kind, addr, size, fd, 0};
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

static size_t round_up(size_t n) {
    return (n + PAGE - 1) & ~(PAGE - 1);
}

static CUresult map_new(enum kind kind, size_t size, unsigned long* out) {
    if (size == 0) return CUDA_ERROR_INVALID_VALUE;
    int prot = kind == DEVICE || kind == RESERVED ? PROT_NONE : PROT_READ | PROT_WRITE;
    void* p = mmap(NULL, round_up(size), prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = add(kind, (unsigned long)p, size, -1);
    if (r != CUDA_SUCCESS) {
        munmap(p, round_up(size));
        return r;
    }
    *out = (unsigned long)p;
    return CUDA_SUCCESS;
}

static CUresult unmap(unsigned long addr, enum kind kind) {
    struct record* r = find(addr, kind);
    if (!r || addr == 0) return CUDA_ERROR_INVALID_VALUE;
    munmap((void*)addr, round_up(r->size));
    r->kind = FREE_SLOT;
    return CUDA_SUCCESS;
}

/* Opens the pages of [addr, addr + n) for the host while copying. */
static void open_range(unsigned long addr, size_t n, int prot) {
    unsigned long lo = addr & ~(PAGE - 1);
    if (n) mprotect((void*)lo, round_up(addr + n - lo), prot);
}

static int is_device(const struct record* r) {
    return r && (r->kind == DEVICE || r->kind == RESERVED);
}

static CUresult copy(unsigned long dst, unsigned long src, size_t n) {
    struct record* d = holder(dst);
    struct record* s = holder(src);
    /* A pointer inside a known allocation or reservation must fit in it;
       any other is host memory (unified addressing). */
    if ((d && !fits(d, dst, n, 2)) || (s && !fits(s, src, n, 1))) return CUDA_ERROR_INVALID_VALUE;
    if (is_device(d)) open_range(dst, n, PROT_READ | PROT_WRITE);
    if (is_device(s)) open_range(src, n, PROT_READ);
    memmove((void*)dst, (const void*)src, n);
    if (is_device(d)) open_range(dst, n, PROT_NONE);
    if (is_device(s)) open_range(src, n, PROT_NONE);
    return CUDA_SUCCESS;
}

/* cuMemsetD8/D32: n elements of elem bytes. */
static CUresult set(unsigned long dst, unsigned int value, size_t n, size_t elem) {
    struct record* d = find_range(dst, n * elem, 2);
    if (!d || dst % elem) return CUDA_ERROR_INVALID_VALUE;
    if (is_device(d)) open_range(dst, n * elem, PROT_READ | PROT_WRITE);
    for (size_t i = 0; i < n; i++)
        memcpy((char*)dst + i * elem, &value, elem);
    if (is_device(d)) open_range(dst, n * elem, PROT_NONE);
    return CUDA_SUCCESS;
}

/* The real driver's start-up allocates host memory it keeps: on an H100
   (driver 580, CUDA 13) cuInit and the primary context's creation took 46 MB
   in about 16,000 blocks before a program's first cudaMalloc returned, ten
   times what tests/cuda/classes.c allocates afterwards. The stand-in does
   the same in kind: blocks of one growing table, and a scratch buffer
   freed (docs/cuda.md, "The driver's start-up"). Done once per call kind.
   Called through the exported symbols (programs linked with -lcuda), it
   keeps pointers 16 bytes into its blocks, as the real driver keeps its own
   (the leak scan calls them possibly lost; suppressions/cuda.supp). */
#define STARTUP_BLOCKS 1024
static char* startup_blocks[3][STARTUP_BLOCKS];

static void startup_state(int which, size_t block, int interior) {
    if (startup_blocks[which][0]) return;
    void* scratch = malloc(1 << 20);
    for (int i = 0; i < STARTUP_BLOCKS; i++) {
        char* p = malloc(block);
        if (!p) continue;
        memset(p, 0, 64);
        startup_blocks[which][i] = p + (interior ? 16 : 0);
    }
    free(scratch);
}

/* ---- the implementations cuGetProcAddress hands out ---- */

static CUresult drv_init(unsigned int flags) {
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    startup_state(0, 4096, 0); /* 4 MB */
    return CUDA_SUCCESS;
}
static CUresult drv_driver_get_version(int* v) {
    *v = CUDA_VERSION;
    return CUDA_SUCCESS;
}
static CUresult drv_device_get(CUdevice* dev, int ordinal) {
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}
static CUresult drv_device_get_count(int* n) {
    *n = 1;
    return CUDA_SUCCESS;
}
static CUresult drv_primary_ctx_retain(CUcontext* ctx, CUdevice dev) {
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    startup_state(1, 24 * 1024, 0); /* 24 MB */
    *ctx = (CUcontext)&current;     /* any unique non-null value */
    return CUDA_SUCCESS;
}
/* A context of the program's own (cuCtxCreate, CUDA 12.5's signature). */
static CUresult drv_ctx_create(CUcontext* ctx, CUctxCreateParams* params, unsigned int flags,
                               CUdevice dev) {
    (void)params, (void)flags;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    startup_state(2, 16 * 1024, 0); /* 16 MB */
    *ctx = current = (CUcontext)&current;
    return CUDA_SUCCESS;
}
static CUresult drv_primary_ctx_release(CUdevice dev) {
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
static CUresult drv_ctx_set_current(CUcontext ctx) {
    current = ctx;
    return CUDA_SUCCESS;
}
static CUresult drv_ctx_get_device(CUdevice* dev) {
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    *dev = 0;
    return CUDA_SUCCESS;
}
static CUresult drv_ctx_synchronize(void) {
    return CUDA_SUCCESS;
}
static CUresult drv_mem_alloc(CUdeviceptr* p, size_t n) {
    return map_new(DEVICE, n, (unsigned long*)p);
}
static CUresult drv_mem_alloc_pitch(CUdeviceptr* p, size_t* pitch, size_t width, size_t height,
                                    unsigned int elem) {
    if (elem != 4 && elem != 8 && elem != 16) return CUDA_ERROR_INVALID_VALUE;
    *pitch = (width + 511) & ~(size_t)511;
    return map_new(DEVICE, *pitch * height, (unsigned long*)p);
}
static CUresult drv_mem_free(CUdeviceptr p) {
    if (unmap(p, DEVICE) == CUDA_SUCCESS) return CUDA_SUCCESS;
    return unmap(p, MANAGED);
}
static CUresult drv_mem_alloc_managed(CUdeviceptr* p, size_t n, unsigned int flags) {
    (void)flags;
    return map_new(MANAGED, n, (unsigned long*)p);
}
static CUresult drv_mem_host_alloc(void** p, size_t n, unsigned int flags) {
    (void)flags;
    return map_new(PINNED, n, (unsigned long*)p);
}
static CUresult drv_mem_alloc_host(void** p, size_t n) {
    return map_new(PINNED, n, (unsigned long*)p);
}
static CUresult drv_mem_free_host(void* p) {
    return unmap((unsigned long)p, PINNED);
}
/* Stream-ordered calls run at once: the stand-in has one in-order "stream". */
static CUresult drv_mem_alloc_async(CUdeviceptr* p, size_t n, CUstream s) {
    (void)s;
    return map_new(DEVICE, n, (unsigned long*)p);
}
static CUresult drv_mem_alloc_from_pool_async(CUdeviceptr* p, size_t n, CUmemoryPool pool,
                                              CUstream s) {
    (void)pool, (void)s;
    return map_new(DEVICE, n, (unsigned long*)p);
}
static CUresult drv_mem_free_async(CUdeviceptr p, CUstream s) {
    (void)s;
    return drv_mem_free(p);
}
/* The _ptsz forms (per-thread default stream) are distinct functions in the
   real driver; here too. */
static CUresult drv_mem_alloc_async_ptsz(CUdeviceptr* p, size_t n, CUstream s) {
    return drv_mem_alloc_async(p, n, s);
}
static CUresult drv_mem_alloc_from_pool_async_ptsz(CUdeviceptr* p, size_t n, CUmemoryPool pool,
                                                   CUstream s) {
    return drv_mem_alloc_from_pool_async(p, n, pool, s);
}
static CUresult drv_mem_free_async_ptsz(CUdeviceptr p, CUstream s) {
    return drv_mem_free_async(p, s);
}
static CUresult drv_memcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    return copy(dst, src, n);
}
static CUresult drv_memcpy_htod(CUdeviceptr dst, const void* src, size_t n) {
    return holder(dst) ? copy(dst, (unsigned long)src, n) : CUDA_ERROR_INVALID_VALUE;
}
static CUresult drv_memcpy_dtoh(void* dst, CUdeviceptr src, size_t n) {
    return holder(src) ? copy((unsigned long)dst, src, n) : CUDA_ERROR_INVALID_VALUE;
}
static CUresult drv_memcpy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    return holder(dst) && holder(src) ? copy(dst, src, n) : CUDA_ERROR_INVALID_VALUE;
}
static CUresult drv_memset_d8(CUdeviceptr dst, unsigned char v, size_t n) {
    return set(dst, v, n, 1);
}
static CUresult drv_memset_d32(CUdeviceptr dst, unsigned int v, size_t n) {
    return set(dst, v, n, 4);
}
/* Virtual memory management: a reservation is a PROT_NONE range, a
   physical allocation a memfd, a mapping the memfd mapped shared (and
   PROT_NONE, as device memory) over the reservation's pages. */
static CUresult drv_mem_address_reserve(CUdeviceptr* p, size_t size, size_t align, CUdeviceptr addr,
                                        unsigned long long flags) {
    (void)align, (void)addr, (void)flags;
    return map_new(RESERVED, size, (unsigned long*)p);
}
/* The mappings starting in [p, p + size) go; their pages stay reserved. */
static void unmap_mappings(unsigned long p, size_t size) {
    for (int i = 0; i < MAX_RECORDS; i++) {
        struct record* m = &records[i];
        if (m->kind != MAPPING || m->addr < p || m->addr - p >= size) continue;
        mmap((void*)m->addr, m->size, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        m->kind = FREE_SLOT;
    }
}
static CUresult drv_mem_address_free(CUdeviceptr p, size_t size) {
    struct record* r = find(p, RESERVED);
    if (!r || r->size != size) return CUDA_ERROR_INVALID_VALUE;
    unmap_mappings(p, size);
    return unmap(p, RESERVED);
}
static CUresult drv_mem_create(CUmemGenericAllocationHandle* h, size_t size,
                               const CUmemAllocationProp* prop, unsigned long long flags) {
    if (flags != 0 || prop->location.id != 0 || size == 0 || size % PAGE)
        return CUDA_ERROR_INVALID_VALUE;
    int fd = memfd_create("standin-cuMemCreate", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        if (fd >= 0) close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUresult r = add(PHYSICAL, next_handle, size, fd);
    if (r != CUDA_SUCCESS) {
        close(fd);
        return r;
    }
    *h = next_handle++;
    return CUDA_SUCCESS;
}
/* The memory lives on in its mappings (each holds the memfd). */
static CUresult drv_mem_release(CUmemGenericAllocationHandle h) {
    struct record* r = find(h, PHYSICAL);
    if (!r) return CUDA_ERROR_INVALID_VALUE;
    close(r->fd);
    r->kind = FREE_SLOT;
    return CUDA_SUCCESS;
}
/* Inside one reservation, on pages not mapped yet. */
static CUresult drv_mem_map(CUdeviceptr p, size_t size, size_t offset,
                            CUmemGenericAllocationHandle h, unsigned long long flags) {
    struct record* phys = find(h, PHYSICAL);
    struct record* res = holding(p, RESERVED);
    if (!phys || !res || offset + size > phys->size || flags != 0 || size == 0 || p % PAGE ||
        size % PAGE || size > res->size - (p - res->addr))
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned long a = p; a < p + size; a += PAGE)
        if (holding(a, MAPPING)) return CUDA_ERROR_INVALID_VALUE;
    if (mmap((void*)p, size, PROT_NONE, MAP_SHARED | MAP_FIXED, phys->fd, (off_t)offset) ==
        MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    return add(MAPPING, p, size, -1);
}
static CUresult drv_mem_unmap(CUdeviceptr p, size_t size) {
    struct record* m = holding(p, MAPPING);
    if (!m || m->addr != p || !holding(p, RESERVED)) return CUDA_ERROR_INVALID_VALUE;
    unmap_mappings(p, size);
    return CUDA_SUCCESS;
}
/* Every page of the range mapped; the widest access of the descriptors. */
static CUresult drv_mem_set_access(CUdeviceptr p, size_t size, const CUmemAccessDesc* desc,
                                   size_t count) {
    if (count == 0 || size == 0) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned long a = p; a < p + size;) {
        struct record* m = holding(a, MAPPING);
        if (!m) return CUDA_ERROR_INVALID_VALUE;
        a = m->addr + m->size;
    }
    int prot = 0;
    for (size_t i = 0; i < count; i++)
        prot |= desc[i].flags;
    for (unsigned long a = p; a < p + size;) {
        struct record* m = holding(a, MAPPING);
        m->prot = prot;
        a = m->addr + m->size;
    }
    return CUDA_SUCCESS;
}
static CUresult drv_get_proc_address_v2(const char* symbol, void** pfn, int version,
                                        cuuint64_t flags, CUdriverProcAddressQueryResult* status);
static CUresult drv_get_proc_address(const char* symbol, void** pfn, int version,
                                     cuuint64_t flags) {
    return drv_get_proc_address_v2(symbol, pfn, version, flags, NULL);
}

/* The entry points by base name, with the CUDA version that introduced the
   signature implemented here (as cuGetProcAddress is queried: "cuMemAlloc",
   3020) and the per-thread-default-stream form, if it has one. */
static const struct {
    const char* name;
    int version;
    void* fn;
    void* ptsz;
} entries[] = {
    {"cuInit", 2000, (void*)drv_init, NULL},
    {"cuDriverGetVersion", 2020, (void*)drv_driver_get_version, NULL},
    {"cuDeviceGet", 2000, (void*)drv_device_get, NULL},
    {"cuDeviceGetCount", 2000, (void*)drv_device_get_count, NULL},
    {"cuDevicePrimaryCtxRetain", 7000, (void*)drv_primary_ctx_retain, NULL},
    {"cuCtxCreate", 12050, (void*)drv_ctx_create, NULL},
    {"cuDevicePrimaryCtxRelease", 11000, (void*)drv_primary_ctx_release, NULL},
    {"cuCtxSetCurrent", 4000, (void*)drv_ctx_set_current, NULL},
    {"cuCtxGetDevice", 2000, (void*)drv_ctx_get_device, NULL},
    {"cuCtxSynchronize", 2000, (void*)drv_ctx_synchronize, NULL},
    {"cuMemAlloc", 3020, (void*)drv_mem_alloc, NULL},
    {"cuMemAllocPitch", 3020, (void*)drv_mem_alloc_pitch, NULL},
    {"cuMemFree", 3020, (void*)drv_mem_free, NULL},
    {"cuMemAllocManaged", 6000, (void*)drv_mem_alloc_managed, NULL},
    {"cuMemHostAlloc", 2020, (void*)drv_mem_host_alloc, NULL},
    {"cuMemAllocHost", 3020, (void*)drv_mem_alloc_host, NULL},
    {"cuMemFreeHost", 2000, (void*)drv_mem_free_host, NULL},
    {"cuMemAllocAsync", 11020, (void*)drv_mem_alloc_async, (void*)drv_mem_alloc_async_ptsz},
    {"cuMemAllocFromPoolAsync", 11020, (void*)drv_mem_alloc_from_pool_async,
     (void*)drv_mem_alloc_from_pool_async_ptsz},
    {"cuMemFreeAsync", 11020, (void*)drv_mem_free_async, (void*)drv_mem_free_async_ptsz},
    {"cuMemcpy", 4000, (void*)drv_memcpy, NULL},
    {"cuMemcpyHtoD", 3020, (void*)drv_memcpy_htod, NULL},
    {"cuMemcpyDtoH", 3020, (void*)drv_memcpy_dtoh, NULL},
    {"cuMemcpyDtoD", 3020, (void*)drv_memcpy_dtod, NULL},
    {"cuMemsetD8", 3020, (void*)drv_memset_d8, NULL},
    {"cuMemsetD32", 3020, (void*)drv_memset_d32, NULL},
    {"cuMemAddressReserve", 10020, (void*)drv_mem_address_reserve, NULL},
    {"cuMemAddressFree", 10020, (void*)drv_mem_address_free, NULL},
    {"cuMemCreate", 10020, (void*)drv_mem_create, NULL},
    {"cuMemRelease", 10020, (void*)drv_mem_release, NULL},
    {"cuMemMap", 10020, (void*)drv_mem_map, NULL},
    {"cuMemUnmap", 10020, (void*)drv_mem_unmap, NULL},
    {"cuMemSetAccess", 10020, (void*)drv_mem_set_access, NULL},
    {"cuGetProcAddress", 12000, (void*)drv_get_proc_address_v2, NULL},
};

static CUresult drv_get_proc_address_v2(const char* symbol, void** pfn, int version,
                                        cuuint64_t flags, CUdriverProcAddressQueryResult* status) {
    *pfn = NULL;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        if (strcmp(entries[i].name, symbol) != 0) continue;
        /* "cuGetProcAddress" before 12000 is the 4-argument form. */
        if (strcmp(symbol, "cuGetProcAddress") == 0 && version >= 11030 && version < 12000)
            *pfn = (void*)drv_get_proc_address;
        else if (version < entries[i].version) {
            if (status) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
            return CUDA_ERROR_NOT_FOUND;
        } else
            *pfn = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && entries[i].ptsz
                       ? entries[i].ptsz
                       : entries[i].fn;
        if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
    }
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}

/* ---- the exported symbols, for programs linked with -lcuda ---- */

CUresult cuInit(unsigned int flags) {
    if (flags == 0) startup_state(0, 4096, 1);
    return drv_init(flags);
}
CUresult cuDriverGetVersion(int* v) {
    return drv_driver_get_version(v);
}
CUresult cuDeviceGet(CUdevice* dev, int ordinal) {
    return drv_device_get(dev, ordinal);
}
CUresult cuDeviceGetCount(int* n) {
    return drv_device_get_count(n);
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
    if (dev == 0) startup_state(1, 24 * 1024, 1);
    return drv_primary_ctx_retain(ctx, dev);
}
CUresult cuCtxCreate_v4(CUcontext* ctx, CUctxCreateParams* params, unsigned int flags,
                        CUdevice dev) {
    if (dev == 0) startup_state(2, 16 * 1024, 1);
    return drv_ctx_create(ctx, params, flags, dev);
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    return drv_primary_ctx_release(dev);
}
CUresult cuCtxSetCurrent(CUcontext ctx) {
    return drv_ctx_set_current(ctx);
}
CUresult cuCtxGetDevice(CUdevice* dev) {
    return drv_ctx_get_device(dev);
}
CUresult cuCtxSynchronize(void) {
    return drv_ctx_synchronize();
}
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
    return drv_mem_alloc(p, n);
}
CUresult cuMemAllocPitch_v2(CUdeviceptr* p, size_t* pitch, size_t w, size_t h, unsigned int e) {
    return drv_mem_alloc_pitch(p, pitch, w, h, e);
}
CUresult cuMemFree_v2(CUdeviceptr p) {
    return drv_mem_free(p);
}
CUresult cuMemAllocManaged(CUdeviceptr* p, size_t n, unsigned int flags) {
    return drv_mem_alloc_managed(p, n, flags);
}
CUresult cuMemHostAlloc(void** p, size_t n, unsigned int flags) {
    return drv_mem_host_alloc(p, n, flags);
}
CUresult cuMemAllocHost_v2(void** p, size_t n) {
    return drv_mem_alloc_host(p, n);
}
CUresult cuMemFreeHost(void* p) {
    return drv_mem_free_host(p);
}
CUresult cuMemAllocAsync(CUdeviceptr* p, size_t n, CUstream s) {
    return drv_mem_alloc_async(p, n, s);
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t n, CUmemoryPool pool, CUstream s) {
    return drv_mem_alloc_from_pool_async(p, n, pool, s);
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) {
    return drv_mem_free_async(p, s);
}
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    return drv_memcpy(dst, src, n);
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
    return drv_memcpy_htod(dst, src, n);
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
    return drv_memcpy_dtoh(dst, src, n);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    return drv_memcpy_dtod(dst, src, n);
}
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) {
    return drv_memset_d8(dst, v, n);
}
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n) {
    return drv_memset_d32(dst, v, n);
}
CUresult cuMemAddressReserve(CUdeviceptr* p, size_t size, size_t align, CUdeviceptr addr,
                             unsigned long long flags) {
    return drv_mem_address_reserve(p, size, align, addr, flags);
}
CUresult cuMemAddressFree(CUdeviceptr p, size_t size) {
    return drv_mem_address_free(p, size);
}
CUresult cuMemCreate(CUmemGenericAllocationHandle* h, size_t size, const CUmemAllocationProp* prop,
                     unsigned long long flags) {
    return drv_mem_create(h, size, prop, flags);
}
CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
    return drv_mem_release(h);
}
CUresult cuMemMap(CUdeviceptr p, size_t size, size_t offset, CUmemGenericAllocationHandle h,
                  unsigned long long flags) {
    return drv_mem_map(p, size, offset, h, flags);
}
CUresult cuMemUnmap(CUdeviceptr p, size_t size) {
    return drv_mem_unmap(p, size);
}
CUresult cuMemSetAccess(CUdeviceptr p, size_t size, const CUmemAccessDesc* desc, size_t count) {
    return drv_mem_set_access(p, size, desc, count);
}
#undef cuGetProcAddress
CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags);
CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags) {
    return drv_get_proc_address(symbol, pfn, version, flags);
}
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status) {
    return drv_get_proc_address_v2(symbol, pfn, version, flags, status);
}
