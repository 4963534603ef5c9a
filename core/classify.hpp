// SPDX-License-Identifier: GPL-2.0-or-later
// The classification of one allocation site from its history of live bytes
// (DESIGN.md §2; docs/classification.md states every rule and threshold).
// Leaked is not decided here but by the leak scan, which takes precedence.
#pragma once

#include "trend.hpp"

namespace mg {

constexpr unsigned kMaxBuckets = 64; // series never longer than this
static_assert(kMaxBuckets <= kMaxWindow, "a whole series must fit a trend window");

enum class SiteClass : unsigned char { stable = 0, plateau = 1, growing = 2, leaked = 3 };

inline const char* class_name(SiteClass c) {
    switch (c) {
    case SiteClass::stable:
        return "stable";
    case SiteClass::plateau:
        return "plateau";
    case SiteClass::growing:
        return "growing";
    case SiteClass::leaked:
        return "leaked";
    }
    return "stable";
}

struct ClassifyParams {
    unsigned warmup_buckets = 0;   // leading buckets of the series ignored (from --warmup)
    unsigned mark_warmup = 1;      // leading per-mark deltas ignored by the refleak rule
    unsigned min_mark_deltas = 2;  // post-warm-up deltas needed before marks decide
    unsigned min_buckets = 8;      // post-warm-up buckets needed for any verdict from the clock
    double z_growing = 2.326;      // one-sided Mann–Kendall over the last third, p <= 0.01
    double min_rise_bytes = 1024;  // smallest rise that counts, growing or plateau
    double growing_rise = 0.02;    // level rise across the last third / the end level
    double plateau_rise = 0.10;    // (end level - start level) / end level
    double plateau_release = 0.25; // share of its rise a plateau may give back by the end
    double trend_rise_sigmas = 5;  // a trend's rise must clear this many sigmas of its own noise
    double band_sigmas = 3;        // noise band, in noise sigmas: a plateau's rise must clear it;
    double band_share = 0.01;      // began/stopped: "at a level" is within the noise band, or
                                   // this share of the level if wider
    unsigned staircase_steps = 3;  // resize staircase: fewest geometric steps that make one
    double staircase_ratio = 1.1;  // each step at least this times the one before (list 1.125)
    double staircase_margin = 0.5; // next step overdue once the flat tail is (1 + margin) times
                                   // the interval the staircase predicts
    unsigned marks_end = kMaxBuckets; // bucket of the last mark: the marks say nothing of the
                                      // buckets after it (kMaxBuckets: they went on to the end)
};

struct Growth {
    SiteClass cls = SiteClass::stable;
    const char* rule = "none";    // "trend" (growing by clock), "refleak" (growing by marks),
                                  // "floor" (growing: its floor rises to the end under spikes),
                                  // "staircase" (growing: a resize staircase whose next step
                                  // is not overdue), "level" (plateau), "none" (stable)
    double rate = 0;              // bytes per bucket: level rise across the last third (growing),
                                  // Theil–Sen over began-1..stopped (plateau); 0 when stable
    double confidence = 0;        // 0..1: Phi(z) (trend), 1 - 2^-marks_used (refleak),
                                  // Phi(rank-sum z, held vs start) (plateau); 0 when stable
    double z = 0;                 // Mann–Kendall z on the post-warm-up last third
    int began = -1;               // first bucket of the rise (growing by trend, plateau)
    int stopped = -1;             // first bucket at the held level (plateau)
    double rate_per_mark = 0;     // median post-warm-up per-mark delta (mark view only)
    unsigned marks_used = 0;      // post-warm-up per-mark deltas looked at (0: no mark view)
    unsigned marks_adding = 0;    // how many of them were >= 1 byte
    bool released_at_end = false; // classified on the history before a release in the last bucket
    unsigned steps = 0;           // resize staircase: its steps (0: none found)
    double next_step = -1;        // resize staircase: bucket position where its next step is
                                  // due (may lie past the end); -1 when there is none
    bool after_marks = false;     // growing by the clock over the buckets after the last mark
    // Plateau by the rule "bounded holder" (core/holder_rule.hpp): the bound
    // of its main holder, how full that is, and the bytes at the bounds.
    i64 bound = -1;
    double fill = 0;
    u64 bound_bytes = 0;
};

// Refleak rule of CPython's regrtest -R (Lib/test/libregrtest/refleak.py,
// bpo-30776): growing iff every delta after `warmup` is >= 1 and there is at
// least one such delta. [3, 0, 0] and [8, -8, 1] are noise.
inline bool refleak_growing(const i64* deltas, unsigned n, unsigned warmup) {
    if (n <= warmup) return false;
    for (unsigned i = warmup; i < n; ++i)
        if (deltas[i] < 1) return false;
    return true;
}

namespace classify_detail {

enum class MarkVerdict { none, growing, not_growing };

// b - a, saturated instead of overflowing (inputs are never near the limits).
inline i64 difference(i64 a, i64 b) {
    const u64 kMax = 0x7fffffffffffffffULL;
    if (b >= a) {
        u64 d = static_cast<u64>(b) - static_cast<u64>(a);
        return static_cast<i64>(d < kMax ? d : kMax);
    }
    u64 d = static_cast<u64>(a) - static_cast<u64>(b);
    return -static_cast<i64>(d < kMax ? d : kMax);
}

// The per-mark view: applies the refleak rule once there are enough
// post-warm-up deltas, and fills the mark evidence of g.
inline MarkVerdict mark_view(const i64* live, unsigned n, const ClassifyParams& p, Growth& g) {
    if (!live || n < 2) return MarkVerdict::none;
    if (n > kMaxBuckets) live += n - kMaxBuckets, n = kMaxBuckets;
    const unsigned nd = n - 1;
    if (nd <= p.mark_warmup || nd - p.mark_warmup < p.min_mark_deltas) return MarkVerdict::none;
    i64 d[kMaxBuckets];
    for (unsigned i = 0; i < nd; ++i)
        d[i] = difference(live[i], live[i + 1]);
    const bool growing = refleak_growing(d, nd, p.mark_warmup);
    g.marks_used = nd - p.mark_warmup;
    for (unsigned i = p.mark_warmup; i < nd; ++i)
        g.marks_adding += d[i] >= 1;
    g.rate_per_mark = mathx::median(d + p.mark_warmup, g.marks_used);
    return growing ? MarkVerdict::growing : MarkVerdict::not_growing;
}

// First bucket of the rise that reaches its level at `last`. The floor is
// the lowest level between the warm-up and `last`; the rise begins after the
// last bucket within max(noise_band, share * |floor|) of it. When that is the
// first bucket after the warm-up, the rise was already under way: follow it
// back while it falls.
inline int rise_began(const i64* x, unsigned w, unsigned last, double noise_band, double share) {
    unsigned j = last;
    if (last > w) {
        i64 floor = x[w];
        for (unsigned i = w + 1; i < last; ++i)
            floor = mathx::min(floor, x[i]);
        const double f = static_cast<double>(floor);
        const double top = f + mathx::max(noise_band, share * mathx::abs(f));
        j = w;
        for (unsigned i = w; i < last; ++i)
            if (static_cast<double>(x[i]) <= top) j = i;
    }
    if (j <= w)
        while (j > 0 && x[j - 1] < x[j])
            --j;
    return static_cast<int>(mathx::min(j + 1, last));
}

// Highest median of k consecutive values: the highest level the series held
// for most of k buckets, blind to shorter spikes.
inline double peak_level(const i64* x, unsigned n, unsigned k) {
    double peak = window_median(x, k);
    for (unsigned i = 1; i + k <= n; ++i)
        peak = mathx::max(peak, window_median(x + i, k));
    return peak;
}

// A resize staircase: a container filling at a steady rate grows its table
// in geometric steps (dict x2, std::vector x2, list and bytearray x1.125),
// and the wait before each step is proportional to that step's size. Steps
// are rises beyond the "at level" tolerance; after the warm-up the series
// must never fall beyond it. The staircase is the trailing run of steps each
// at least `staircase_ratio` times the one before, with intervals that never
// shrink (by more than one bucket, the bucket's rounding) and that grew from
// first to last. Its fill rate is the bytes of all steps but the last over
// the time they took; the next step is due once the last one's size has
// filled at that rate. Returns the number of steps (0 when there is none).
struct Staircase {
    unsigned steps = 0;
    unsigned first = 0, last = 0; // buckets of the first and last step
    double fill_rate = 0;         // bytes per bucket
    double next = -1;             // bucket position where the next step is due
};

inline Staircase resize_staircase(const i64* x, unsigned n, unsigned w, double noise_band,
                                  const ClassifyParams& p) {
    Staircase st;
    unsigned at[kMaxBuckets];
    double size[kMaxBuckets];
    unsigned k = 0;
    bool open_step = false; // the last step may still give back its old storage
    for (unsigned i = 1; i < n; ++i) {
        const double before = static_cast<double>(x[i - 1]);
        const double d = static_cast<double>(x[i]) - before;
        const double tol = mathx::max(noise_band, p.band_share * mathx::abs(before));
        const double base = k ? static_cast<double>(x[at[k - 1] - 1]) : 0;
        if (d > tol && d > 0) {
            at[k] = i, size[k++] = d;
            open_step = true;
        } else if (d < -tol && open_step && static_cast<double>(x[i]) - base > tol &&
                   -d <= base + tol) {
            // Buckets that ended mid-resize: the new storage allocated (by
            // the bytes-allocated clock it moves the clock, over several
            // buckets when large) and the old, at most the level before
            // the step, not yet freed. One step, of the net rise.
            size[k - 1] = static_cast<double>(x[i]) - base;
            open_step = false;
        } else if (d < -tol && i >= w) {
            return st;
        }
    }
    if (k < p.staircase_steps || k < 2 || at[k - 1] < w) return st;
    unsigned j = k - 1; // first step of the trailing run
    while (j > 0) {
        const bool geometric = size[j] >= p.staircase_ratio * size[j - 1];
        const bool widening = j + 1 >= k || at[j + 1] - at[j] + 1 >= at[j] - at[j - 1];
        if (!geometric || !widening) break;
        --j;
    }
    const unsigned steps = k - j;
    if (steps < p.staircase_steps || at[k - 1] - at[k - 2] <= at[j + 1] - at[j]) return st;
    double filled = 0;
    for (unsigned i = j; i + 1 < k; ++i)
        filled += size[i];
    const double rise = static_cast<double>(x[n - 1]) - static_cast<double>(x[at[j] - 1]);
    if (rise < p.min_rise_bytes) return st;
    st.steps = steps;
    st.first = at[j];
    st.last = at[k - 1];
    st.fill_rate = filled / (at[k - 1] - at[j]);
    st.next = at[k - 1] + size[k - 1] / st.fill_rate;
    return st;
}

// A floor that rises to the end under spikes. The floor from a bucket on
// is the lowest value from there to the end; at the starts of the last four
// windows of k buckets it must rise at each, by `need` or more in all, and
// by no more than two thirds of that at one (a last window of spikes only),
// and the last window must reach a height no bucket between the warm-up
// and those windows did (x[w..n-4k)). A buffer rebuilt longer, sampled at
// times with its old and new copy live together, rises along its floor
// with spikes above it, single or in runs; the spikes defeat the trend's
// noise test and the level rules. Returns the floor's rise, 0 when none.
inline double floor_rise(const i64* x, unsigned n, unsigned w, unsigned k, double need) {
    if (k == 0 || n < w + 4 * k) return 0;
    i64 low[4];
    i64 floor = x[n - 1];
    for (unsigned i = n; i-- > n - 4 * k;) {
        floor = mathx::min(floor, x[i]);
        if ((n - i) % k == 0) low[3 - (n - i) / k + 1] = floor;
    }
    const double rise = static_cast<double>(low[3]) - static_cast<double>(low[0]);
    for (unsigned j = 1; j < 4; ++j)
        if (low[j] <= low[j - 1] || static_cast<double>(low[j] - low[j - 1]) > rise * 2 / 3)
            return 0;
    i64 top = x[n - k], before = x[w];
    for (unsigned i = n - k; i < n; ++i)
        top = mathx::max(top, x[i]);
    for (unsigned i = w; i < n - 4 * k; ++i)
        before = mathx::max(before, x[i]);
    return top > before && rise >= need ? rise : 0;
}

// Whether x[from + 1 .. n) holds a value other than x[from].
inline bool changes_after(const i64* x, unsigned from, unsigned n) {
    for (unsigned i = from + 1; i < n; ++i)
        if (x[i] != x[from]) return true;
    return false;
}

inline double one_minus_half_power(unsigned k) {
    double p = 1;
    for (unsigned i = 0; i < k; ++i)
        p *= 0.5;
    return 1 - p;
}

} // namespace classify_detail

// series: live bytes at the end of each bucket (n <= kMaxBuckets, equal-width
// buckets). mark_live: live bytes of the site at each mark (or merged group
// of marks), n_marks of them, nullptr/0 without marks; the per-mark deltas
// are mark_live[i+1] - mark_live[i]. Longer inputs are cut to their last
// kMaxBuckets values. Deterministic; about 17 KiB of stack.
inline Growth classify_history(const i64* series, unsigned n, const i64* mark_live,
                               unsigned n_marks, const ClassifyParams& p) {
    using namespace classify_detail;
    using mathx::abs;
    using mathx::max;
    Growth g;
    if (!series) n = 0;
    if (n > kMaxBuckets) series += n - kMaxBuckets, n = kMaxBuckets;
    const unsigned w = mathx::min(p.warmup_buckets, n);
    const i64* post = series + w; // the part after the warm-up, m buckets
    const unsigned m = n - w;
    // Its last third, c buckets; at least 6 (when there are), the fewest on
    // which the trend test can reach its threshold (4 never can: z <= 1.7).
    const unsigned c = max((m + 2) / 3, mathx::min(m, 6u));
    const i64* last = post + (m - c);
    const unsigned k = mathx::min(m, max(1u, c / 4)); // buckets whose median is a level

    // How far the level rose across the last third: from the median of its
    // first k buckets to the median of its last k (the level at the end).
    const double end = window_median(post + (m - k), k);
    const double rise_last = end - window_median(last, k);
    const double rate_last = c > k ? rise_last / (c - k) : 0;
    const MarkVerdict marks = mark_view(mark_live, n_marks, p, g);
    g.z = mann_kendall(last, c).z;
    if (marks == MarkVerdict::growing) {
        g.cls = SiteClass::growing;
        g.rule = "refleak";
        g.rate = rate_last;
        g.confidence = one_minus_half_power(g.marks_used);
        return g;
    }
    // The marks stopped early (the program stopped marking, a --mark-at hook
    // was removed): their "no" covers only the buckets they span. The
    // buckets from the last mark on are judged as a run without marks
    // would be; growth there is growth. (Most sites of a marked program
    // never change after the last mark: they cost one pass.)
    const unsigned marks_end = max(p.marks_end, w);
    if (marks == MarkVerdict::not_growing && marks_end + p.min_buckets <= n &&
        changes_after(series, marks_end, n)) {
        ClassifyParams unmarked = p;
        unmarked.warmup_buckets = 0;
        unmarked.marks_end = kMaxBuckets;
        Growth t = classify_history(series + marks_end, n - marks_end, nullptr, 0, unmarked);
        if (t.cls == SiteClass::growing) {
            if (t.began >= 0) t.began += static_cast<int>(marks_end);
            if (t.next_step >= 0) t.next_step += marks_end;
            t.rate_per_mark = g.rate_per_mark;
            t.marks_used = g.marks_used;
            t.marks_adding = g.marks_adding;
            t.after_marks = true;
            return t;
        }
    }
    if (m == 0 || m < p.min_buckets) return g;

    // Growing by the clock: a significant trend over the last third that
    // left the level higher by an amount that matters and that stands clear
    // of the noise. The rise is a difference of two medians of k buckets,
    // whose own noise is about sigma * sqrt(2 / k): the one buffer of random
    // size a steady loop keeps live ranks as a trend about once in a hundred
    // series, and its rise stays within trend_rise_sigmas of that noise.
    // Marks, when present, have already said no.
    const double sigma = noise_sigma(post, m);
    const double noise_band = p.band_sigmas * sigma;
    const double rise_noise = p.trend_rise_sigmas * sigma * mathx::sqrt(2.0 / k);
    if (marks == MarkVerdict::none && g.z >= p.z_growing && rise_last > 0 &&
        rise_last >= max(max(p.min_rise_bytes, rise_noise), p.growing_rise * abs(end))) {
        g.cls = SiteClass::growing;
        g.rule = "trend";
        g.rate = rate_last;
        g.confidence = mathx::normal_cdf(g.z);
        g.began = rise_began(series, w, n - 1, noise_band, p.band_share);
        return g;
    }

    // A resize staircase whose next step is not yet overdue is still
    // growing; once clearly overdue it goes on to the plateau rule.
    const Staircase st =
        marks == MarkVerdict::none ? resize_staircase(series, n, w, noise_band, p) : Staircase{};
    if (st.steps) {
        const double tail = static_cast<double>(n - 1 - st.last);
        if (tail <= (1 + p.staircase_margin) * (st.next - st.last)) {
            g.steps = st.steps;
            g.next_step = st.next;
            g.cls = SiteClass::growing;
            g.rule = "staircase";
            g.rate = st.fill_rate;
            g.confidence = one_minus_half_power(st.steps - 1);
            g.began = static_cast<int>(st.first);
            return g;
        }
    }

    // A floor rising to the end under spikes (rebuilds sampled with both
    // copies live) is growth: the same rise and noise thresholds as the
    // trend, on the floor.
    if (marks == MarkVerdict::none) {
        const double need = max(max(p.min_rise_bytes, rise_noise), p.growing_rise * abs(end));
        if (const double rise = floor_rise(series, n, w, k, need)) {
            g.cls = SiteClass::growing;
            g.rule = "floor";
            g.rate = rise / (3 * k);
            g.confidence = 1 - 1.0 / 24; // four minima rising in turn by chance: 1 in 4!
            g.began = rise_began(series, w, n - 1, noise_band, p.band_share);
            return g;
        }
    }

    // Plateau: the end level stands well above the start of the post-warm-up
    // part and clear of the noise; once reached it was held, for two buckets
    // at least (a sawtooth or noise keeps revisiting the start level; a rise
    // up to the last bucket has not stopped); and the end gave back little of
    // the peak, beyond the noise (memory released before the end is stable).
    const double start = window_median(post, k);
    const double rise = end - start;
    if (!(rise > 0 && rise >= max(max(p.min_rise_bytes, noise_band), p.plateau_rise * abs(end))))
        return g;
    const double reached = end - max(noise_band, p.band_share * abs(end));
    unsigned stopped = w;
    while (stopped + 1 < n && static_cast<double>(series[stopped]) < reached)
        ++stopped;
    const i64* held = series + stopped;
    const unsigned nh = n - stopped;
    const double peak = peak_level(post, m, k);
    if (nh < 2 || window_quantile(held, nh, 0.25) < start + rise / 2 ||
        peak - end > max(p.plateau_release * (peak - start), noise_band))
        return g;
    g.cls = SiteClass::plateau;
    g.rule = "level";
    g.steps = st.steps; // an overdue staircase, when there was one
    g.next_step = st.next;
    g.began = rise_began(series, w, stopped, noise_band, p.band_share);
    g.stopped = static_cast<int>(stopped);
    const unsigned from = g.began > 0 ? static_cast<unsigned>(g.began) - 1 : 0;
    g.rate = theil_sen(series + from, stopped - from + 1);
    g.confidence = mathx::normal_cdf(rank_sum_z(post, k, held, nh));
    return g;
}

// A release confined to the last bucket is the program shutting down: a
// local of main() freed as it returns, a Python main() returning before
// finalization. With the bytes-allocated clock, frees made without
// allocations all land in the last bucket. When the last bucket lost at least
// half the level (and min_rise_bytes), the history before it is classified
// instead, and the evidence says so; a release spread over several buckets
// still makes the site stable.
inline Growth classify(const i64* series, unsigned n, const i64* mark_live, unsigned n_marks,
                       const ClassifyParams& p) {
    if (series && n >= 2 && n <= kMaxBuckets) {
        const double before = static_cast<double>(series[n - 2]);
        const double drop = before - static_cast<double>(series[n - 1]);
        if (drop >= p.min_rise_bytes && drop >= 0.5 * before) {
            Growth history = classify_history(series, n - 1, mark_live, n_marks, p);
            if (history.cls != SiteClass::stable) {
                history.released_at_end = true;
                return history;
            }
        }
    }
    return classify_history(series, n, mark_live, n_marks, p);
}

} // namespace mg
