/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An expandable segment as PyTorch's allocator makes one
   (expandable_segments:True): a 64 MiB reservation of address space, 2 MiB
   physical chunks mapped into it one after another and kept, one slot mapped
   and unmapped again, the driver's virtual-memory calls fetched as PyTorch
   fetches them (cudaGetDriverEntryPointByVersion, which reaches the driver's
   cuGetProcAddress). Copies across two chunks are valid; a copy into a
   reserved but unmapped chunk, into a chunk mapped without access, past the
   reservation, after an unmap and after the reservation is freed fail. The
   program checks that each call did what it should and exits 1 if one did
   not. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

#define CHUNK (2ul << 20)
#define SLOTS 32ul
#define RESERVE (SLOTS * CHUNK) /* 64 MiB */
#define KEPT 24ul               /* chunks mapped and kept */
#define NO_ACCESS_SLOT 30ul
#define CHURN_SLOT 31ul /* the last chunk: mapped and unmapped again */
#define PAGE 4096ul

static CUresult (*address_reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long);
static CUresult (*address_free)(CUdeviceptr, size_t);
static CUresult (*mem_create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                              unsigned long long);
static CUresult (*mem_release)(CUmemGenericAllocationHandle);
static CUresult (*mem_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                           unsigned long long);
static CUresult (*mem_unmap)(CUdeviceptr, size_t);
static CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t);
static CUresult (*memcpy_dtod)(CUdeviceptr, CUdeviceptr, size_t);

static int unexpected;
static CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                   .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
static const CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, 0},
                                   CU_MEM_ACCESS_FLAGS_PROT_READWRITE};

static void expect(int ok, int line) {
    if (!ok) {
        printf("expandable: line %d did not do what it should\n", line);
        unexpected++;
    }
}
#define OK(call) expect((call) == 0, __LINE__)
#define FAILS(call) expect((call) != 0, __LINE__)

static int fetch(const char* name, void* fn) {
    enum cudaDriverEntryPointQueryResult q;
    return cudaGetDriverEntryPointByVersion(name, (void**)fn, 12000, cudaEnableDefault, &q) ==
               cudaSuccess &&
           q == cudaDriverEntryPointSuccess;
}

/* Maps a new chunk at va; its handle goes at once (the mapping keeps it). */
static void map_chunk(CUmemGenericAllocationHandle h, CUdeviceptr va, int access) {
    OK(mem_map(va, CHUNK, 0, h, 0));
    if (access) OK(set_access(va, CHUNK, &rw, 1));
    OK(mem_release(h));
}

int main(void) {
    static char host[4 * PAGE];
    if (!fetch("cuMemAddressReserve", &address_reserve) ||
        !fetch("cuMemAddressFree", &address_free) || !fetch("cuMemCreate", &mem_create) ||
        !fetch("cuMemRelease", &mem_release) || !fetch("cuMemMap", &mem_map) ||
        !fetch("cuMemUnmap", &mem_unmap) || !fetch("cuMemSetAccess", &set_access) ||
        !fetch("cuMemcpyDtoD", &memcpy_dtod))
        return 1;
    CUdeviceptr va;
    OK(address_reserve(&va, RESERVE, 0, 0, 0)); /* RESERVE_HERE */
    CUdeviceptr churn = va + CHURN_SLOT * CHUNK;
    for (unsigned long i = 0; i < KEPT; i++) {
        CUmemGenericAllocationHandle h;
        OK(mem_create(&h, CHUNK, &prop, 0)); /* KEPT_HERE */
        map_chunk(h, va + i * CHUNK, 1);
        OK(mem_create(&h, CHUNK, &prop, 0)); /* CHURN_HERE */
        map_chunk(h, churn, 1);
        OK(cudaMemset((void*)churn, 0, PAGE));
        OK(mem_unmap(churn, CHUNK));
    }

    /* Across the boundaries of chunks 0, 1 and 2: valid. */
    OK(cudaMemcpy((void*)(va + CHUNK - PAGE), host, 2 * PAGE, cudaMemcpyHostToDevice));
    OK(cudaMemcpyAsync((void*)(va + 3 * CHUNK - PAGE), (void*)(va + CHUNK - PAGE), 2 * PAGE,
                       cudaMemcpyDeviceToDevice, 0));
    OK(memcpy_dtod(va + 2 * CHUNK - PAGE, va + 3 * CHUNK - PAGE, 2 * PAGE));
    OK(cudaMemcpy(host, (void*)(va + 2 * CHUNK - PAGE), 2 * PAGE, cudaMemcpyDeviceToHost));

    /* From the last kept chunk into the reserved but unmapped one after it. */
    void* last = (void*)(va + KEPT * CHUNK - PAGE);
    FAILS(cudaMemcpy(last, host, 2 * PAGE, cudaMemcpyHostToDevice)); /* UNMAPPED_HERE */
    /* A chunk mapped without cuMemSetAccess. */
    CUmemGenericAllocationHandle h;
    OK(mem_create(&h, CHUNK, &prop, 0));
    map_chunk(h, va + NO_ACCESS_SLOT * CHUNK, 0);
    FAILS(cudaMemset((void*)(va + NO_ACCESS_SLOT * CHUNK), 0, PAGE)); /* NO_ACCESS_HERE */
    OK(mem_unmap(va + NO_ACCESS_SLOT * CHUNK, CHUNK));
    /* Past the end of the reservation, its last chunk mapped. */
    OK(mem_create(&h, CHUNK, &prop, 0));
    map_chunk(h, churn, 1);
    FAILS(memcpy_dtod(va + RESERVE - PAGE, va, 2 * PAGE)); /* PAST_END_HERE */
    OK(mem_unmap(churn, CHUNK));                           /* UNMAP_HERE */
    /* After the unmap. */
    FAILS(cudaMemset((void*)churn, 0, PAGE)); /* AFTER_UNMAP_HERE */

    /* A second reservation, freed. */
    CUdeviceptr gone;
    OK(address_reserve(&gone, 4 * CHUNK, 0, 0, 0));
    OK(mem_create(&h, CHUNK, &prop, 0));
    map_chunk(h, gone, 1);
    OK(mem_unmap(gone, CHUNK));
    OK(address_free(gone, 4 * CHUNK));       /* ADDRESS_FREE_HERE */
    FAILS(cudaMemset((void*)gone, 0, PAGE)); /* AFTER_FREE_HERE */

    printf("expandable: %d unexpected results\n", unexpected);
    return unexpected != 0;
}
