// SPDX-License-Identifier: GPL-2.0-or-later
// Numeric helpers for the header-only core. The tool links no libm and no
// libstdc++, so the few functions the statistics need are written here:
// no includes, no state, nothing that the compiler would turn into a call.
#pragma once

#include "types.hpp"

namespace mg {
namespace mathx {

constexpr double kMaxDouble = 1.7976931348623157e308;

template <class T> inline T abs(T x) {
    return x < 0 ? -x : x;
}
template <class T> inline T min(T a, T b) {
    return b < a ? b : a;
}
template <class T> inline T max(T a, T b) {
    return a < b ? b : a;
}

// Newton's iteration after scaling x into [1, 4) by powers of 4, so that six
// steps give full precision whatever the magnitude. 0 for x <= 0 and NaN.
inline double sqrt(double x) {
    if (!(x > 0)) return 0;
    if (x > kMaxDouble) return x;
    double scale = 1;
    while (x >= 0x1p64)
        x *= 0x1p-64, scale *= 0x1p32;
    while (x >= 4)
        x *= 0.25, scale *= 2;
    while (x < 0x1p-64)
        x *= 0x1p64, scale *= 0x1p-32;
    while (x < 1)
        x *= 4, scale *= 0.5;
    double r = 1.5; // sqrt lies in [1, 2): the error starts below 0.5
    for (int i = 0; i < 6; ++i)
        r = 0.5 * (r + x / r);
    return r * scale;
}

// e^x = 2^k * e^r with |r| <= ln2/2; e^r by its Taylor series to degree 13
// (truncation below 1e-17). Saturates to kMaxDouble above 709 and flushes to
// 0 below -708, where the result would leave the normal range anyway.
inline double exp(double x) {
    if (x != x) return x;
    if (x > 709) return kMaxDouble;
    if (x < -708) return 0;
    const double log2e = 1.4426950408889634;
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    int k = static_cast<int>(x * log2e + (x >= 0 ? 0.5 : -0.5));
    double r = (x - k * ln2_hi) - k * ln2_lo;
    double poly = 1;
    for (int i = 13; i >= 1; --i)
        poly = 1 + poly * r / i;
    double base = k >= 0 ? 2.0 : 0.5, scale = 1;
    for (unsigned e = static_cast<unsigned>(k >= 0 ? k : -k); e != 0; e >>= 1) {
        if (e & 1) scale *= base;
        base *= base;
    }
    return poly * scale;
}

// Standard normal CDF, Phi(z) = erfc(-z/sqrt 2)/2, with the Chebyshev fit of
// erfc from Numerical Recipes (relative error below 1.2e-7 everywhere).
inline double normal_cdf(double z) {
    double x = -z * 0.70710678118654752440;
    double ax = abs(x);
    double t = 1 / (1 + 0.5 * ax);
    double erfc_ax =
        t * exp(-ax * ax - 1.26551223 +
                t * (1.00002368 +
                     t * (0.37409196 +
                          t * (0.09678418 +
                               t * (-0.18628806 +
                                    t * (0.27886807 +
                                         t * (-1.13520398 +
                                              t * (1.48851587 +
                                                   t * (-0.82215223 + t * 0.17087277)))))))));
    double erfc_x = x >= 0 ? erfc_ax : 2 - erfc_ax;
    return 0.5 * erfc_x;
}

// Heapsort: in place, O(n log n) in the worst case, no recursion, no memory.
template <class T> inline void sift_down(T* a, unsigned root, unsigned n) {
    for (;;) {
        unsigned child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && a[child] < a[child + 1]) ++child;
        if (!(a[root] < a[child])) return;
        T t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

template <class T> inline void sort(T* a, unsigned n) {
    if (n < 2) return;
    for (unsigned i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (unsigned end = n - 1; end > 0; --end) {
        T t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
    }
}

// Median of a sorted array, in double so that two large middles cannot
// overflow when averaged. 0 for an empty array.
template <class T> inline double median_sorted(const T* a, unsigned n) {
    if (n == 0) return 0;
    if (n % 2) return static_cast<double>(a[n / 2]);
    return 0.5 * static_cast<double>(a[n / 2 - 1]) + 0.5 * static_cast<double>(a[n / 2]);
}

// Sorts a in place and returns its median.
template <class T> inline double median(T* a, unsigned n) {
    sort(a, n);
    return median_sorted(a, n);
}

// Lower q-quantile of a sorted array: the element at floor(q * (n - 1)).
template <class T> inline double quantile_sorted(const T* a, unsigned n, double q) {
    if (n == 0) return 0;
    unsigned i = static_cast<unsigned>(q * (n - 1));
    return static_cast<double>(a[i < n ? i : n - 1]);
}

} // namespace mathx
} // namespace mg
