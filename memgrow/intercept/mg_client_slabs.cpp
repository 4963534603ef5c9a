// SPDX-License-Identifier: GPL-2.0-or-later
// Small client blocks come from slabs, one run of equal slots per size
// class, instead of the core's arena. Why: a freed block leaves the
// quarantine 20 MB of frees later, when its memory is cold, and the arena
// then reads its header, its neighbours' headers and their free-list links
// to merge them: a quarter of a malloc-heavy run went there. Here a block
// goes back by pushing its address on its class's stack, in tool memory; the
// client's memory is not touched until the block is handed out again (and a
// client writing into freed memory cannot corrupt the free lists).
//
// A slot is [leading redzone][payload rounded up to 16]; the next slot's
// leading redzone is this one's trailing redzone, and a slab ends with one
// more. Slabs are blocks of the core's client arena, so the leak scan skips
// them as roots (client-heap segments) like the arena's other memory. They
// are never given back: a program that frees all its blocks of one size
// keeps their memory for that size (bounded by its peak per class).
#include "intercept/mg_client_slabs.hpp"
#include "mg_options.hpp"

namespace mg {

namespace {

constexpr SizeT kMaxSmall = 1024; // bytes of payload; larger blocks use the arena
constexpr SizeT kGrain = 16;      // payload alignment and size step
constexpr UInt kClasses = kMaxSmall / kGrain;
constexpr SizeT kSlabBytes = 256 * 1024;
constexpr SizeT kMaxRedzone = 128; // larger --redzone-size values use the arena

struct SizeClass {
    Addr cur = 0, end = 0; // the part of the newest slab not carved yet
    Addr* free = nullptr;  // slot payloads given back, a stack
    UInt n_free = 0, cap_free = 0;
};

struct Slab {
    Addr start;
    UInt cls;
};

SizeClass classes[kClasses];
Slab* slabs = nullptr;
UInt n_slabs = 0, cap_slabs = 0;
SizeT lead = ~SizeT(0); // the leading redzone, fixed at the first block

SizeT round_up(SizeT n) {
    return (n + kGrain - 1) & ~(kGrain - 1);
}

// The core's client redzone: --redzone-size, else 16 where accesses are
// checked (heap_post_options) and none in the growth hunt.
SizeT leading_redzone() {
    if (lead == ~SizeT(0)) {
        SizeT rz = VG_(clo_redzone_size) >= 0 ? static_cast<SizeT>(VG_(clo_redzone_size))
                   : clo.addressability       ? 16
                                              : 0;
        lead = round_up(rz);
    }
    return lead;
}

UInt class_of(SizeT size) {
    return static_cast<UInt>(round_up(size ? size : 1) / kGrain - 1);
}

SizeT payload_of(UInt cls) {
    return (cls + 1) * kGrain;
}

template <typename T> void grow(T** array, UInt* cap, const HChar* cc) {
    UInt n = *cap ? *cap * 2 : 64;
    *array = static_cast<T*>(VG_(realloc)(cc, *array, n * sizeof(T)));
    *cap = n;
}

bool new_slab(UInt cls) {
    void* p = VG_(cli_malloc)(kGrain, kSlabBytes);
    if (!p) return false;
    if (n_slabs == cap_slabs) grow(&slabs, &cap_slabs, "mg.slabs");
    slabs[n_slabs++] = Slab{reinterpret_cast<Addr>(p), cls};
    SizeClass& c = classes[cls];
    c.cur = reinterpret_cast<Addr>(p);
    c.end = c.cur + kSlabBytes;
    return true;
}

} // namespace

bool slab_fits(SizeT size, SizeT align) {
    return size <= kMaxSmall && align <= kGrain && VG_(clo_alignment) <= kGrain &&
           leading_redzone() <= kMaxRedzone;
}

void* slab_alloc(SizeT size) {
    UInt cls = class_of(size);
    SizeClass& c = classes[cls];
    if (c.n_free) return reinterpret_cast<void*>(c.free[--c.n_free]);
    SizeT rz = leading_redzone(), stride = rz + payload_of(cls);
    // The last slot keeps a trailing redzone inside the slab.
    if (c.cur + stride + rz > c.end && !new_slab(cls)) return nullptr;
    Addr p = c.cur + rz;
    c.cur += stride;
    return reinterpret_cast<void*>(p);
}

void slab_free(Addr a, SizeT size) {
    SizeClass& c = classes[class_of(size)];
    if (c.n_free == c.cap_free) grow(&c.free, &c.cap_free, "mg.slabs.free");
    c.free[c.n_free++] = a;
}

void slabs_forget_free_slots() {
    for (SizeClass& c : classes) {
        if (c.free) VG_(free)(c.free);
        c.free = nullptr;
        c.n_free = c.cap_free = 0;
    }
}

bool slab_describe(Addr a, AddrInfo* ai) {
    for (UInt i = 0; i < n_slabs; ++i) {
        const Slab& s = slabs[i];
        if (a < s.start || a >= s.start + kSlabBytes) continue;
        SizeT rz = leading_redzone(), size = payload_of(s.cls), stride = rz + size;
        // The slot whose payload or leading redzone holds a.
        Addr payload = s.start + rz + (a - s.start) / stride * stride;
        ai->tag = Addr_Block;
        ai->Addr.Block.block_kind = Block_ClientArenaFree;
        ai->Addr.Block.block_desc = "client";
        ai->Addr.Block.block_szB = size;
        ai->Addr.Block.rwoffset = static_cast<PtrdiffT>(a - payload);
        ai->Addr.Block.allocated_at = VG_(null_ExeContext)();
        VG_(initThreadInfo)(&ai->Addr.Block.alloc_tinfo);
        ai->Addr.Block.freed_at = VG_(null_ExeContext)();
        return true;
    }
    return false;
}

} // namespace mg
