// SPDX-License-Identifier: GPL-2.0-or-later
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
    // Mappings: whether the handle was known when mapped (the mapping then
    // keeps its block alive), and the access cuMemSetAccess granted
    // (CUmemAccess_flags: 1 read, 3 read and write).
    bool counted;
    UChar prot;
};

// Reserved device address space (cuMemAddressReserve): no block and no live
// bytes, but the extent that copies into it must stay in; only its mapped
// pages are usable.
struct Reservation {
    Addr start;
    SizeT size;
    UInt device;
    ExeContext* reserved_at;
};

// Live ranges and reservations by address, for "which allocation holds this
// pointer". Neither overlaps its own kind, so "inside" is an order
// (mappings lie inside reservations, in the other set).
OSet* ranges;
OSet* reservations;

template <class Span> Word span_cmp(const void* key, const void* elem) {
    Addr k = *static_cast<const Addr*>(key);
    const Span* r = static_cast<const Span*>(elem);
    if (k < r->start) return -1;
    return k - r->start >= (r->size ? r->size : 1) ? 1 : 0;
}

Range* range_at(Addr a) {
    return static_cast<Range*>(VG_(OSetGen_Lookup)(ranges, &a));
}

// The first range that ends after a: the one holding it, or the next above.
Range* range_from(Addr a) {
    VG_(OSetGen_ResetIterAt)(ranges, &a);
    return static_cast<Range*>(VG_(OSetGen_Next)(ranges));
}

Addr range_end(const Range& r) {
    return r.start + (r.size ? r.size : 1);
}

Reservation* reservation_at(Addr a) {
    return static_cast<Reservation*>(VG_(OSetGen_Lookup)(reservations, &a));
}

