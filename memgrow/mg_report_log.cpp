// The summary a person reads in the Valgrind log: totals, then the top sites
// of each class (growing first) with their evidence and stacks.
#include "mg_options.hpp"
#include "mg_report.hpp"
#include "mg_suppressions.hpp"
#include "mg_symbols.hpp"
#include "mg_timeline.hpp"
#include "../core/format.hpp"

namespace mg {

namespace {

Int by_live_desc(const void* x, const void* y) {
    const Site* a = site_at(*static_cast<const UInt*>(x));
    const Site* b = site_at(*static_cast<const UInt*>(y));
    if (a->clock.live != b->clock.live) return a->clock.live < b->clock.live ? 1 : -1;
    return a->id < b->id ? -1 : 1;
}

// "bytes allocated" in totals, "byte allocated" in rates.
const HChar* unit_name(TimeUnit u, bool plural) {
    switch (u) {
    case TimeUnit::instructions:
        return plural ? "instructions" : "instruction";
    case TimeUnit::millis:
        return "ms";
    default:
        return plural ? "bytes allocated" : "byte allocated";
    }
}

void print_site(const Site* s, const Growth& g, UInt rank, ULong of) {
    HChar cls[16];
    VG_(strcpy)(cls, class_name(g.cls));
    for (HChar* c = cls; *c; ++c)
        *c = static_cast<HChar>(*c - (*c >= 'a' && *c <= 'z' ? 32 : 0));
    VG_(umsg)
    ("%s %llu of %llu: %'llu bytes in %'llu blocks live (peak %'llu), %s space\n", cls,
     static_cast<ULong>(rank), of, static_cast<ULong>(s->clock.live), s->live_blocks, s->peak_bytes,
     space_name(s->space));
    if (g.cls == SiteClass::growing || g.cls == SiteClass::plateau) {
        HChar rate[kDecimalBuf], per_bucket[kDecimalBuf], conf[kDecimalBuf];
        format_decimal(g.rate / static_cast<double>(tl.run.width), 4, rate, true);
        format_decimal(g.rate, 0, per_bucket, true);
        format_decimal(g.confidence, 3, conf);
        VG_(umsg)
        (" evidence: %s rule, %s bytes per %s (%s per bucket of %'llu), confidence %s", g.rule,
         rate, unit_name(clo.time_unit, false), per_bucket, tl.run.width, conf);
        if (g.began >= 0)
            VG_(umsg)(", began at %'llu", tl.run.end_of(static_cast<UInt>(g.began)) - tl.run.width);
        if (g.stopped >= 0)
            VG_(umsg)(", stopped at %'llu", tl.run.end_of(static_cast<UInt>(g.stopped)));
        if (g.released_at_end) VG_(umsg)(", released just before teardown");
        if (g.steps) VG_(umsg)
        ("; resize staircase of %u steps; next resize %s clock %'llu", g.steps,
         VG_(strcmp)(g.rule, "staircase") == 0 ? "due at" : "overdue since", staircase_due(g));
        VG_(umsg)("\n");
    }
    if (g.marks_used) {
        HChar per_mark[kDecimalBuf];
        format_decimal(g.rate_per_mark / static_cast<double>(tl.marks.width), 1, per_mark, true);
        VG_(umsg)
        (" per mark: %s bytes (%u of %u repetitions added)\n", per_mark, g.marks_adding,
         g.marks_used);
    }
    bool first = true;
    for_each_frame(s, print_frame, &first);
    if (first) VG_(umsg)("   (no frames)\n");
    VG_(umsg)("\n");
    if (VG_(clo_gen_suppressions) > 0) print_generated_suppression(s, g.cls);
}

} // namespace

void print_frame(const Frame& f, void* first_frame) {
    bool* first = static_cast<bool*>(first_frame);
    const HChar* fn = f.function ? f.function : "???";
    if (f.python) // no code address: "py:" in its place
        VG_(umsg)("   %s py: %s (%s:%d)\n", *first ? "at" : "by", fn, f.file, f.line);
    else if (f.file)
        VG_(umsg)("   %s %#lx: %s (%s:%d)\n", *first ? "at" : "by", f.ip, fn, f.file, f.line);
    else if (f.object)
        VG_(umsg)("   %s %#lx: %s (in %s)\n", *first ? "at" : "by", f.ip, fn, f.object);
    else
        VG_(umsg)("   %s %#lx: %s\n", *first ? "at" : "by", f.ip, fn);
    *first = false;
}

void print_summary(const Analysis& a) {
    const HChar* when = !tl.torn_down             ? "while running"
                        : tl.teardown_reason == 1 ? "when exit() began"
                        : tl.teardown_reason == 2 ? "when Py_FinalizeEx() began"
                                                  : "when the process ended";
    ULong live = 0, blocks = 0, now = 0;
    for (UInt id = 0; id < a.n_sites; ++id) {
        const Site* s = site_at(id);
        live += static_cast<ULong>(s->clock.live);
        blocks += s->live_blocks;
        now += s->live_bytes_now;
    }
    VG_(umsg)("\n");
    VG_(umsg)
    ("HEAP GROWTH SUMMARY (classified %s, clock %'llu %s):\n", when, a.end,
     unit_name(clo.time_unit, true));
    VG_(umsg)
    ("    live then: %'llu bytes in %'llu blocks, %'u allocation sites\n", live, blocks, a.n_sites);
    VG_(umsg)("    still allocated at exit: %'llu bytes\n", now);
    if (a.leaks)
        VG_(umsg)("       leaked: %'llu sites, %'llu bytes\n", a.sites_in[3], a.bytes_in[3]);
    VG_(umsg)("      growing: %'llu sites, %'llu bytes\n", a.sites_in[2], a.bytes_in[2]);
    VG_(umsg)("      plateau: %'llu sites, %'llu bytes\n", a.sites_in[1], a.bytes_in[1]);
    VG_(umsg)("       stable: %'llu sites, %'llu bytes\n", a.sites_in[0], a.bytes_in[0]);
    if (a.suppressed_sites) VG_(umsg)
    ("   suppressed: %'llu sites, %'llu bytes (counted above, not listed)\n", a.suppressed_sites,
     a.suppressed_bytes);
    if (tl.n_marks) VG_(umsg)
    ("    marks: %'llu (warm-up ends at the first, clock %'llu)\n", tl.n_marks, tl.first_mark_at);
    VG_(umsg)("\n");

    UInt* order = static_cast<UInt*>(VG_(malloc)("mg.log.order", (a.n_sites + 1) * sizeof(UInt)));
    for (UInt id = 0; id < a.n_sites; ++id)
        order[id] = id;
    VG_(ssort)(order, a.n_sites, sizeof(UInt), by_live_desc);
    const SiteClass shown[] = {SiteClass::growing, SiteClass::plateau};
    for (SiteClass c : shown) {
        ULong of = a.sites_in[static_cast<UInt>(c)], rank = 0;
        for (UInt i = 0; i < a.n_sites && rank < static_cast<ULong>(clo.top); ++i) {
            const Site* s = site_at(order[i]);
            if (a.growth[s->id].cls != c) continue;
            if (a.class_suppressed_by && a.class_suppressed_by[s->id]) continue;
            print_site(s, a.growth[s->id], static_cast<UInt>(++rank), of);
        }
    }
    VG_(free)(order);
}

} // namespace mg
