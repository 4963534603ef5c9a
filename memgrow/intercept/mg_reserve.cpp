// SPDX-License-Identifier: GPL-2.0-or-later
#include "intercept/mg_reserve.hpp"
#include "intercept/mg_sdt.hpp"
#include "classify/mg_analysis.hpp"
#include "core/json_writer.hpp"
#include "records/mg_blocks.hpp"
#include "records/mg_timeline.hpp"
extern "C" {
#include "pub_tool_oset.h"
}

namespace mg {

namespace {

// PyTorch's allocator rounds each request to 512 bytes (kMinBlockSize) and
// counts the rounded block in memory_allocated(); the probe passes the
// request. A block handed out whole though larger than that (a cached large
// block split only when more than 1 MiB would remain) counts more there.
constexpr SizeT kRounding = 512;
constexpr UInt kMaxDevices = 16;
constexpr UInt kStackDepth = 16;

struct Segment {
    Addr start;
    SizeT size;
    UInt device;
};

OSet* segments; // by start; they do not overlap

Word segment_cmp(const void* key, const void* elem) {
    Addr k = *static_cast<const Addr*>(key);
    const Segment* s = static_cast<const Segment*>(elem);
    if (k < s->start) return -1;
    return k - s->start >= s->size ? 1 : 0;
}

Segment* segment_at(Addr a) {
    return segments ? static_cast<Segment*>(VG_(OSetGen_Lookup)(segments, &a)) : nullptr;
}

// Per device: the tensors' bytes and the reserve's, by run-clock bucket and
// by mark bucket.
struct DeviceSeries {
    SiteSeries allocated, reserved, allocated_marks, reserved_marks;
};
DeviceSeries* devices[kMaxDevices];

struct Stats {
    ULong tensors, frees, unknown_frees, outside, clashes, segments, released;
} stats;

void account(UInt device, i64 tensors, i64 reserve) {
    if (device >= kMaxDevices || tl.torn_down) return;
    DeviceSeries*& d = devices[device];
    if (!d) {
        d = static_cast<DeviceSeries*>(VG_(calloc)("mg.reserve.series", 1, sizeof(DeviceSeries)));
        d->allocated.clear(), d->reserved.clear();
        d->allocated_marks.clear(), d->reserved_marks.clear();
    }
    if (tensors) {
        d->allocated.add(tl.run, tensors);
        d->allocated_marks.add(tl.marks, tensors);
    }
    if (reserve) {
        d->reserved.add(tl.run, reserve);
        d->reserved_marks.add(tl.marks, reserve);
    }
}

void write_series(JsonWriter& w, const HChar* name, const SiteSeries& s, UInt n) {
    w.key(name);
    w.begin_array();
    for (UInt i = 0; i < n; ++i)
        w.integer(s.live_end[i]);
    w.end_array();
}

} // namespace

void tensor_probe_malloc(ThreadId tid, const ULong* args) {
    Addr ptr = args[0];
    UInt device = static_cast<UInt>(args[1]);
    SizeT size = args[2];
    if (!ptr || !size) return;
    SizeT bytes = (size + kRounding - 1) / kRounding * kRounding;
    // Clipped to its segment: without caching the segment is the request.
    if (const Segment* seg = segment_at(ptr)) {
        if (bytes > seg->start + seg->size - ptr) bytes = seg->start + seg->size - ptr;
    } else {
        ++stats.outside; // a segment taken before memgrow knew the allocator
    }
    if (Block* old = block_find(Table::device, ptr)) {
        if (old->api != kApiAllocatorProbe) {
            ++stats.clashes; // a plain allocation of the allocator's: it stays the block
            return;
        }
        block_remove(Table::device, ptr); // its free was not seen
        timeline_free(old->site, old->size);
        account(old->site->device, -static_cast<i64>(old->size), 0);
        block_dispose(old);
    }
    Site* s = site_of_current_stack(tid, Space::device, device);
    Block* b = block_new(Table::device, ptr, bytes, s, AllocKind::device);
    b->api = kApiAllocatorProbe;
    b->birth = clock_end();
    timeline_alloc(s, bytes);
    account(s->device, static_cast<i64>(bytes), 0);
    ++stats.tensors;
}

void tensor_probe_free(ThreadId, const ULong* args) {
    Addr ptr = args[0];
    Block* b = block_find(Table::device, ptr);
    if (!b || b->api != kApiAllocatorProbe) {
        if (ptr) ++stats.unknown_frees;
        return;
    }
    block_remove(Table::device, ptr);
    timeline_free(b->site, b->size);
    account(b->site->device, -static_cast<i64>(b->size), 0);
    block_dispose(b);
    ++stats.frees;
}

namespace {

// Whether the code of an allocator with probes is on tid's stack now.
bool allocator_calling(ThreadId tid) {
    Addr ips[kStackDepth];
    UInt n = VG_(get_StackTrace)(tid, ips, kStackDepth, nullptr, nullptr, 0);
    for (UInt i = 0; i < n; ++i)
        if (sdt_allocator_code(ips[i])) return true;
    return false;
}

void add_segment(Addr a, SizeT size, UInt device) {
    if (!segments)
        segments = VG_(OSetGen_Create)(offsetof(Segment, start), segment_cmp, VG_(malloc),
                                       "mg.reserve.segments", VG_(free));
    while (Segment* old = segment_at(a)) { // the driver reused it unseen
        account(old->device, 0, -static_cast<i64>(old->size));
        VG_(OSetGen_FreeNode)(segments, VG_(OSetGen_Remove)(segments, &old->start));
    }
    auto* s = static_cast<Segment*>(VG_(OSetGen_AllocNode)(segments, sizeof(Segment)));
    *s = Segment{a, size, device};
    VG_(OSetGen_Insert)(segments, s);
    account(device, 0, static_cast<i64>(size));
    ++stats.segments;
}

// The reserve's physical allocations (cuMemCreate handles), by handle.
struct Handle {
    UWord handle;
    UInt device;
};
OSet* handles;

Word handle_cmp(const void* key, const void* elem) {
    UWord k = *static_cast<const UWord*>(key), h = static_cast<const Handle*>(elem)->handle;
    return k < h ? -1 : k > h ? 1 : 0;
}

Handle* handle_of(UWord h) {
    return handles ? static_cast<Handle*>(VG_(OSetGen_Lookup)(handles, &h)) : nullptr;
}

} // namespace

bool reserve_take(ThreadId tid, Addr a, SizeT size, UInt device) {
    if (size == 0 || !allocator_calling(tid)) return false;
    add_segment(a, size, device);
    return true;
}

bool reserve_take_handle(ThreadId tid, UWord handle, UInt device) {
    if (!allocator_calling(tid)) return false;
    if (!handles)
        handles = VG_(OSetGen_Create)(offsetof(Handle, handle), handle_cmp, VG_(malloc),
                                      "mg.reserve.handles", VG_(free));
    if (Handle* old = handle_of(handle)) {
        old->device = device;
        return true;
    }
    auto* h = static_cast<Handle*>(VG_(OSetGen_AllocNode)(handles, sizeof(Handle)));
    *h = Handle{handle, device};
    VG_(OSetGen_Insert)(handles, h);
    return true;
}

bool reserve_map(Addr va, SizeT size, UWord handle) {
    const Handle* h = handle_of(handle);
    if (!h || size == 0) return false;
    add_segment(va, size, h->device);
    return true;
}

bool reserve_forget_handle(UWord handle) {
    if (!handle_of(handle)) return false;
    VG_(OSetGen_FreeNode)(handles, VG_(OSetGen_Remove)(handles, &handle));
    return true;
}

bool reserve_release(Addr a) {
    Segment* s = segment_at(a);
    if (!s || s->start != a) return false;
    account(s->device, 0, -static_cast<i64>(s->size));
    VG_(OSetGen_FreeNode)(segments, VG_(OSetGen_Remove)(segments, &a));
    ++stats.released;
    return true;
}

void reserve_write_json(JsonWriter& w, const Analysis& a) {
    bool any = false;
    for (DeviceSeries* d : devices)
        any |= d != nullptr;
    if (!any) return;
    w.key("device_memory");
    w.begin_array();
    for (UInt dev = 0; dev < kMaxDevices; ++dev) {
        DeviceSeries* d = devices[dev];
        if (!d) continue;
        d->allocated.sync(tl.run), d->reserved.sync(tl.run);
        d->allocated_marks.sync(tl.marks), d->reserved_marks.sync(tl.marks);
        w.begin_object();
        w.member_u("device", dev);
        w.member_u("allocated_bytes", static_cast<ULong>(d->allocated.live));
        w.member_u("reserved_bytes", static_cast<ULong>(d->reserved.live));
        write_series(w, "allocated", d->allocated, a.n_buckets);
        write_series(w, "reserved", d->reserved, a.n_buckets);
        write_series(w, "mark_allocated", d->allocated_marks, a.n_mark_buckets);
        write_series(w, "mark_reserved", d->reserved_marks, a.n_mark_buckets);
        w.end_object();
    }
    w.end_array();
}

void reserve_print(const Analysis&) {
    for (UInt dev = 0; dev < kMaxDevices; ++dev) {
        const DeviceSeries* d = devices[dev];
        if (!d) continue;
        ULong reserved = static_cast<ULong>(d->reserved.live);
        ULong allocated = static_cast<ULong>(d->allocated.live);
        VG_(umsg)
        ("    device %u: the allocator's reserve %'llu bytes, its blocks %'llu bytes, "
         "cached or fragmented %'llu bytes (no line's growth)\n",
         dev, reserved, allocated, reserved > allocated ? reserved - allocated : 0);
    }
}

void reserve_print_stats() {
    if (!stats.tensors && !stats.segments) return;
    VG_(umsg)
    ("memgrow: allocator probes: %'llu blocks, %'llu freed, %'llu frees of unknown pointers, "
     "%'llu outside any segment, %'llu at a plain allocation; %'llu reserve segments, %'llu "
     "released\n",
     stats.tensors, stats.frees, stats.unknown_frees, stats.outside, stats.clashes, stats.segments,
     stats.released);
}

} // namespace mg
