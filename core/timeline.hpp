// SPDX-License-Identifier: GPL-2.0-or-later
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
//
// A fold (at the end of the warm-up) starts the buckets afresh: everything
// before it becomes bucket 0, and the buckets after it cover only what
// follows, from width 1 again. So a program whose start-up (imports) takes
// most of the clock still gets the full resolution for its work.
struct BucketClock {
    u64 width = 1;   // clock units per bucket (after bucket 0, once folded)
    u64 origin = 0;  // clock time at the end of bucket 0 once folded
    u32 current = 0; // bucket the clock is in
    u32 gen = 0;     // number of pairwise merges since the last fold
    u32 folds = 0;   // number of folds so far

    // Buckets at the front that never merge: 1 (the folded past) once folded.
    u32 fixed() const { return folds ? 1 : 0; }

    // Moves the clock to time t (never backwards); merges while t is past the
    // last bucket.
    void advance(u64 t) {
        u64 since = t > origin ? t - origin : 0;
        while (fixed() + since / width >= kBuckets) {
            width *= 2;
            current = (current + fixed()) / 2;
            ++gen;
        }
        u32 b = fixed() + static_cast<u32>(since / width);
        if (t >= origin && b > current) current = b;
    }
    // Everything before t becomes bucket 0; the clock is then in bucket 1.
    void fold(u64 t) {
        origin = t;
        width = 1;
        current = 1;
        gen = 0;
        ++folds;
    }
    // Clock time at the end of bucket i.
    u64 end_of(u32 i) const {
        if (folds && i == 0) return origin;
        return origin + (static_cast<u64>(i) + 1 - fixed()) * width;
    }
    // Clock time at the start of bucket i.
    u64 start_of(u32 i) const { return i == 0 ? 0 : end_of(i - 1); }
    // The bucket time t (not past the clock's now) falls in; 0 before the
    // latest fold.
    u32 bucket_of(u64 t) const {
        if (folds && t < origin) return 0;
        u64 b = fixed() + (t > origin ? t - origin : 0) / width;
        return b < current ? static_cast<u32>(b) : current;
    }
};

// Per-site history in one view. live_end[i] is the live byte count at the end
// of bucket i (for i == last: the value so far); alloc[i] the bytes allocated
// within bucket i. Freed bytes are implied: freed[i] = live_end[i-1] +
// alloc[i] - live_end[i], which keeps the struct at 1 KiB.
struct SiteSeries {
    i64 live_end[kBuckets] = {};
    // One more: an allocation in flight over the end of the last bucket
    // (see add), until the clock's next merge moves it into place.
    u64 alloc[kBuckets + 1] = {};
    i64 live = 0;  // current live bytes in this view
    u32 last = 0;  // last bucket touched
    u32 gen = 0;   // clock generation the arrays are laid out for
    u32 folds = 0; // clock folds the arrays are laid out for

    void clear() {
        for (u32 i = 0; i < kBuckets; ++i)
            live_end[i] = 0, alloc[i] = 0;
        alloc[kBuckets] = 0;
        live = 0, last = 0, gen = 0, folds = 0;
    }

    // Brings the layout to the clock's folds and generation and carries the
    // current level forward to the clock's current bucket.
    void sync(const BucketClock& c) {
        if (folds < c.folds) fold(c.folds);
        for (; gen < c.gen; ++gen)
            merge_pairs(c.fixed());
        for (u32 b = last + 1; b <= c.current; ++b)
            live_end[b] = live;
        if (c.current > last) last = c.current;
    }

    // Records an allocation (+bytes) or a free (-bytes) at the clock's now.
    // in_flight: an allocation that carries the clock to the end of its
    // bucket (the bytes-allocated clock, records/mg_timeline.cpp); it counts
    // in the next bucket, so the level at this end is the one before it.
    void add(const BucketClock& c, i64 delta, bool in_flight = false) {
        sync(c);
        live += delta;
        const u32 at = in_flight ? last + 1 : last;
        if (at == last) live_end[last] = live; // a later bucket is filled by sync
        if (delta > 0) alloc[at] += static_cast<u64>(delta);
    }

