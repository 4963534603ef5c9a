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

// A site's history of the run clock, sparse while it can be: most sites of
// a big program (a million distinct stacks under `import torch`) change in
// one or two buckets and then never again. Up to kInline touched buckets are
// kept inline (about 56 bytes a site instead of SiteSeries' 1 KiB); a site
// that changes in more buckets moves to a SiteSeries of its own. Reads give
// what a SiteSeries would: a touched bucket's level, the level carried
// forward between them, allocations only where touched. All zero is empty.
struct SparseSeries {
    using Alloc = void* (*)(usize bytes);
    static constexpr u32 kInline = 2;

    SiteSeries* dense;  // once it changed in more than kInline buckets
    i64 live;           // current live bytes (also while dense)
    i64 level[kInline]; // live bytes at the end of each touched bucket
    u64 added[kInline]; // bytes allocated within it
    u8 bucket[kInline]; // the touched buckets, ascending
    u8 n;               // how many
    u8 last;            // last bucket touched (or synced to)
    u8 gen;             // clock generation the buckets are numbered for

    void sync(const BucketClock& c) {
        if (dense) {
            dense->sync(c);
            return;
        }
        for (; gen < c.gen; ++gen)
            merge_pairs();
        if (c.current > last) last = static_cast<u8>(c.current);
    }

    // Records an allocation (+bytes) or a free (-bytes) at the clock's now;
    // `alloc` gives the SiteSeries memory the first time it is needed (the
    // tool's allocator, or malloc in the tests); on failure the site stays
    // sparse and merges its change into its last touched bucket.
    void add(const BucketClock& c, i64 delta, Alloc alloc) {
        sync(c);
        if (!dense && !(n && bucket[n - 1] == last) && n == kInline) promote(alloc);
        if (dense) {
            dense->add(c, delta);
            live = dense->live;
            return;
        }
        live += delta;
        if (!(n && bucket[n - 1] == last)) {
            if (n < kInline) {
                bucket[n] = last, level[n] = 0, added[n] = 0;
                ++n;
            } else {
                bucket[n - 1] = last; // out of memory: coarser, never wrong in total
            }
        }
        level[n - 1] = live;
        if (delta > 0) added[n - 1] += static_cast<u64>(delta);
    }

    i64 level_at(u32 i) const {
        if (dense) return dense->live_end[i];
        i64 v = 0;
        for (u32 k = 0; k < n && bucket[k] <= i; ++k)
            v = level[k];
        return v;
    }
    u64 alloc_at(u32 i) const {
        if (dense) return dense->alloc[i];
        for (u32 k = 0; k < n; ++k)
            if (bucket[k] == i) return added[k];
        return 0;
    }
    u64 freed(u32 i) const {
        i64 before = i == 0 ? 0 : level_at(i - 1);
        return static_cast<u64>(before + static_cast<i64>(alloc_at(i)) - level_at(i));
    }
    // The first n levels, dense, for the readers that take an array.
    const i64* levels(i64* scratch, u32 count) const {
        if (dense) return dense->live_end;
        for (u32 i = 0; i < count; ++i)
            scratch[i] = level_at(i);
        return scratch;
    }

  private:
    // As SiteSeries::merge_pairs: bucket b becomes b / 2, the level of a
    // merged bucket is its later half's, its allocations the sum.
    void merge_pairs() {
        u8 m = 0;
        for (u8 k = 0; k < n; ++k) {
            u8 b = static_cast<u8>(bucket[k] / 2);
            if (m && bucket[m - 1] == b) {
                level[m - 1] = level[k];
                added[m - 1] += added[k];
            } else {
                bucket[m] = b, level[m] = level[k], added[m] = added[k];
                ++m;
            }
        }
        n = m;
        last = static_cast<u8>(last / 2);
    }

    void promote(Alloc alloc) {
        auto* d = static_cast<SiteSeries*>(alloc(sizeof(SiteSeries)));
        if (!d) return;
        d->clear();
        for (u32 i = 0; i <= last; ++i)
            d->live_end[i] = level_at(i), d->alloc[i] = alloc_at(i);
        d->live = live;
        d->last = last;
        d->gen = gen;
        dense = d;
    }
};

} // namespace mg
