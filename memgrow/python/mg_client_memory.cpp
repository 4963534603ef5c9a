// SPDX-License-Identifier: GPL-2.0-or-later
#include "python/mg_client_memory.hpp"

namespace mg {

namespace {

// Readable client ranges [lo, hi], the most recent first.
constexpr UInt kCached = 4;
Addr cached_lo[kCached], cached_hi[kCached];
UInt n_cached;

bool is_client_kind(const NSegment* s) {
    return s->kind == SkAnonC || s->kind == SkFileC || s->kind == SkShmC;
}

} // namespace

bool client_readable(Addr a, SizeT n) {
    if (n == 0 || a + n < a) return false;
    Addr last = a + n - 1;
    for (UInt i = 0; i < n_cached; ++i)
        if (a >= cached_lo[i] && last <= cached_hi[i]) return true;
    // Segments are maximal runs of one kind and permission, so a read that
    // crosses into the next one is rare: check it the slow way.
    const NSegment* s = VG_(am_find_nsegment)(a);
    if (!s || !is_client_kind(s) || !s->hasR) return false;
    if (last > s->end) return VG_(am_is_valid_for_client)(a, n, VKI_PROT_READ);
    UInt slot = n_cached < kCached ? n_cached++ : kCached - 1;
    for (UInt i = slot; i > 0; --i)
        cached_lo[i] = cached_lo[i - 1], cached_hi[i] = cached_hi[i - 1];
    cached_lo[0] = s->start, cached_hi[0] = s->end;
    return true;
}

void client_memory_changed() {
    n_cached = 0;
}

void unmask_signal(Int sig) {
    vki_sigset_t mask;
    VG_(sigprocmask)(VKI_SIG_SETMASK, nullptr, &mask);
    VG_(sigdelset)(&mask, sig);
    VG_(sigprocmask)(VKI_SIG_SETMASK, &mask, nullptr);
}

} // namespace mg