    // Bytes freed within bucket i (derived).
    u64 freed(u32 i) const {
        i64 before = i == 0 ? 0 : live_end[i - 1];
        return static_cast<u64>(before + static_cast<i64>(alloc[i]) - live_end[i]);
    }

    // Takes bytes out of every level from bucket `from` on, as if freed in
    // that bucket: memory found dead later (an object parked on a free list
    // since, records/mg_timeline.cpp), which no free recorded.
    void remove_since(const BucketClock& c, u32 from, i64 bytes) {
        sync(c);
        for (u32 b = from; b <= last; ++b)
            live_end[b] -= bytes;
        live -= bytes;
    }

  private:
    // The series was last touched before the clock's latest fold, so its
    // level has not changed since: the whole past is bucket 0.
    void fold(u32 clock_folds) {
        u64 past = alloc[kBuckets];
        alloc[kBuckets] = 0;
        for (u32 i = 0; i < kBuckets; ++i)
            past += alloc[i], live_end[i] = 0, alloc[i] = 0;
        live_end[0] = live;
        alloc[0] = past;
        last = 0, gen = 0, folds = clock_folds;
    }

    // With `fixed` leading buckets that never merge (0, or 1 once folded),
    // bucket i >= fixed of the new layout covers old buckets 2i - fixed and
    // 2i - fixed + 1: its level is the level at the end of the second, its
    // allocations the sum of both.
    void merge_pairs(u32 fixed) {
        u32 n = fixed + (kBuckets - fixed + 1) / 2;
        for (u32 i = fixed; i < n; ++i) {
            u32 a = 2 * i - fixed, b = a + 1;
            live_end[i] = b < kBuckets ? live_end[b] : live_end[a];
            alloc[i] = alloc[a] + (b < kBuckets ? alloc[b] : 0);
        }
        // When `last` is the first of its pair, the second was never
        // written: the level at the end of the merged bucket is the current
        // one.
        if (last >= fixed && (last - fixed) % 2 == 0) live_end[(last + fixed) / 2] = live;
        for (u32 i = n; i < kBuckets; ++i)
            live_end[i] = 0, alloc[i] = 0;
        alloc[(kBuckets + fixed) / 2] += alloc[kBuckets]; // in flight over the old end
        alloc[kBuckets] = 0;
        last = last >= fixed ? (last + fixed) / 2 : last;
    }
};

// A site's history of the run clock, sparse while it can be: most sites of
// a big program (a million distinct stacks under `import torch`) change in
// one or two buckets and then never again. Up to two touched buckets are
// kept inline (40 bytes a site, with the site's live and allocated bytes,
// instead of SiteSeries' 1 KiB); a site that changes in more buckets moves
// to a SiteSeries of its own. Reads give what a SiteSeries would: a touched
// bucket's level, the level carried forward between them, allocations only
// where touched. All zero is empty.
//
// Inline, the last touched bucket's level is `live` and its allocations are
// what the other bucket's leave of `allocated`: only the first of two
// buckets keeps numbers of its own.
struct SparseSeries {
    using Alloc = void* (*)(usize bytes);

    i64 live;      // current live bytes (also while dense)
    u64 allocated; // bytes allocated in all buckets together
  private:
    struct First {
        i64 level; // at the end of bucket[0], when a second bucket was touched
        u64 added; // allocated within bucket[0], then
    };
    union {
        First first_;
        SiteSeries* dense_; // once it changed in more than two buckets
    };

  public:
    u8 bucket[2];  // the touched buckets, ascending
    u8 n;          // how many
    u8 last;       // last bucket touched (or synced to)
    u8 gen;        // clock generation the buckets are numbered for
    u8 folds;      // clock folds the buckets are numbered for
    bool is_dense; // dense_ holds the series

    const SiteSeries* dense() const { return is_dense ? dense_ : nullptr; }
    // The first of two buckets' own numbers (0 while sparse with one): what a
    // copy of a sparse series outside it needs (records/mg_sites.cpp).
    i64 first_level() const { return is_dense ? 0 : first_.level; }
    u64 first_added() const { return is_dense ? 0 : first_.added; }
    void set_first(i64 level, u64 added) {
        if (!is_dense) first_ = First{level, added};
    }
    // Hands the dense series over (the tests free it; the tool never does).
    SiteSeries* release_dense() {
        SiteSeries* d = is_dense ? dense_ : nullptr;
        is_dense = false, n = 0;
        return d;
    }

