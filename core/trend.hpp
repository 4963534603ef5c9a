// SPDX-License-Identifier: GPL-2.0-or-later
// Trend statistics on a window of a series of live bytes: the Mann–Kendall
// test for a monotone trend, the Theil–Sen slope, the rank-sum test between
// two windows, and robust levels and noise. All rank-based or median-based,
// so that a few wild buckets cannot decide anything.
//
// A window holds at most kMaxWindow values (longer inputs are cut to their
// last kMaxWindow); scratch lives on the stack, 16 KiB at most (theil_sen).
#pragma once

#include "mathx.hpp"

namespace mg {

constexpr unsigned kMaxWindow = 64;

struct MannKendall {
    i64 s = 0;      // sum of sign(x[j] - x[i]) over all i < j
    double var = 0; // variance of S when there is no trend, corrected for ties
    double z = 0;   // continuity-corrected (S -+ 1) / sqrt(var); 0 when var is 0
};

namespace trend_detail {

inline unsigned clip(const i64*& x, unsigned n) {
    if (n <= kMaxWindow) return n;
    x += n - kMaxWindow;
    return kMaxWindow;
}

// Copies x into out (kMaxWindow values at most) and sorts it.
inline unsigned sorted_copy(const i64* x, unsigned n, i64* out) {
    n = clip(x, n);
    for (unsigned i = 0; i < n; ++i)
        out[i] = x[i];
    mathx::sort(out, n);
    return n;
}

// Sum of f(t) over the groups of t equal values of a sorted array.
template <class F> inline double sum_over_ties(const i64* sorted, unsigned n, F f) {
    double sum = 0;
    for (unsigned i = 0; i < n;) {
        unsigned j = i + 1;
        while (j < n && sorted[j] == sorted[i])
            ++j;
        sum += f(static_cast<double>(j - i));
        i = j;
    }
    return sum;
}

// Moves a statistic half a unit towards 0 (continuity correction), never past it.
inline double toward_zero(double d, double by) {
    if (d > by) return d - by;
    if (d < -by) return d + by;
    return 0;
}

} // namespace trend_detail

inline MannKendall mann_kendall(const i64* x, unsigned n) {
    using namespace trend_detail;
    MannKendall mk;
    n = clip(x, n);
    for (unsigned i = 0; i < n; ++i)
        for (unsigned j = i + 1; j < n; ++j)
            mk.s += (x[j] > x[i]) - (x[j] < x[i]);
    i64 sorted[kMaxWindow];
    sorted_copy(x, n, sorted);
    const double dn = n;
    const double ties =
        sum_over_ties(sorted, n, [](double t) { return t * (t - 1) * (2 * t + 5); });
    mk.var = (dn * (dn - 1) * (2 * dn + 5) - ties) / 18;
    if (mk.var > 0) mk.z = toward_zero(static_cast<double>(mk.s), 1) / mathx::sqrt(mk.var);
    return mk;
}

// Median of the slopes (x[j] - x[i]) / (j - i) over all pairs i < j, in
// units per bucket; 0 for fewer than two values.
inline double theil_sen(const i64* x, unsigned n) {
    n = trend_detail::clip(x, n);
    double slopes[kMaxWindow * (kMaxWindow - 1) / 2];
    unsigned k = 0;
    for (unsigned i = 0; i < n; ++i)
        for (unsigned j = i + 1; j < n; ++j)
            slopes[k++] = (static_cast<double>(x[j]) - static_cast<double>(x[i])) / (j - i);
    return mathx::median(slopes, k);
}

// Mann–Whitney z that the values of `hi` lie above those of `lo`, with the
// tie correction and the continuity correction; 0 when either is empty or
// all values are equal.
inline double rank_sum_z(const i64* lo, unsigned nl, const i64* hi, unsigned nh) {
    using namespace trend_detail;
    nl = clip(lo, nl);
    nh = clip(hi, nh);
    if (nl == 0 || nh == 0) return 0;
    double u = 0;
    for (unsigned i = 0; i < nl; ++i)
        for (unsigned j = 0; j < nh; ++j)
            u += hi[j] > lo[i] ? 1 : hi[j] == lo[i] ? 0.5 : 0;
    i64 all[2 * kMaxWindow];
    for (unsigned i = 0; i < nl; ++i)
        all[i] = lo[i];
    for (unsigned j = 0; j < nh; ++j)
        all[nl + j] = hi[j];
    const unsigned n = nl + nh;
    mathx::sort(all, n);
    const double ties = sum_over_ties(all, n, [](double t) { return t * t * t - t; });
    const double dn = n, pairs = static_cast<double>(nl) * nh;
    const double var = pairs / 12 * ((dn + 1) - ties / (dn * (dn - 1)));
    if (!(var > 0)) return 0;
    return toward_zero(u - pairs / 2, 0.5) / mathx::sqrt(var);
}

// Median of a window (the window is not modified).
inline double window_median(const i64* x, unsigned n) {
    i64 sorted[kMaxWindow];
    n = trend_detail::sorted_copy(x, n, sorted);
    return mathx::median_sorted(sorted, n);
}

// Lower q-quantile of a window.
inline double window_quantile(const i64* x, unsigned n, double q) {
    i64 sorted[kMaxWindow];
    n = trend_detail::sorted_copy(x, n, sorted);
    return mathx::quantile_sorted(sorted, n, q);
}

// Standard deviation of the noise around the local level, estimated from
// the successive differences: a trend shifts them all by the same amount and
// a few steps are outliers, so their median absolute deviation sees only the
// noise (scaled to a normal sigma, and by 1/sqrt 2 for the difference).
inline double noise_sigma(const i64* x, unsigned n) {
    n = trend_detail::clip(x, n);
    if (n < 3) return 0;
    double d[kMaxWindow];
    const unsigned nd = n - 1;
    for (unsigned i = 0; i < nd; ++i)
        d[i] = static_cast<double>(x[i + 1]) - static_cast<double>(x[i]);
    double centre = mathx::median(d, nd);
    for (unsigned i = 0; i < nd; ++i)
        d[i] = mathx::abs(d[i] - centre);
    return 1.4826 * 0.70710678118654752440 * mathx::median(d, nd);
}

} // namespace mg
