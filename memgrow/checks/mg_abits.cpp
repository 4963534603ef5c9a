// SPDX-License-Identifier: GPL-2.0-or-later
#include "checks/mg_abits.hpp"

namespace mg {

bool abits_on;

namespace {

constexpr SizeT kPrimaryEntries = SizeT(1) << kAbitsPrimaryBits;
constexpr SizeT kSecAlloc = kAbitsSecBytes + kAbitsSlack;

// Each entry is its secondary's offset from no_access, so the zero-filled
// (bss) table already says "not addressable" everywhere: only the pages of
// chunks the client uses are ever written (16 MB of pointers otherwise).
ULong primary[kPrimaryEntries];
alignas(64) UChar no_access[kSecAlloc];
alignas(64) UChar all_access[kSecAlloc];
ULong n_secondaries;

// Chunks above the primary's range: chunk number -> secondary.
struct AuxNode {
    AuxNode* next; // VgHashNode layout: next, key
    UWord chunk;
    UChar* sec;
};
VgHashTable* aux;

bool distinguished(const UChar* s) {
    return s == no_access || s == all_access;
}

UChar* sec_at(ULong offset) {
    return reinterpret_cast<UChar*>(reinterpret_cast<Addr>(no_access) + offset);
}
ULong offset_of(const UChar* sec) {
    return reinterpret_cast<Addr>(sec) - reinterpret_cast<Addr>(no_access);
}

// The secondary of a's chunk, and (set_sec) a new one for it.
UChar* sec_of(Addr a) {
    UWord chunk = a >> kAbitsChunkBits;
    if (chunk < kPrimaryEntries) return sec_at(primary[chunk]);
    auto* n = static_cast<AuxNode*>(VG_(HT_lookup)(aux, chunk));
    return n ? n->sec : no_access;
}
void set_sec(Addr a, UChar* sec) {
    UWord chunk = a >> kAbitsChunkBits;
    if (chunk < kPrimaryEntries) {
        primary[chunk] = offset_of(sec);
        return;
    }
    auto* n = static_cast<AuxNode*>(VG_(HT_lookup)(aux, chunk));
    if (!n) {
        n = static_cast<AuxNode*>(VG_(malloc)("mg.abits.aux", sizeof(AuxNode)));
        n->chunk = chunk;
        VG_(HT_add_node)(aux, n);
    }
    n->sec = sec;
}

const UChar* sec_for_read(Addr a) {
    UWord chunk = a >> kAbitsChunkBits;
    if (chunk < kPrimaryEntries) return sec_at(primary[chunk]);
    auto* n = static_cast<AuxNode*>(VG_(HT_lookup)(aux, chunk));
    return n ? n->sec : no_access;
}

// A secondary of the chunk of a that may be written, copied from the
// distinguished one it shared.
UChar* sec_for_write(Addr a) {
    UChar* cur = sec_of(a);
    if (!distinguished(cur)) return cur;
    auto* s = static_cast<UChar*>(VG_(malloc)("mg.abits.sec", kSecAlloc));
    VG_(memcpy)(s, cur, kAbitsSecBytes);
    VG_(memset)(s + kAbitsSecBytes, 0xff, kAbitsSlack);
    set_sec(a, s);
    ++n_secondaries;
    return s;
}

void set_whole_chunk(Addr a, bool addressable) {
    UChar* cur = sec_of(a);
    if (!distinguished(cur)) {
        VG_(free)(cur);
        --n_secondaries;
    }
    set_sec(a, addressable ? all_access : no_access);
}

// Bits [from, to) of one chunk's bitmap, a 64-bit word at a time (a heap
// block's bits are one or two words: this runs at every malloc and free).
void set_bits(UChar* s, UWord from, UWord to, bool addressable) {
    using Word = ULong __attribute__((may_alias));
    auto* w = reinterpret_cast<Word*>(s); // secondaries are 8-aligned
    UWord i = from >> 6, last = (to - 1) >> 6;
    ULong head = ~0ull << (from & 63), tail = ~0ull >> (63 - ((to - 1) & 63));
    auto apply = [addressable](Word& word, ULong mask) {
        word = addressable ? word & ~mask : word | mask;
    };
    if (i == last) {
        apply(w[i], head & tail);
        return;
    }
    apply(w[i], head);
    for (++i; i < last; ++i)
        w[i] = addressable ? 0 : ~0ull;
    apply(w[last], tail);
}

} // namespace

void abits_init() {
    abits_on = true;
    VG_(memset)(no_access, 0xff, sizeof no_access);
    VG_(memset)(all_access + kAbitsSecBytes, 0xff, kAbitsSlack);
    aux = VG_(HT_construct)("mg.abits.aux");
}

void abits_make(Addr a, SizeT len, bool addressable) {
    if (!abits_on || len == 0) return;
    Addr end = a + len;
    if (end < a) end = ~Addr(0); // a range that wraps ends at the top
    while (a < end) {
        Addr chunk_end = (a | (kAbitsChunk - 1)) + 1;
        Addr stop = chunk_end == 0 || chunk_end > end ? end : chunk_end;
        UWord from = a & (kAbitsChunk - 1);
        UWord to = stop == chunk_end ? kAbitsChunk : stop & (kAbitsChunk - 1);
        if (from == 0 && to == kAbitsChunk) {
            set_whole_chunk(a, addressable);
        } else {
            const UChar* cur = sec_for_read(a);
            if (cur != (addressable ? all_access : no_access))
                set_bits(sec_for_write(a), from, to, addressable);
        }
        if (stop == end) break;
        a = stop;
    }
}

bool abits_first_bad(Addr a, SizeT len, Addr* bad) {
    if (!abits_on) return false;
    for (SizeT i = 0; i < len; ++i) {
        Addr b = a + i;
        const UChar* s = sec_for_read(b);
        if (s == all_access) {
            // Skip the rest of the chunk.
            SizeT left = kAbitsChunk - (b & (kAbitsChunk - 1));
            i += left - 1;
            continue;
        }
        UWord off = b & (kAbitsChunk - 1);
        if (s[off >> 3] >> (off & 7) & 1) {
            *bad = b;
            return true;
        }
    }
    return false;
}

void abits_prefetch(Addr a) {
    UWord chunk = a >> kAbitsChunkBits;
    if (abits_on && chunk < kPrimaryEntries)
        __builtin_prefetch(sec_at(primary[chunk]) + ((a & (kAbitsChunk - 1)) >> 3), 1);
}

const ULong* abits_primary() {
    return primary;
}

const UChar* abits_distinguished(bool addressable) {
    return addressable ? all_access : no_access;
}

ULong abits_secondaries() {
    return n_secondaries;
}

void abits_release() {
    if (!abits_on) return;
    abits_on = false;
    for (ULong& offset : primary) {
        if (!distinguished(sec_at(offset))) VG_(free)(sec_at(offset));
        offset = 0;
    }
    // The pages of the chunks the client used.
    constexpr Addr kPage = 4096;
    Addr lo = (reinterpret_cast<Addr>(primary) + kPage - 1) & ~(kPage - 1);
    Addr hi = (reinterpret_cast<Addr>(primary + kPrimaryEntries)) & ~(kPage - 1);
    if (hi > lo) vgc::discard_pages(lo, hi - lo);
}

} // namespace mg