    void sync(const BucketClock& c) {
        if (is_dense) {
            dense_->sync(c);
            return;
        }
        if (folds < c.folds) fold(c.folds);
        for (; gen < c.gen; ++gen)
            merge_pairs(c.fixed());
        if (c.current > last) last = static_cast<u8>(c.current);
    }

    // Records an allocation (+bytes) or a free (-bytes) at the clock's now;
    // `alloc` gives the SiteSeries memory the first time it is needed (the
    // tool's allocator, or malloc in the tests); on failure the site stays
    // sparse and merges its change into its last touched bucket. in_flight:
    // as SiteSeries::add, the change touches the next bucket.
    void add(const BucketClock& c, i64 delta, Alloc alloc, bool in_flight = false) {
        sync(c);
        const u32 at = in_flight ? last + 1u : last;
        const bool same_bucket = n && bucket[n - 1] == at;
        if (!is_dense && !same_bucket && n == 2) promote(alloc);
        if (is_dense) {
            dense_->add(c, delta, in_flight);
            live = dense_->live;
        } else if (!same_bucket) {
            if (n == 1) first_ = First{live, allocated}; // bucket[0] ends here
            if (n < 2)
                bucket[n++] = static_cast<u8>(at);
            else
                bucket[1] = static_cast<u8>(last); // out of memory: coarser, never wrong in total
        }
        if (!is_dense) live += delta;
        if (delta > 0) allocated += static_cast<u64>(delta);
    }

    // As SiteSeries::remove_since (dense from then on); without memory for
    // that, at the last bucket.
    void remove_since(const BucketClock& c, u32 from, i64 bytes, Alloc alloc) {
        sync(c);
        if (!is_dense) promote(alloc);
        if (!is_dense) return add(c, -bytes, alloc);
        dense_->remove_since(c, from, bytes);
        live = dense_->live;
    }

    i64 level_at(u32 i) const {
        if (is_dense) return dense_->live_end[i];
        i64 v = 0;
        for (u32 k = 0; k < n && bucket[k] <= i; ++k)
            v = level(k);
        return v;
    }
    u64 alloc_at(u32 i) const {
        if (is_dense) return dense_->alloc[i];
        for (u32 k = 0; k < n; ++k)
            if (bucket[k] == i) return added(k);
        return 0;
    }
    u64 freed(u32 i) const {
        i64 before = i == 0 ? 0 : level_at(i - 1);
        return static_cast<u64>(before + static_cast<i64>(alloc_at(i)) - level_at(i));
    }
    // The first n levels, dense, for the readers that take an array.
    const i64* levels(i64* scratch, u32 count) const {
        if (is_dense) return dense_->live_end;
        for (u32 i = 0; i < count; ++i)
            scratch[i] = level_at(i);
        return scratch;
    }

  private:
    i64 level(u32 k) const { return k + 1 == n ? live : first_.level; }
    u64 added(u32 k) const {
        if (n < 2) return allocated;
        return k == 0 ? first_.added : allocated - first_.added;
    }

    // As SiteSeries::fold: untouched since the clock's latest fold, so the
    // whole past is bucket 0 at the current level.
    void fold(u32 clock_folds) {
        bucket[0] = 0;
        n = 1, last = 0, gen = 0, folds = static_cast<u8>(clock_folds);
    }

    // As SiteSeries::merge_pairs: bucket b >= fixed becomes (b + fixed) / 2,
    // the level of a merged bucket is its later half's, its allocations the
    // sum.
    void merge_pairs(u32 fixed) {
        auto merged = [fixed](u32 b) { return static_cast<u8>(b < fixed ? b : (b + fixed) / 2); };
        for (u32 k = 0; k < n; ++k)
            bucket[k] = merged(bucket[k]);
        if (n == 2 && bucket[0] == bucket[1]) n = 1;
        last = merged(last);
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
        d->folds = folds;
        dense_ = d;
        is_dense = true;
    }
};

} // namespace mg
