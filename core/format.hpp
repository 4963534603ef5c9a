// SPDX-License-Identifier: GPL-2.0-or-later
// Number formatting without libc, shared by the JSON writer and the log
// (Valgrind's printf has no %f flags beyond the basics).
#pragma once

#include "types.hpp"

namespace mg {

constexpr usize kDecimalBuf = 48;

// Writes v with at most `decimals` fractional digits (trailing zeros
// dropped) into out (kDecimalBuf bytes), NUL-terminated; returns the length.
// Values of 1e15 and more get an exponent; NaN and infinities are written
// as "nan"/"inf" (callers with stricter formats check first).
inline usize format_decimal(double v, u32 decimals, char* out, bool plus_sign = false) {
    usize n = 0;
    auto put_digits = [&](u64 d) {
        char tmp[20];
        int k = 0;
        do
            tmp[k++] = static_cast<char>('0' + d % 10), d /= 10;
        while (d);
        while (k)
            out[n++] = tmp[--k];
    };
    if (v != v) {
        out[0] = 'n', out[1] = 'a', out[2] = 'n', out[3] = 0;
        return 3;
    }
    if (v < 0)
        out[n++] = '-', v = -v;
    else if (plus_sign)
        out[n++] = '+';
    if (v > 1e300) {
        out[n++] = 'i', out[n++] = 'n', out[n++] = 'f', out[n] = 0;
        return n;
    }
    if (decimals > 9) decimals = 9;
    u64 scale = 1;
    for (u32 i = 0; i < decimals; ++i)
        scale *= 10;
    int exp10 = 0;
    while (v >= 1e15)
        v /= 10, ++exp10;
    u64 whole = static_cast<u64>(v);
    u64 frac =
        static_cast<u64>((v - static_cast<double>(whole)) * static_cast<double>(scale) + 0.5);
    if (frac >= scale) ++whole, frac -= scale;
    put_digits(whole);
    if (frac) {
        out[n++] = '.';
        for (u64 s = scale / 10; s && frac; s /= 10) {
            out[n++] = static_cast<char>('0' + frac / s);
            frac %= s;
        }
    }
    if (exp10) out[n++] = 'e', put_digits(static_cast<u64>(exp10));
    out[n] = 0;
    return n;
}

} // namespace mg
