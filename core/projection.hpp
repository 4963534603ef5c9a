// SPDX-License-Identifier: GPL-2.0-or-later
// The projection to a memory limit (--limit): when does the heap reach the
// limit if the growing sites keep the rates they have now? Arithmetic and
// the words of its log line, shared by the tool and tested natively.
#pragma once

#include "format.hpp"
#include "types.hpp"

namespace mg::projection {

struct Input {
    u64 limit = 0;             // bytes
    u64 live = 0;              // bytes live now (the heap the sites hold)
    u64 to_bounds = 0;         // what bounded holders still add until they are full
    double per_clock = 0;      // growing sites' combined bytes per clock unit
    double per_mark = 0;       // ... per mark (0: no mark view)
    double fill_per_clock = 0; // the sites filling bounded holders, per clock unit
    double fill_per_mark = 0;  // ... per mark
    double marks_per_h = 0;    // --mark-rate (0: not given)
};

struct Result {
    // -1: not reached at these rates (nothing grows). 0: already there.
    double clock_to_limit = -1;
    double marks_to_limit = -1;
    double hours_to_limit = -1; // from marks_to_limit and --mark-rate
};

// The heap with every bounded holder full: the growing sites go on from
// there. When the limit lies below that, it is reached while the holders
// fill, with the filling sites' rates added.
inline u64 live_at_bounds(const Input& in) {
    return in.live + in.to_bounds;
}
inline bool over_at_bounds(const Input& in) {
    return in.live < in.limit && live_at_bounds(in) >= in.limit;
}

inline Result project(const Input& in) {
    Result r;
    const bool filling = over_at_bounds(in);
    const u64 from = filling ? in.live : live_at_bounds(in);
    const double room = from >= in.limit ? 0 : static_cast<double>(in.limit - from);
    const double per_clock = in.per_clock + (filling ? in.fill_per_clock : 0);
    const double per_mark = in.per_mark + (filling ? in.fill_per_mark : 0);
    if (per_clock > 0) r.clock_to_limit = room / per_clock;
    if (per_mark > 0) r.marks_to_limit = room / per_mark;
    if (r.marks_to_limit >= 0 && in.marks_per_h > 0)
        r.hours_to_limit = r.marks_to_limit / in.marks_per_h;
    return r;
}

// "13.4M", "980", "2.1k": a count with three significant digits at most.
inline usize format_count(double v, char* out) {
    const char* suffix = "";
    const char* const units[] = {"k", "M", "G", "T", "P"};
    for (int i = 0; i < 5 && v >= 1000; ++i)
        v /= 1000, suffix = units[i];
    usize n = format_decimal(v, v < 10 ? 1 : 0, out);
    while (*suffix)
        out[n++] = *suffix++;
    out[n] = 0;
    return n;
}

// "16 GiB", "1.2 KiB", "512 bytes".
inline usize format_size(double v, char* out) {
    const char* const units[] = {" bytes", " KiB", " MiB", " GiB", " TiB", " PiB"};
    int u = 0;
    while (u < 5 && v >= 1024)
        v /= 1024, ++u;
    usize n = format_decimal(v, u && v < 100 ? 1 : 0, out);
    for (const char* s = units[u]; *s;)
        out[n++] = *s++;
    out[n] = 0;
    return n;
}

} // namespace mg::projection
