// SPDX-License-Identifier: GPL-2.0-or-later
// Number formatting without libc, shared by the JSON writer and the log
// (Valgrind's printf has no %f flags beyond the basics).
#pragma once

#include "types.hpp"

namespace mg {

constexpr usize kDecimalBuf = 48;

// Writes d's digits at out, every third from the right preceded by `comma`
// when it is not 0; returns how many characters.
inline usize put_digits(u64 d, char* out, char comma = 0) {
    char tmp[20];
    usize k = 0, n = 0;
    do
        tmp[k++] = static_cast<char>('0' + d % 10), d /= 10;
    while (d);
    while (k) {
        out[n++] = tmp[--k];
        if (comma && k && k % 3 == 0) out[n++] = comma;
    }
    return n;
}

// Writes v with at most `decimals` fractional digits (trailing zeros
// dropped) into out (kDecimalBuf bytes), NUL-terminated; returns the length.
// Values of 1e15 and more get an exponent; NaN and infinities are written
// as "nan"/"inf" (callers with stricter formats check first).
inline usize format_decimal(double v, u32 decimals, char* out, bool plus_sign = false) {
    usize n = 0;
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
    n += put_digits(whole, out + n);
    if (frac) {
        out[n++] = '.';
        for (u64 s = scale / 10; s && frac; s /= 10) {
            out[n++] = static_cast<char>('0' + frac / s);
            frac %= s;
        }
    }
    if (exp10) out[n++] = 'e', n += put_digits(static_cast<u64>(exp10), out + n);
    out[n] = 0;
    return n;
}

// How many decimals the JSON report keeps of a number: 9 below 1 (a rate
// of 0.000036 keeps its digits), else 6.
inline u32 json_decimals(double v) {
    return v > -1 && v < 1 ? 9 : 6;
}

// v as a reader of the report gets it back: rounded to json_decimals as
// format_decimal rounds, then the nearest double (one correctly rounded
// division, as a JSON parser's). The log rounds this, not v, so that a
// value near a tie prints as show prints the report's.
inline double as_written(double v) {
    double a = v < 0 ? -v : v;
    if (a >= 9e9) return v;
    double scale = json_decimals(v) == 9 ? 1e9 : 1e6;
    u64 whole = static_cast<u64>(a);
    u64 frac = static_cast<u64>((a - static_cast<double>(whole)) * scale + 0.5);
    double r = static_cast<double>(whole * static_cast<u64>(scale) + frac) / scale;
    return v < 0 ? -r : r;
}

// A growth rate as every view prints it (the log, `show`, the HTML page,
// verdicts), so that one site reads the same everywhere: 4 significant
// digits with a sign ("+0.07362", "+12.5"), or whole with thousands'
// commas from 1,000 on ("+21,418"). out: kDecimalBuf bytes.
inline usize format_rate(double v, char* out) {
    v = as_written(v);
    double a = v < 0 ? -v : v;
    if (a >= 999.5 && a < 9e18) {
        usize n = 0;
        out[n++] = v < 0 ? '-' : '+';
        n += put_digits(static_cast<u64>(a + 0.5), out + n, ',');
        out[n] = 0;
        return n;
    }
    u32 decimals = 3; // 1.234
    if (a >= 99.995)
        decimals = 1;
    else if (a >= 9.9995)
        decimals = 2;
    for (double t = 0.99995; a > 0 && a < t && decimals < 9; t /= 10)
        ++decimals;
    return format_decimal(v, decimals, out, true);
}

// A size as every view prints it in a headline: "2.9 MB", "232.0 kB" (decimal
// units, one decimal kept), "512 bytes" below a kilobyte. out: kDecimalBuf.
inline usize format_size_short(i64 bytes, char* out) {
    static const char* const units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
    u64 m = bytes < 0 ? 0 - static_cast<u64>(bytes) : static_cast<u64>(bytes);
    double v = static_cast<double>(m);
    usize u = 0;
    while (v >= 1000 && u + 1 < sizeof units / sizeof units[0])
        v /= 1000, ++u;
    usize n = 0;
    if (bytes < 0) out[n++] = '-';
    u64 whole = m, tenths = 0;
    if (u) {
        u64 t = static_cast<u64>(v * 10 + 0.5);
        whole = t / 10, tenths = t % 10;
    }
    n += put_digits(whole, out + n);
    if (u) out[n++] = '.', out[n++] = static_cast<char>('0' + tenths);
    out[n++] = ' ';
    for (const char* s = units[u]; *s;)
        out[n++] = *s++;
    out[n] = 0;
    return n;
}

} // namespace mg
