/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stand-in tensor library (docs/cuda.md, "Probes"): a small caching
   allocator as PyTorch's, over the CUDA runtime (the stand-ins here), that
   announces each block through the same SDT probes as PyTorch's
   libc10_cuda.so: provider `pytorch`, `malloc` (ptr, device, size, stream)
   after a block is handed out and `free` (ptr) before it goes back, each
   behind a semaphore unless built with STANDIN_NO_SEMAPHORES; built with
   STANDIN_NO_PROBES it has none (a PyTorch built without SDT).

   Small requests (up to 1 MiB) are rounded to 512 bytes and carved from
   2 MiB segments, first fit; larger ones get a segment of their own,
   rounded to 2 MiB and cached by size when freed. allocated() and
   reserved() are its counters (PyTorch's memory_allocated() and
   memory_reserved()); empty_cache() gives unused segments back. With
   st_set_expandable(1) its segments are mapped into one reservation of
   virtual addresses (cuMemAddressReserve, cuMemCreate, cuMemMap), as
   PyTorch's expandable segments are, instead of cudaMalloc'd. Driven from
   Python through ctypes (tests/cuda/py_standin_torch.py). */
#ifndef STANDIN_NO_PROBES
#ifndef STANDIN_NO_SEMAPHORES
#define _SDT_HAS_SEMAPHORES 1
#endif
#include <sys/sdt.h>
#endif

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#ifndef STANDIN_NO_SEMAPHORES
/* As PyTorch's TORCH_SDT_DEFINE_SEMAPHORE: in .probes, counted by tracers. */
__extension__ unsigned short pytorch_malloc_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short pytorch_free_semaphore __attribute__((unused))
__attribute__((section(".probes")));
#define ENABLED(name) (pytorch_##name##_semaphore != 0)
#else
#define ENABLED(name) 1
#endif

#ifdef STANDIN_NO_PROBES /* a build without SDT, as ROCm's */
#define PROBE_MALLOC(ptr, device, size, stream) ((void)(ptr), (void)(device), (void)(stream))
#define PROBE_FREE(ptr) ((void)(ptr))
#else
#define PROBE_MALLOC(ptr, device, size, stream)                                                    \
    do {                                                                                           \
        if (ENABLED(malloc)) STAP_PROBE4(pytorch, malloc, ptr, device, size, stream);              \
    } while (0)
#define PROBE_FREE(ptr)                                                                            \
    do {                                                                                           \
        if (ENABLED(free)) STAP_PROBE1(pytorch, free, ptr);                                        \
    } while (0)
#endif

#define UNIT 512u
#define SMALL_MAX (1u << 20)
#define SMALL_SEGMENT (2u << 20)
#define UNITS (SMALL_SEGMENT / UNIT)
#define MAX_SEGMENTS 256
#define MAX_BLOCKS 8192

struct segment {
    char* base;
    size_t size;
    CUmemGenericAllocationHandle handle; /* expandable: its physical memory */
    int small;
    int in_use;                /* large: handed out */
    unsigned char used[UNITS]; /* small: units handed out */
};

struct block {
    char* ptr;
    size_t size; /* rounded */
    struct segment* seg;
};

static struct segment segments[MAX_SEGMENTS];
static struct block blocks[MAX_BLOCKS];
static size_t allocated_bytes, reserved_bytes;
static int current_device;
static int expandable;
static CUdeviceptr va_base;
static size_t va_used;
#define VA_SIZE (1ul << 28)

/* Where the probe reads its stream from memory, as PyTorch's does
   (`-8@-56(%rbp)`): the stream object lives on the stack. */
struct stream {
    long id;
};

static signed char __attribute__((noinline)) current_stream(struct stream* s) {
    s->id = 7;
    return (signed char)current_device;
}

/* The next addresses of the reservation, backed and mapped. */
static void* map_segment(size_t size, CUmemGenericAllocationHandle* h) {
    if (!va_base && cuMemAddressReserve(&va_base, VA_SIZE, 0, 0, 0) != CUDA_SUCCESS) return NULL;
    if (va_used + size > VA_SIZE) return NULL;
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = current_device;
    CUdeviceptr p = va_base + va_used;
    CUmemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, current_device},
                              CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    if (cuMemCreate(h, size, &prop, 0) != CUDA_SUCCESS) return NULL;
    if (cuMemMap(p, size, 0, *h, 0) != CUDA_SUCCESS ||
        cuMemSetAccess(p, size, &access, 1) != CUDA_SUCCESS) {
        cuMemRelease(*h);
        return NULL;
    }
    va_used += size;
    return (void*)p;
}

