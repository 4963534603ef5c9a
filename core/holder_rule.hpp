// SPDX-License-Identifier: GPL-2.0-or-later
// The bounded-holder rule (docs/classification.md): a site whose bytes are
// held, almost all, by holders whose type bounds them (a deque with maxlen,
// an lru_cache with maxsize, a queue.Queue with maxsize, a fixed native
// array pointing at the blocks) is a plateau, however it rose during the run:
// it cannot outgrow the bounds. Its level at the bounds is projected from
// how full each holder is.
#pragma once

#include "types.hpp"

namespace mg {

// At least this share of a site's bytes must be held by bounded holders.
constexpr double kBoundedShare = 0.9;

struct HeldShare {
    u64 bytes;  // of the site, held by this holder
    i64 length; // the holder's items now (-1 unknown)
    i64 bound;  // the most it may hold (-1 none)
};

struct BoundedVerdict {
    bool bounded = false;
    i64 bound = -1;      // of the holder holding the most
    double fill = 0;     // its length / bound
    u64 bound_bytes = 0; // the site's bytes once every bounded holder is full
};

// A native array bounds what it holds only when it is one, and not full: a
// struct of a few pointers holding one block (a std::vector's buffer, which
// grows by size, not by count) bounds nothing, and an array filled to its
// last slot while its site still grew (`kept[N]` filled by a loop of N) was
// sized to the run, not to a bound.
constexpr i64 kMinArraySlots = 8;
inline bool array_bounds(i64 slots, i64 blocks_held) {
    return slots >= kMinArraySlots && blocks_held >= 2 && blocks_held < slots;
}

// A native array bounds its blocks only when they sit side by side in it (a
// buffer, a ring, a table filled in order): blocks scattered over its slots
// are a hash table's buckets, whose chains grow past the slots (or random
// words that happen to point into blocks). runs: the runs of words pointing
// into blocks in the array.
constexpr i64 kBlocksPerRun = 4;
inline bool slots_side_by_side(i64 runs, i64 blocks_held) {
    return runs >= 0 && (runs <= 2 || runs * kBlocksPerRun <= blocks_held);
}

// A bound on the number of blocks bounds bytes only while the blocks keep
// their size: buffers appended to with realloc, or a cache whose values
// grow, are larger now than the site's allocations were on average (a
// buffer grown linearly: twice).
constexpr double kBlocksGrew = 1.5;
inline bool blocks_grew(u64 live_bytes, u64 live_blocks, u64 allocated_bytes,
                        u64 allocated_blocks) {
    if (!live_blocks || !allocated_blocks) return false;
    return static_cast<double>(live_bytes) / static_cast<double>(live_blocks) >
           kBlocksGrew * static_cast<double>(allocated_bytes) /
               static_cast<double>(allocated_blocks);
}

// Whether a holder's path is inside another's (`errors[*]` or `LOG._recent`
// in `errors`, `LOG`): a growing holder inside a growing one is part of its
// growth, a plateau one inside a growing or a bounded one part of its
// finding (the log, `show` and the HTML count them alike).
inline bool path_inside(const char* path, const char* outer) {
    while (*outer && *path == *outer)
        ++path, ++outer;
    return !*outer && (*path == '[' || *path == '.' || *path == '{');
}

inline bool holder_bounded(const HeldShare& h) {
    return h.bound > 0 && h.length >= 0 && h.length <= h.bound;
}

// The converse: a site held almost all by containers with no bound, whose
// growing parts (the items it keeps gaining, by their own series) hold at
// least half of it, is growing, whatever its summed series says (a dict's
// last resize, old and new table live together, then the drop, defeats the
// trend test). unbounded: of found, the site's bytes the scan found, those
// held by containers with no bound; growing: of live, its live bytes, those
// of parts that grow.
constexpr double kGrowingParts = 0.5;
inline bool unbounded_growth(u64 unbounded, u64 found, u64 growing, u64 live) {
    return found > 0 && live > 0 &&
           static_cast<double>(unbounded) >= kBoundedShare * static_cast<double>(found) &&
           static_cast<double>(growing) >= kGrowingParts * static_cast<double>(live);
}

// whole: the site's bytes the scan found (held or not).
inline BoundedVerdict bounded_verdict(const HeldShare* h, unsigned n, u64 whole) {
    BoundedVerdict v;
    u64 held = 0, largest = 0;
    double projected = 0;
    for (unsigned i = 0; i < n; ++i) {
        if (!holder_bounded(h[i])) continue;
        held += h[i].bytes;
        // Each item holds its share; an empty holder adds nothing yet.
        projected += h[i].length > 0
                         ? static_cast<double>(h[i].bytes) * static_cast<double>(h[i].bound) /
                               static_cast<double>(h[i].length)
                         : 0;
        if (h[i].bytes > largest) {
            largest = h[i].bytes;
            v.bound = h[i].bound;
            v.fill = static_cast<double>(h[i].length) / static_cast<double>(h[i].bound);
        }
    }
    v.bounded = whole > 0 && held > 0 &&
                static_cast<double>(held) >= kBoundedShare * static_cast<double>(whole);
    v.bound_bytes = static_cast<u64>(projected) + (whole - held);
    if (!v.bounded) v.bound = -1, v.fill = 0, v.bound_bytes = 0;
    return v;
}

} // namespace mg
