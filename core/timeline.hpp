// Fixed-size time buckets per allocation site.
//
// A run of any length is described by kBuckets equal-width buckets. When the
// clock leaves the last bucket, neighbours merge pairwise and the width
// doubles, so memory per site never grows with run length. Merging is lazy:
// the global clock counts its merges ("generation") and a site series catches
// up the next time it is touched or read, so a merge costs nothing per site.
#pragma once

#include "types.hpp"

namespace mg {

constexpr u32 kBuckets = 64;

// The global clock of one view (the run clock, or the mark counter).
struct BucketClock {
    u64 width = 1;   // clock units per bucket
    u32 current = 0; // bucket the clock is in
    u32 gen = 0;     // number of pairwise merges so far

    // Moves the clock to time t (never backwards); merges while t is past the
    // last bucket.
    void advance(u64 t) {
        while (t / width >= kBuckets) {
            width *= 2;
            current /= 2;
            ++gen;
        }
        u32 b = static_cast<u32>(t / width);
        if (b > current) current = b;
    }
    // Clock time at the end of bucket i.
    u64 end_of(u32 i) const { return (static_cast<u64>(i) + 1) * width; }
};

// Per-site history in one view. live_end[i] is the live byte count at the end
// of bucket i (for i == last: the value so far); alloc[i] the bytes allocated
// within bucket i. Freed bytes are implied: freed[i] = live_end[i-1] +
// alloc[i] - live_end[i], which keeps the struct at 1 KiB.
struct SiteSeries {
    i64 live_end[kBuckets] = {};
    u64 alloc[kBuckets] = {};
    i64 live = 0; // current live bytes in this view
    u32 last = 0; // last bucket touched
    u32 gen = 0;  // clock generation the arrays are laid out for

    void clear() {
        for (u32 i = 0; i < kBuckets; ++i)
            live_end[i] = 0, alloc[i] = 0;
        live = 0, last = 0, gen = 0;
    }

    // Brings the layout to the clock's generation and carries the current
    // level forward to the clock's current bucket.
    void sync(const BucketClock& c) {
        for (; gen < c.gen; ++gen)
            merge_pairs();
        for (u32 b = last + 1; b <= c.current; ++b)
            live_end[b] = live;
        if (c.current > last) last = c.current;
    }

    // Records an allocation (+bytes) or a free (-bytes) at the clock's now.
    void add(const BucketClock& c, i64 delta) {
        sync(c);
        live += delta;
        live_end[last] = live;
        if (delta > 0) alloc[last] += static_cast<u64>(delta);
    }

    // Bytes freed within bucket i (derived).
    u64 freed(u32 i) const {
        i64 before = i == 0 ? 0 : live_end[i - 1];
        return static_cast<u64>(before + static_cast<i64>(alloc[i]) - live_end[i]);
    }

  private:
    // Bucket i of the new layout covers old buckets 2i and 2i+1: its level is
    // the level at the end of 2i+1, its allocations the sum of both.
    void merge_pairs() {
        for (u32 i = 0; i < kBuckets / 2; ++i) {
            live_end[i] = live_end[2 * i + 1];
            alloc[i] = alloc[2 * i] + alloc[2 * i + 1];
        }
        // When `last` is even its odd neighbour was never written: the level
        // at the end of the merged bucket is the current one.
        if (last % 2 == 0) live_end[last / 2] = live;
        for (u32 i = kBuckets / 2; i < kBuckets; ++i)
            live_end[i] = 0, alloc[i] = 0;
        last /= 2;
    }
};

} // namespace mg