void range_add(Addr start, SizeT size, bool mapping, UWord handle, bool counted = false) {
    while (Range* old = range_at(start))
        VG_(OSetGen_FreeNode)(ranges, VG_(OSetGen_Remove)(ranges, &old->start));
    auto* r = static_cast<Range*>(VG_(OSetGen_AllocNode)(ranges, sizeof(Range)));
    *r = Range{start, size, mapping, handle, counted, 0};
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

// Recently unmapped mappings and freed reservations, for the stacks of a
// later access there ("unmapped at", "freed at"). A slot whose range is
// mapped or reserved again is cleared.
struct VaGone {
    Addr start;
    SizeT size;
    ExeContext* reserved_at;
    ExeContext* gone_at; // null: a free slot
    bool reservation;
};
constexpr UInt kVaGone = 256;
VaGone va_gone[kVaGone];
UInt va_gone_next;

const VaGone* va_gone_at(Addr a, bool reservation) {
    for (const VaGone& g : va_gone)
        if (g.gone_at && g.reservation == reservation && a >= g.start && a - g.start < g.size)
            return &g;
    return nullptr;
}

void va_forget(Addr start, SizeT size) {
    for (VaGone& g : va_gone)
        if (g.gone_at && start < g.start + g.size && g.start < start + size) g.gone_at = nullptr;
}

void va_gone_add(ThreadId tid, Addr start, SizeT size, ExeContext* reserved_at, bool reservation) {
    va_gone[va_gone_next++ % kVaGone] =
        VaGone{start, size, reserved_at, VG_(record_ExeContext)(tid, 0), reservation};
}

// The mappings that start inside [lo, hi) go (cuMemUnmap takes whole ones);
// a physical allocation released by the program goes with its last mapping.
void unmap_range(ThreadId tid, Addr lo, Addr hi) {
    Addr at = lo;
    for (Range* r = range_from(at); r && r->start < hi; r = range_from(at)) {
        at = range_end(*r);
        if (!r->mapping || r->start < lo) continue;
        Range m = *r;
        reserve_release(m.start); // a mapping of the allocator's reserve
        range_remove(m.start);
        va_gone_add(tid, m.start, m.size, nullptr, false);
        Block* b = m.counted ? block_find(Table::vmm, m.handle) : nullptr;
        if (b && b->maps && --b->maps == 0 && b->released) {
            block_remove(Table::vmm, m.handle);
            dispose(tid, b, true);
        }
    }
}

void reserve(ThreadId tid, Addr start, SizeT size, UInt device) {
    if (size == 0) return;
    while (Reservation* old = reservation_at(start))
        VG_(OSetGen_FreeNode)(reservations, VG_(OSetGen_Remove)(reservations, &old->start));
    va_forget(start, size);
    auto* r = static_cast<Reservation*>(VG_(OSetGen_AllocNode)(reservations, sizeof(Reservation)));
    *r = Reservation{start, size, device, VG_(record_ExeContext)(tid, 0)};
    VG_(OSetGen_Insert)(reservations, r);
}

// cuMemAddressFree: the reservation goes, with whatever is still mapped in it.
void address_free(ThreadId tid, Addr start) {
    Reservation* r = reservation_at(start);
    if (!r || r->start != start) return;
    Reservation gone = *r;
    VG_(OSetGen_FreeNode)(reservations, VG_(OSetGen_Remove)(reservations, &start));
    unmap_range(tid, gone.start, gone.start + gone.size);
    va_gone_add(tid, gone.start, gone.size, gone.reserved_at, true);
}

// cuMemSetAccess over whole mappings.
void set_access(Addr lo, Addr hi, UChar prot) {
    for (Range* r = range_from(lo); r && r->start < hi; r = range_from(lo)) {
        lo = range_end(*r);
        if (r->mapping) r->prot = prot;
    }
}

DeviceSpan block_span(Addr start, SizeT size, const Site* site) {
    DeviceSpan span{start, size, Space::device, nullptr, nullptr, nullptr};
    if (site) {
        span.space = site->space;
        span.alloc_at = site_exe_context(site);
    }
    return span;
}

DeviceSpan reservation_span(Addr start, SizeT size, ExeContext* reserved_at, ExeContext* gone_at) {
    return DeviceSpan{start, size, Space::device, reserved_at, gone_at, "reservation"};
}

// A reservation, with where the mapping at `at` was last unmapped.
DeviceSpan reservation_span(const Reservation& r, Addr at) {
    const VaGone* g = va_gone_at(at, false);
    return reservation_span(r.start, r.size, r.reserved_at, g ? g->gone_at : nullptr);
}

// Checks [a, a + n) from the mapping or reservation holding a: inside the
// reservation res when it is known (else the mappings' extent), every byte
// mapped (by any number of mappings) with the access.
UWord va_access(ThreadId tid, Addr a, SizeT n, UInt access, UInt api, const Reservation* res) {
    Addr end = n > ~a ? ~Addr(0) : a + n;
    if (res && end - res->start > res->size) {
        report_device_overrun(tid, a, n, access, api, reservation_span(*res, a));
        return 0;
    }
    UChar need = access == MEMGROW_ACCESS_READ ? 1 : 2;
    const Range* last = nullptr;
    for (Addr x = a; x < end; x = range_end(*last)) {
        const Range* m = range_at(x);
        if (!m || !m->mapping) {
            if (!res) break;
            report_device_unmapped(tid, a, n, access, api, reservation_span(*res, x), x, false);
            return 0;
        }
        // (Outside a known reservation the access rights are unknown too.)
        if (res && !(m->prot & need)) {
            report_device_unmapped(tid, a, n, access, api, reservation_span(*res, x), x, true);
            return 0;
        }
        last = m;
    }
    if (range_end(*last) >= end) return 1;
    const Block* b = last->counted ? block_find(Table::vmm, last->handle) : nullptr;
    report_device_overrun(tid, a, n, access, api,
                          block_span(last->start, last->size, b ? b->site : nullptr));
    return 0;
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
    ranges = VG_(OSetGen_Create)(offsetof(Range, start), span_cmp<Range>, VG_(malloc),
                                 "mg.device.ranges", VG_(free));
    reservations = VG_(OSetGen_Create)(offsetof(Reservation, start), span_cmp<Reservation>,
                                       VG_(malloc), "mg.device.reservations", VG_(free));
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
    if (!vmm) va_forget(addr, size);
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
    va_forget(args[1], args[2]);
    if (reserve_map(args[1], args[2], args[3])) {
        range_add(args[1], args[2], true, args[3]);
        return;
    }
    // A handle from before tracking (or imported) has no block to keep
    // alive, but its pages are mapped all the same.
    Block* b = block_find(Table::vmm, args[3]);
    range_add(args[1], args[2], true, args[3], b != nullptr);
    if (b) b->maps++;
}

void device_unmap(const UWord* args) {
    unmap_range(VG_(get_running_tid)(), args[1], args[1] + args[2]);
}

void device_va(ThreadId tid, const UWord* args) {
    Addr a = args[2];
    SizeT size = args[3];
    switch (args[1]) {
    case MEMGROW_VA_RESERVE:
        reserve(tid, a, size, static_cast<UInt>(args[4]));
        break;
    case MEMGROW_VA_FREE:
        address_free(tid, a);
        break;
    case MEMGROW_VA_SET_ACCESS:
        set_access(a, a + size, static_cast<UChar>(args[4]));
        break;
    }
}

UWord device_access(ThreadId tid, const UWord* args) {
    Addr a = args[1];
    SizeT n = args[2];
    UInt access = static_cast<UInt>(args[3]), api = static_cast<UInt>(args[4]);
    if (n == 0) return 1;
    if (const Reservation* res = reservation_at(a)) return va_access(tid, a, n, access, api, res);
    if (const Range* r = range_at(a)) {
        if (r->mapping) return va_access(tid, a, n, access, api, nullptr);
        if (n <= r->size - (a - r->start)) return 1;
        const Block* b = block_find(Table::device, r->start);
        report_device_overrun(tid, a, n, access, api,
                              block_span(r->start, r->size, b ? b->site : nullptr));
        return 0;
    }
    if (const DeviceFreed* f = freed_containing(a)) {
        DeviceSpan span = block_span(f->addr, f->size, f->site);
        span.freed_at = f->freed_at;
        report_device_use_after_free(tid, a, n, access, api, span);
        return 0;
    }
    if (const VaGone* g = va_gone_at(a, true)) {
        report_device_use_after_free(
            tid, a, n, access, api,
            reservation_span(g->start, g->size, g->reserved_at, g->gone_at));
        return 0;
    }
    return 1; // memory memgrow does not know (host, or from an API it does not track)
}

DeviceSegment device_segment_at(Addr a) {
    DeviceSegment seg{};
    if (const Reservation* res = reservation_at(a)) {
        seg = DeviceSegment{
            DeviceSegment::reservation, res->start, res->size, res->device, 0, 0, nullptr};
        if (const Range* m = range_at(a); m && m->mapping) {
            seg.map_start = m->start;
            seg.map_size = m->size;
            seg.block = m->counted ? block_find(Table::vmm, m->handle) : nullptr;
        }
    } else if (const Range* r = range_at(a); r && !r->mapping) {
        const Block* b = block_find(Table::device, r->start);
        seg = DeviceSegment{
            DeviceSegment::allocation, r->start, r->size, b ? b->site->device : 0u, 0, 0, b};
    }
    return seg;
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
