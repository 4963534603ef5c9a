#include "intercept/mg_device.hpp"
#include "intercept/mg_reserve.hpp"
#include "records/mg_blocks.hpp"
#include "checks/mg_errors.hpp"
#include "mg_options.hpp"
#include "records/mg_timeline.hpp"
#include "include/memgrow.h"
extern "C" {
#include "pub_tool_oset.h"
}

namespace mg {

namespace {

// A live device-side range: an allocation (keyed in Table::device by its
// start) or a virtual-memory mapping of a physical allocation (`handle`).
struct Range {
    Addr start;
    SizeT size;
    bool mapping;
    UWord handle;
};

// Live ranges by address, for "which allocation holds this pointer".
// Ranges do not overlap, so "inside" is an order.
OSet* ranges;

Word range_cmp(const void* key, const void* elem) {
    Addr k = *static_cast<const Addr*>(key);
    const Range* r = static_cast<const Range*>(elem);
    if (k < r->start) return -1;
    return k - r->start >= (r->size ? r->size : 1) ? 1 : 0;
}

Range* range_at(Addr a) {
    return static_cast<Range*>(VG_(OSetGen_Lookup)(ranges, &a));
}

void range_add(Addr start, SizeT size, bool mapping, UWord handle) {
    while (Range* old = range_at(start))
        VG_(OSetGen_FreeNode)(ranges, VG_(OSetGen_Remove)(ranges, &old->start));
    auto* r = static_cast<Range*>(VG_(OSetGen_AllocNode)(ranges, sizeof(Range)));
    *r = Range{start, size, mapping, handle};
    VG_(OSetGen_Insert)(ranges, r);
}

void range_remove(Addr start) {
    if (Range* r = range_at(start); r && r->start == start)
        VG_(OSetGen_FreeNode)(ranges, VG_(OSetGen_Remove)(ranges, &start));
}

// Recently freed device-side blocks, to tell a double free from an unknown
// pointer and a copy into freed memory from one into unknown memory. A slot
// whose range is handed out again is cleared.
constexpr UInt kQuarantine = 1024;
DeviceFreed quarantine[kQuarantine];
UInt quarantine_next;

const DeviceFreed* freed_exact(Addr a, bool vmm) {
    for (const DeviceFreed& f : quarantine)
        if (f.site && f.addr == a && f.vmm == vmm) return &f;
    return nullptr;
}

const DeviceFreed* freed_containing(Addr a) {
    for (const DeviceFreed& f : quarantine)
        if (f.site && !f.vmm && a >= f.addr && a - f.addr < f.size) return &f;
    return nullptr;
}

void forget_freed(Addr a, SizeT size, bool vmm) {
    for (DeviceFreed& f : quarantine)
        if (f.site && f.vmm == vmm && a < f.addr + (f.size ? f.size : 1) && f.addr < a + size)
            f.site = nullptr;
}

// The free's stack, for a later double free or use after free.
void dispose(ThreadId tid, Block* b, bool vmm) {
    timeline_free(b->site, b->size);
    DeviceFreed& f = quarantine[quarantine_next++ % kQuarantine];
    f = DeviceFreed{b->addr, b->size, b->site, VG_(record_ExeContext)(tid, 0), vmm};
    block_dispose(b);
}

// The CUDA wrappers active on each thread: only the outermost reports.
// (VG_N_THREADS is known once the options are.)
UInt* wrapper_depth;

bool pinned(UWord space) {
    return space == MEMGROW_SPACE_PINNED;
}

// A segment of an allocator whose blocks come from its probes is its
// reserve (intercept/mg_reserve.hpp): a range for the checks, no block; a
// physical allocation of it (expandable segments) no block either, its
// mappings the segments. Stream-ordered allocations are not segments:
// PyTorch's cudaMallocAsync backend, in the same library, hands each one
// out as it is, unprobed.
bool reserve_segment(ThreadId tid, const UWord* args) {
    UInt device = static_cast<UInt>(args[4]);
    if (args[3] != MEMGROW_SPACE_DEVICE || args[5] == MEMGROW_API_ASYNC) return false;
    if (args[5] == MEMGROW_API_VMM) return reserve_take_handle(tid, args[1], device);
    if (!reserve_take(tid, args[1], args[2], device)) return false;
    range_add(args[1], args[2], false, 0);
    return true;
}

} // namespace

void device_init() {
    ranges = VG_(OSetGen_Create)(offsetof(Range, start), range_cmp, VG_(malloc), "mg.device.ranges",
                                 VG_(free));
}

void device_alloc(ThreadId tid, const UWord* args) {
    Addr addr = args[1];
    SizeT size = args[2];
    UWord space = args[3];
    if (space < MEMGROW_SPACE_DEVICE || space > MEMGROW_SPACE_PINNED || addr == 0) return;
    bool vmm = args[5] == MEMGROW_API_VMM;
    Table t = vmm ? Table::vmm : Table::device;
    // A registration for an address already live replaces it (the driver
    // reused it without our seeing the free).
    if (Block* old = block_remove(t, addr)) {
        timeline_free(old->site, old->size);
        block_dispose(old);
    }
    forget_freed(addr, size, vmm);
    if (reserve_segment(tid, args)) return;
    Site* s = site_of_current_stack(tid, static_cast<Space>(space), static_cast<UInt>(args[4]));
    Block* b = block_new(t, addr, size, s, AllocKind::device);
    b->api = static_cast<UChar>(args[5]);
    b->birth = clock_end();
    timeline_alloc(s, size);
    if (!vmm) range_add(addr, size, false, 0);
}

UWord device_free(ThreadId tid, const UWord* args) {
    Addr addr = args[1];
    UWord space = args[2], api = args[3];
    bool vmm = api == MEMGROW_API_VMM;
    Table t = vmm ? Table::vmm : Table::device;
    if (!vmm && reserve_release(addr)) { // before any block that starts there
        range_remove(addr);
        return 1;
    }
    if (vmm && reserve_forget_handle(addr)) return 1;
    Block* b = block_find(t, addr);
    if (!b || (vmm && b->released)) {
        if (const DeviceFreed* f = freed_exact(addr, vmm))
            report_device_double_free(tid, addr, static_cast<UInt>(api), *f);
        else
            report_device_invalid_free(tid, addr, static_cast<UInt>(api));
        return 0;
    }
    // cudaFree/cuMemFree take device and managed memory, cudaFreeHost and
    // cuMemFreeHost pinned memory: the other way round the call fails.
    if (!vmm && pinned(space) != (b->site->space == Space::pinned)) {
        report_device_mismatched_free(tid, addr, static_cast<UInt>(api), *b);
        return 0;
    }
    if (vmm && b->maps) {
        b->released = 1; // lives on until its last mapping goes
        return 1;
    }
    block_remove(t, addr);
    if (!vmm) range_remove(addr);
    dispose(tid, b, vmm);
    return 1;
}

void device_map(const UWord* args) {
    if (reserve_map(args[1], args[2], args[3])) {
        range_add(args[1], args[2], true, args[3]);
        return;
    }
    Block* b = block_find(Table::vmm, args[3]);
    if (!b) return; // a handle from before tracking (or imported): no block to keep alive
    range_add(args[1], args[2], true, args[3]);
    b->maps++;
}

void device_unmap(const UWord* args) {
    Addr lo = args[1], hi = args[1] + args[2];
    // The mappings that start inside the range go (cuMemUnmap takes whole ones).
    for (Addr a = lo; a < hi;) {
        Range* r = range_at(a);
        if (!r) {
            a += VKI_PAGE_SIZE - (a % VKI_PAGE_SIZE);
            continue;
        }
        Addr next = r->start + (r->size ? r->size : 1);
        if (r->mapping && r->start >= lo) {
            UWord handle = r->handle;
            reserve_release(r->start);
            range_remove(r->start);
            Block* b = block_find(Table::vmm, handle);
            if (b && b->maps && --b->maps == 0 && b->released) {
                block_remove(Table::vmm, handle);
                dispose(VG_(get_running_tid)(), b, true);
            }
        }
        a = next;
    }
}

UWord device_access(ThreadId tid, const UWord* args) {
    Addr a = args[1];
    SizeT n = args[2];
    UInt access = static_cast<UInt>(args[3]), api = static_cast<UInt>(args[4]);
    if (n == 0) return 1;
    if (const Range* r = range_at(a)) {
        if (n <= r->size - (a - r->start)) return 1;
        const Block* b =
            block_find(r->mapping ? Table::vmm : Table::device, r->mapping ? r->handle : r->start);
        report_device_overrun(tid, a, n, access, api, r->start, r->size, b ? b->site : nullptr);
        return 0;
    }
    if (const DeviceFreed* f = freed_containing(a)) {
        report_device_use_after_free(tid, a, n, access, api, *f);
        return 0;
    }
    return 1; // memory memgrow does not know (host, or from an API it does not track)
}

bool device_in_call(ThreadId tid) {
    return wrapper_depth && tid < VG_N_THREADS && wrapper_depth[tid] > 0;
}

UWord device_tracking(ThreadId tid, UWord scope) {
    if (!clo.cuda) return 0;
    if (scope == MEMGROW_CUDA_IS_ON || tid >= VG_N_THREADS) return 1;
    if (!wrapper_depth)
        wrapper_depth =
            static_cast<UInt*>(VG_(calloc)("mg.device.depth", VG_N_THREADS, sizeof(UInt)));
    if (scope == MEMGROW_CUDA_STARTUP_BEGIN || scope == MEMGROW_CUDA_STARTUP_END) {
        timeline_device_startup(scope == MEMGROW_CUDA_STARTUP_BEGIN);
        return 1;
    }
    UInt& depth = wrapper_depth[tid];
    if (scope == MEMGROW_CUDA_ENTER)
        depth++;
    else if (scope == MEMGROW_CUDA_LEAVE && depth)
        depth--;
    return depth == 0 ? 1 : 0;
}

} // namespace mg
