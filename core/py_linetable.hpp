// SPDX-License-Identifier: GPL-2.0-or-later
// CPython's location table (co_linetable, PEP 626; 3.11 and 3.12 share the
// format, Objects/locations.md): from a code object's table to "which line
// does code unit N belong to". The tool decodes each code object's table
// once, into runs, and answers each allocation's question with a binary
// search.
#pragma once

#include "types.hpp"

namespace mg {
namespace pyline {

// Code units [previous run's end, end) are on `line`; line < 0: no line
// (CPython's "no location" entries, e.g. compiler-generated cleanup).
struct Run {
    u32 end;
    i32 line;
};

namespace detail {

struct Reader {
    const u8* p;
    const u8* end;
    bool ok = true;

    u32 byte() {
        if (p >= end) {
            ok = false;
            return 0;
        }
        return *p++;
    }
    // 6-bit chunks, least significant first; bit 6 says another follows.
    u32 varint() {
        u32 b = byte(), value = b & 63;
        for (u32 shift = 6; ok && (b & 64); shift += 6) {
            if (shift >= 32) { // no line or column needs more: garbage
                ok = false;
                break;
            }
            b = byte();
            value |= (b & 63) << shift;
        }
        return value;
    }
    i32 svarint() {
        u32 v = varint();
        return (v & 1) ? -static_cast<i32>(v >> 1) : static_cast<i32>(v >> 1);
    }
};

} // namespace detail

// Calls emit(Run) for each entry of the table, in order, merging neighbours
// on the same line. Returns false if the table is malformed (a byte without
// the entry-start bit where one must start, or a truncated entry); the runs
// emitted so far are still right.
template <class Emit> bool decode(const u8* table, usize size, i32 first_line, Emit emit) {
    detail::Reader r{table, table + size};
    i32 line = first_line;
    u32 unit = 0;
    Run pending{0, 0};
    bool have_pending = false;
    while (r.p < r.end) {
        u32 first = r.byte();
        if (!(first & 0x80)) return false;
        u32 code = (first >> 3) & 15, length = (first & 7) + 1;
        bool has_line = true;
        if (code == 15) {
            has_line = false;
        } else if (code == 14) { // long form: line delta, end line, columns
            line += r.svarint();
            r.varint(), r.varint(), r.varint();
        } else if (code == 13) { // no column information
            line += r.svarint();
        } else if (code >= 10) { // one-line form: delta 0..2, two column bytes
            line += static_cast<i32>(code) - 10;
            r.byte(), r.byte();
        } else { // short form: same line, one column byte
            r.byte();
        }
        if (!r.ok) return false;
        unit += length;
        i32 run_line = has_line ? line : -1;
        if (have_pending && pending.line == run_line) {
            pending.end = unit;
        } else {
            if (have_pending) emit(pending);
            pending = Run{unit, run_line};
            have_pending = true;
        }
    }
    if (have_pending) emit(pending);
    return true;
}

// The line of code unit `unit` in runs sorted by end; -1 past the end or on
// a unit without a line.
inline i32 line_of(const Run* runs, u32 n, u32 unit) {
    u32 lo = 0, hi = n;
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2;
        if (runs[mid].end <= unit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n ? runs[lo].line : -1;
}

} // namespace pyline
} // namespace mg
