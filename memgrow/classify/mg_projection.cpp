// SPDX-License-Identifier: GPL-2.0-or-later
#include "classify/mg_projection.hpp"
#include "mg_options.hpp"
#include "records/mg_symbols.hpp"
#include "records/mg_timeline.hpp"

namespace mg {

namespace {

ULong limit_bytes;
const HChar* limit_source = "";

// Reads a small file (a cgroup control file) into buf; false when absent or
// not a regular file (opened without blocking: a FIFO named by
// MEMGROW_TEST_MEMORY_MAX waited for a writer before the program started).
bool read_small_file(const HChar* path, HChar* buf, Int size) {
    SysRes r = VG_(open)(path, VKI_O_RDONLY | VKI_O_NONBLOCK, 0);
    if (sr_isError(r)) return false;
    struct vg_stat st;
    Int n = VG_(fstat)(sr_Res(r), &st) == 0 && VKI_S_ISREG(st.mode)
                ? VG_(read)(sr_Res(r), buf, size - 1)
                : 0;
    VG_(close)(sr_Res(r));
    if (n <= 0) return false;
    buf[n] = 0;
    return true;
}

// The limit in a memory.max (v2) or memory.limit_in_bytes (v1) file: a
// number of bytes and a newline; "max", or v1's page-rounded 2^63, means
// none. So does anything else: a number with more digits than a limit has
// (overflowing: 10^23 read as 178 PiB) or followed by garbage ("12345abc"
// read as 12.1 KiB).
ULong limit_in(const HChar* path) {
    HChar buf[64];
    if (!read_small_file(path, buf, sizeof buf)) return 0;
    HChar* end;
    Long n = VG_(strtoll10)(buf, &end);
    const HChar* digits = buf;
    while (*digits == ' ' || *digits == '\t')
        ++digits;
    const HChar* rest = end;
    while (*rest == ' ' || *rest == '\t' || *rest == '\n')
        ++rest;
    // 19 digits hold v1's "no limit" (2^63 rounded to pages); more overflow.
    const bool number = end != buf && !*rest && end - digits <= 19 && n > 0;
    if (!number && VG_(strncmp)(buf, "max", 3) != 0 && VG_(clo_verbosity) > 1)
        VG_(umsg)("memgrow: %s does not hold a limit in bytes: no limit\n", path);
    if (!number || static_cast<ULong>(n) >= (1ull << 62)) return 0;
    return static_cast<ULong>(n);
}

// This process's cgroup limit: the unified hierarchy's line "0::PATH", or
// the v1 memory controller's "N:memory:PATH". MEMGROW_TEST_MEMORY_MAX names
// a file to read instead (the tests' stand-in for a cgroup).
ULong cgroup_limit() {
    if (const HChar* test = VG_(getenv)("MEMGROW_TEST_MEMORY_MAX")) return limit_in(test);
    HChar text[4096], path[4200];
    if (!read_small_file("/proc/self/cgroup", text, sizeof text)) return 0;
    ULong found = 0;
    for (HChar* line = text; line && *line && !found;) {
        HChar* next = VG_(strchr)(line, '\n');
        if (next) *next++ = 0;
        if (VG_(strncmp)(line, "0::", 3) == 0) {
            VG_(snprintf)(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
            found = limit_in(path);
        } else if (HChar* m = VG_(strstr)(line, ":memory:")) {
            VG_(snprintf)
            (path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", m + 8);
            found = limit_in(path);
        }
        line = next;
    }
    return found;
}

// "under a minute", "~14 min", "~2.5 h", "~3.2 days", "~41 years", "more
// than 1,000 years": no figure longer than three digits.
void format_hours(double h, HChar* out) {
    constexpr double kYear = 365.25 * 24;
    HChar n[48];
    if (h * 60 < 1) {
        VG_(strcpy)(out, "under a minute");
    } else if (h < 1) {
        format_decimal(h * 60, h * 60 < 10 ? 1 : 0, n);
        VG_(sprintf)(out, "~%s min", n);
    } else if (h < 72) {
        format_decimal(h, 1, n);
        VG_(sprintf)(out, "~%s h", n);
    } else if (h < kYear) {
        format_decimal(h / 24, h / 24 < 100 ? 1 : 0, n);
        VG_(sprintf)(out, "~%s days", n);
    } else if (h < 1000 * kYear) {
        format_decimal(h / kYear, h / kYear < 10 ? 1 : 0, n);
        VG_(sprintf)(out, "~%s years", n);
    } else {
        VG_(strcpy)(out, "more than 1,000 years");
    }
}

// "after ~25.4 MiB more allocated, at +0.075 bytes per byte allocated", in
// the words of the clock.
void clock_phrase(double to, double rate, HChar* out, SizeT size) {
    HChar amount[64], r[48];
    format_rate(rate, r);
    switch (clo.time_unit) {
    case TimeUnit::instructions:
        projection::format_count(to, amount);
        VG_(snprintf)
        (out, size, "after ~%s more instructions, at %s bytes per instruction", amount, r);
        break;
    case TimeUnit::millis:
        format_hours(to / 3.6e6, amount);
        VG_(snprintf)
        (out, size, "in %s more run time under Valgrind, at %s bytes per ms", amount, r);
        break;
    default:
        projection::format_size(to, amount);
        VG_(snprintf)
        (out, size, "after ~%s more allocated, at %s bytes per byte allocated", amount, r);
    }
}

// The rules' rates are per bucket (of marks, of the clock).
double rate_of(const Growth& g, bool by_marks) {
    return by_marks ? g.rate_per_mark / static_cast<double>(tl.marks.width ? tl.marks.width : 1)
                    : g.rate / static_cast<double>(tl.run.width ? tl.run.width : 1);
}

double site_rate(const Projection& p, const Analysis& a, UInt id) {
    const Growth& g = a.growth[id];
    return g.cls == SiteClass::growing ? rate_of(g, p.by_marks) : 0;
}

// A site whose bounded holders are not full yet fills them at the rate it
// rose at (the bounded-holder rule keeps it).
ULong to_bounds_of(const Growth& g, ULong live) {
    return g.bound >= 0 && g.bound_bytes > live ? g.bound_bytes - live : 0;
}

} // namespace

void projection_init() {
    limit_bytes = clo.limit_bytes;
    limit_source = "option";
    if (!limit_bytes) {
        limit_bytes = cgroup_limit();
        limit_source = "cgroup";
    }
}

Projection projection_of(const Analysis& a) {
    Projection p;
    if (!limit_bytes) return p;
    p.on = true;
    p.source = limit_source;
    p.in.limit = limit_bytes;
    p.in.marks_per_h = clo.mark_rate_per_h;
    for (UInt id = 0; id < a.n_sites; ++id) {
        const ULong live = static_cast<ULong>(SiteView(id)->clock.live);
        const Growth& g = a.growth[id];
        p.in.live += live;
        if (const ULong more = to_bounds_of(g, live)) {
            p.in.to_bounds += more;
            p.in.fill_per_mark += rate_of(g, true);
            p.in.fill_per_clock += rate_of(g, false);
        }
    }
    // Growth per mark where the program marks its steps, else per clock.
    for (int pass = 0; pass < 2; ++pass) {
        p.by_marks = pass == 0;
        double sum = 0;
        for (UInt id = 0; id < a.n_sites; ++id)
            sum += site_rate(p, a, id);
        (p.by_marks ? p.in.per_mark : p.in.per_clock) = sum;
    }
    p.by_marks = p.in.per_mark > 0 || (projection::over_at_bounds(p.in) && p.in.fill_per_mark > 0);
    p.out = projection::project(p.in);
    double best = 0;
    for (UInt id = 0; id < a.n_sites; ++id)
        if (site_rate(p, a, id) > best)
            best = site_rate(p, a, id), p.top_site = static_cast<Int>(id);
    return p;
}

double projection_share(const Projection& p, const Analysis& a, UInt id) {
    double total = p.by_marks ? p.in.per_mark : p.in.per_clock;
    return total > 0 ? site_rate(p, a, id) / total : 0;
}

// "after ~21k more marks (~7.1 min at --mark-rate), at +96 bytes per mark",
// or the clock's words (clock_phrase).
void when_phrase(const Projection& p, double to, double rate, HChar* out, SizeT size) {
    if (!p.by_marks) {
        clock_phrase(to, rate, out, size);
        return;
    }
    HChar amount[48], per[48], hours[64] = {};
    projection::format_count(to, amount);
    projection::format_size(rate, per);
    if (p.out.hours_to_limit >= 0) {
        HChar h[48];
        format_hours(p.out.hours_to_limit, h);
        VG_(snprintf)(hours, sizeof hours, " (%s at --mark-rate)", h);
    }
    VG_(snprintf)(out, size, "after ~%s more marks%s, at +%s per mark", amount, hours, per);
}

void projection_print(const Projection& p, const Analysis& a) {
    if (!p.on) return;
    HChar limit[48], live[48];
    projection::format_size(static_cast<double>(p.in.limit), limit);
    projection::format_size(static_cast<double>(p.in.live), live);
    const HChar* from = p.source[0] == 'o' ? "--limit" : "the cgroup's";
    if (p.in.to_bounds) {
        HChar bounds[48];
        projection::format_size(static_cast<double>(p.in.to_bounds), bounds);
        VG_(umsg)
        ("projection: bounded holders add %s until they are full: counted in the heap\n", bounds);
    }
    double to = p.by_marks ? p.out.marks_to_limit : p.out.clock_to_limit;
    if (p.in.live >= p.in.limit) {
        VG_(umsg)
        ("projection: the heap (%s) is already over the %s limit (%s)\n", live, limit, from);
        return;
    }
    HChar when[200], share[300] = {};
    HChar full[48], at_bounds[80] = {};
    projection::format_size(static_cast<double>(projection::live_at_bounds(p.in)), full);
    if (p.in.to_bounds)
        VG_(snprintf)(at_bounds, sizeof at_bounds, ", %s at its holders' bounds", full);
    if (projection::over_at_bounds(p.in)) {
        // Under the limit now; over it once the bounded holders are full.
        VG_(strcpy)(when, "as they fill");
        if (to >= 0)
            when_phrase(p, to,
                        p.by_marks ? p.in.per_mark + p.in.fill_per_mark
                                   : p.in.per_clock + p.in.fill_per_clock,
                        when, sizeof when);
        VG_(umsg)
        ("projection: at its holders' bounds the heap would be %s, over the %s limit (%s): "
         "the heap (%s now) reaches it %s\n",
         full, limit, from, live, when);
        return;
    }
    if (to < 0) {
        VG_(umsg)
        ("projection: no site grows: at its current rates the heap (%s now%s) stays under the "
         "%s limit (%s)\n",
         live, at_bounds, limit, from);
        return;
    }
    when_phrase(p, to, p.by_marks ? p.in.per_mark : p.in.per_clock, when, sizeof when);
    if (p.top_site >= 0) {
        HChar title[256];
        site_title(SiteView(static_cast<UInt>(p.top_site)), title, sizeof title);
        if (title[0]) {
            HChar pct[16];
            format_decimal(100 * projection_share(p, a, static_cast<UInt>(p.top_site)), 0, pct);
            VG_(snprintf)(share, sizeof share, ", %s%% of it at %s", pct, title);
        }
    }
    VG_(umsg)
    ("projection: the heap (%s now) reaches the %s limit (%s) %s%s\n", live, limit, from, when,
     share);
}

void projection_write_json(JsonWriter& w, const Projection& p, const Analysis& a) {
    if (!p.on) return;
    auto number_or_null = [&w](const char* key, double v) {
        w.key(key);
        if (v < 0)
            w.null();
        else
            w.number(v);
    };
    w.key("projection");
    w.begin_object();
    w.member_u("limit_bytes", p.in.limit);
    w.member("limit_source", p.source);
    w.member_u("live_bytes", p.in.live);
    w.member_u("to_bounds_bytes", p.in.to_bounds);
    w.member("basis", p.by_marks ? "marks" : "clock");
    w.member_num("rate_per_clock", p.in.per_clock);
    w.member_num("rate_per_mark", p.in.per_mark);
    number_or_null("clock_to_limit", p.out.clock_to_limit);
    number_or_null("marks_to_limit", p.out.marks_to_limit);
    number_or_null("mark_rate_per_hour", p.in.marks_per_h > 0 ? p.in.marks_per_h : -1);
    number_or_null("hours_to_limit", p.out.hours_to_limit);
    w.key("top_site");
    if (p.top_site < 0)
        w.null();
    else
        w.uinteger(static_cast<ULong>(p.top_site));
    w.key("sites"); // the growing sites by id, with their shares of the rate
    w.begin_array();
    for (UInt id = 0; id < a.n_sites; ++id) {
        if (a.growth[id].cls != SiteClass::growing) continue;
        w.begin_object();
        w.member_u("id", id);
        w.member_num("share", projection_share(p, a, id));
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

} // namespace mg
