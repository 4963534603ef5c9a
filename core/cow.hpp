// SPDX-License-Identifier: GPL-2.0-or-later
// Copy-on-write in a forked child: the pure rules (memgrow/pages/mg_cow.cpp
// applies them). A copied page is charged to what it held at the fork: the
// bytes of the live blocks on it, scaled so that the page's size is shared
// out whole, or, holding none, to the region it lies in.
// Header-only and freestanding: the tool includes it.
#pragma once

#include "types.hpp"

namespace mg::cow {

constexpr u64 kPageBytes = 4096;

// A live block at the fork, by address; blocks never overlap.
struct Span {
    u64 addr, size;
    u32 site;
};

// What a page that held no live block is charged to. (No "allocator
// metadata": under memgrow a block's header lies beside it, on its pages,
// and the slabs' and the arena's lists are in the tool's memory.)
enum class Region : u8 { free_heap, stack, static_data, mapped };
constexpr u32 kRegions = 4;
inline const char* region_name(Region r) {
    const char* const names[] = {"free heap", "stack", "static data", "mapped"};
    return names[static_cast<u32>(r)];
}

// The first of spans[0..n) (sorted by addr) that ends after a; n if none.
inline usize first_ending_after(const Span* spans, usize n, u64 a) {
    usize lo = 0, hi = n;
    while (lo < hi) {
        usize mid = lo + (hi - lo) / 2;
        if (spans[mid].addr + spans[mid].size > a)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

// Shares the page at `page` among the blocks on it, pro rata to the bytes
// each has there; the last block takes what rounding leaves, so the shares
// sum to kPageBytes. charge(site, bytes) for each; returns false (charging
// nothing) when no block lies on the page.
template <class Charge> bool share_page(const Span* spans, usize n, u64 page, Charge&& charge) {
    u64 end = page + kPageBytes;
    usize first = first_ending_after(spans, n, page);
    u64 held = 0;
    usize last = first;
    for (usize i = first; i < n && spans[i].addr < end; ++i, last = i) {
        u64 lo = spans[i].addr > page ? spans[i].addr : page;
        u64 hi = spans[i].addr + spans[i].size < end ? spans[i].addr + spans[i].size : end;
        held += hi - lo;
    }
    if (held == 0) return false;
    u64 given = 0;
    for (usize i = first; i < last; ++i) {
        u64 lo = spans[i].addr > page ? spans[i].addr : page;
        u64 hi = spans[i].addr + spans[i].size < end ? spans[i].addr + spans[i].size : end;
        u64 share = i + 1 == last ? kPageBytes - given : (hi - lo) * kPageBytes / held;
        given += share;
        if (share) charge(spans[i].site, share);
    }
    return true;
}

// The pages [first, last] that an access of n >= 1 bytes at a touches.
inline u64 first_page(u64 a) {
    return a & ~(kPageBytes - 1);
}
inline u64 last_page(u64 a, u64 n) {
    return (a + n - 1) & ~(kPageBytes - 1);
}

// A line of /proc/self/maps, "lo-hi perms offset dev inode path": true, with
// its extent [lo, hi), when the mapping is shared ('s' for the fourth
// permission, MAP_SHARED): its pages are the parent's, never copied on write.
inline bool shared_mapping(const char* line, u64* lo, u64* hi) {
    auto hex = [&line](u64* out) {
        const char* start = line;
        *out = 0;
        for (;; ++line) {
            char c = *line;
            u32 d = c >= '0' && c <= '9'   ? u32(c - '0')
                    : c >= 'a' && c <= 'f' ? u32(c - 'a' + 10)
                                           : 16;
            if (d == 16) return line != start && line - start <= 16;
            *out = *out << 4 | d;
        }
    };
    if (!hex(lo) || *line++ != '-' || !hex(hi) || *line++ != ' ' || *hi <= *lo) return false;
    for (int i = 0; i < 3; ++i)
        if (!line[i] || line[i] == ' ') return false;
    return line[3] == 's';
}

} // namespace mg::cow