static struct segment* new_segment(size_t size, int small) {
    for (int i = 0; i < MAX_SEGMENTS; ++i)
        if (!segments[i].base) {
            void* p;
            CUmemGenericAllocationHandle h = 0;
            if (expandable ? !(p = map_segment(size, &h)) : cudaMalloc(&p, size) != cudaSuccess)
                return NULL;
            memset(&segments[i], 0, sizeof segments[i]);
            segments[i].handle = h;
            segments[i].base = p;
            segments[i].size = size;
            segments[i].small = small;
            reserved_bytes += size;
            return &segments[i];
        }
    return NULL;
}

static char* carve(struct segment* s, size_t units) {
    size_t run = 0;
    for (size_t u = 0; u < UNITS; ++u) {
        run = s->used[u] ? 0 : run + 1;
        if (run == units) {
            memset(&s->used[u + 1 - units], 1, units);
            return s->base + (u + 1 - units) * UNIT;
        }
    }
    return NULL;
}

static struct block* take(size_t rounded, struct segment** seg) {
    if (rounded <= SMALL_MAX) {
        for (int i = 0; i < MAX_SEGMENTS; ++i)
            if (segments[i].base && segments[i].small) {
                char* p = carve(&segments[i], rounded / UNIT);
                if (p) {
                    *seg = &segments[i];
                    for (int b = 0; b < MAX_BLOCKS; ++b)
                        if (!blocks[b].ptr) {
                            blocks[b] = (struct block){p, rounded, *seg};
                            return &blocks[b];
                        }
                    return NULL;
                }
            }
        if (!new_segment(SMALL_SEGMENT, 1)) return NULL;
        return take(rounded, seg);
    }
    struct segment* s = NULL;
    for (int i = 0; i < MAX_SEGMENTS && !s; ++i)
        if (segments[i].base && !segments[i].small && !segments[i].in_use &&
            segments[i].size == rounded)
            s = &segments[i];
    if (!s && !(s = new_segment(rounded, 0))) return NULL;
    s->in_use = 1;
    *seg = s;
    for (int b = 0; b < MAX_BLOCKS; ++b)
        if (!blocks[b].ptr) {
            blocks[b] = (struct block){s->base, rounded, s};
            return &blocks[b];
        }
    return NULL;
}

static struct block* find(const void* p) {
    for (int b = 0; b < MAX_BLOCKS; ++b)
        if (blocks[b].ptr == p) return &blocks[b];
    return NULL;
}

void st_set_expandable(int on) {
    expandable = on;
}

void st_set_device(int device) {
    current_device = device;
    cudaSetDevice(device);
}

void* st_malloc(size_t size) {
    if (size == 0) return NULL;
    size_t rounded = size <= SMALL_MAX ? (size + UNIT - 1) / UNIT * UNIT
                                       : (size + SMALL_SEGMENT - 1) / SMALL_SEGMENT * SMALL_SEGMENT;
    struct segment* seg;
    struct block* b = take(rounded, &seg);
    if (!b) return NULL;
    allocated_bytes += b->size;
    void* ptr = b->ptr;
    struct stream stream;
    signed char device = current_stream(&stream);
    PROBE_MALLOC(ptr, device, size, stream.id);
    return ptr;
}

void st_free(void* ptr) {
    struct block* b = find(ptr);
    if (!b || !ptr) return;
    PROBE_FREE(ptr);
    struct segment* s = b->seg;
    if (s->small)
        memset(&s->used[(b->ptr - s->base) / UNIT], 0, b->size / UNIT);
    else
        s->in_use = 0;
    allocated_bytes -= b->size;
    b->ptr = NULL;
}

/* The block's size as allocated() counts it; 0 for an unknown pointer. */
size_t st_block_size(const void* ptr) {
    struct block* b = find(ptr);
    return b && ptr ? b->size : 0;
}

size_t st_allocated(void) {
    return allocated_bytes;
}

size_t st_reserved(void) {
    return reserved_bytes;
}

/* Gives the segments no block uses back to CUDA. */
void st_empty_cache(void) {
    for (int i = 0; i < MAX_SEGMENTS; ++i) {
        struct segment* s = &segments[i];
        if (!s->base) continue;
        int busy = s->small ? memchr(s->used, 1, UNITS) != NULL : s->in_use;
        if (busy) continue;
        if (expandable) {
            cuMemUnmap((CUdeviceptr)s->base, s->size);
            cuMemRelease(s->handle);
        } else {
            cudaFree(s->base);
        }
        reserved_bytes -= s->size;
        s->base = NULL;
    }
}

/* Fills a block (a kernel's work here: a memset the wrappers check). */
int st_fill(void* ptr, int value, size_t n) {
    return cudaMemset(ptr, value, n) == cudaSuccess ? 0 : -1;
}
