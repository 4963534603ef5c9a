// SPDX-License-Identifier: GPL-2.0-or-later
#include "intercept/mg_heap_guard.hpp"
#include "checks/mg_abits.hpp"

// The core's description of an address in its arenas (pub_core_mallocfree.h,
// the same from Valgrind 3.9 to 3.27): the block holding it and where in it.
struct AddrArenaInfo {
    Int aid;
    const HChar* name; // null: in no arena's blocks
    SizeT block_szB;
    PtrdiffT rwoffset;
    Bool free;
};
extern "C" void VG_(describe_arena_addr)(Addr a, AddrArenaInfo* aai);

namespace mg {

UInt guard_saved;

namespace {

// The arena's blocks and bookkeeping are 16-byte aligned: a granule is one
// or the other.
constexpr SizeT kGranule = 16;

struct Saved {
    Addr a;
    UChar n;
    UChar bytes[kGranule];
};

Saved* saved;
UInt cap_saved;

// Memory of the client arena that no block it handed out holds: a size, a
// link, a superblock's header, a free chunk.
bool bookkeeping(Addr a) {
    const NSegment* seg = VG_(am_find_nsegment)(a);
    if (!seg || seg->kind != SkAnonC || !seg->isCH) return false;
    AddrArenaInfo ai;
    VG_(memset)(&ai, 0, sizeof ai);
    VG_(describe_arena_addr)(a, &ai);
    return !ai.name || ai.free || ai.rwoffset < 0 ||
           static_cast<SizeT>(ai.rwoffset) >= ai.block_szB;
}

void save(Addr a, SizeT n) {
    if (guard_saved == cap_saved) {
        cap_saved = cap_saved ? cap_saved * 2 : 16;
        saved =
            static_cast<Saved*>(VG_(realloc)("mg.heap_guard", saved, cap_saved * sizeof(Saved)));
    }
    Saved& s = saved[guard_saved++];
    s.a = a;
    s.n = static_cast<UChar>(n);
    VG_(memcpy)(s.bytes, reinterpret_cast<const void*>(a), n);
}

} // namespace

void heap_guard_write(Addr a, SizeT n) {
    heap_guard_restore(); // the arena must be whole to be described
    for (Addr g = a & ~(kGranule - 1); g < a + n; g += kGranule) {
        Addr from = g < a ? a : g, to = g + kGranule < a + n ? g + kGranule : a + n;
        Addr bad;
        if (abits_first_bad(from, to - from, &bad) && bookkeeping(g)) save(from, to - from);
    }
}

void heap_guard_restore_now() {
    // Newest first: a byte written twice gets its first value back.
    while (guard_saved) {
        const Saved& s = saved[--guard_saved];
        const NSegment* seg = VG_(am_find_nsegment)(s.a);
        if (seg && seg->isCH) VG_(memcpy)(reinterpret_cast<void*>(s.a), s.bytes, s.n);
    }
}

} // namespace mg
