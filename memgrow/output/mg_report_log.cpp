// SPDX-License-Identifier: GPL-2.0-or-later
// The summary a person reads in the Valgrind log: totals, then the top sites
// of each class (growing first) with their evidence and stacks.
#include "mg_options.hpp"
#include "classify/mg_projection.hpp"
#include "intercept/mg_mark_at.hpp"
#include "intercept/mg_reserve.hpp"
#include "output/mg_log_text.hpp"
#include "output/mg_report.hpp"
#include "checks/mg_suppressions.hpp"
#include "records/mg_symbols.hpp"
#include "records/mg_timeline.hpp"
#include "core/format.hpp"
#include "core/py_user.hpp"
#include "holders/mg_holders.hpp"
#include "holders/mg_holder_findings.hpp"
#include "pages/mg_cow.hpp"
#include "records/mg_stack_tree.hpp"

namespace mg {

namespace {

Int by_live_desc(const void* x, const void* y) {
    SiteView a(*static_cast<const UInt*>(x));
    SiteView b(*static_cast<const UInt*>(y));
    if (a->clock.live != b->clock.live) return a->clock.live < b->clock.live ? 1 : -1;
    return a->id < b->id ? -1 : a->id > b->id ? 1 : 0;
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

void upper_class_name(SiteClass c, HChar* out) {
    VG_(strcpy)(out, class_name(c));
    for (HChar* p = out; *p; ++p)
        *p = static_cast<HChar>(*p - (*p >= 'a' && *p <= 'z' ? 32 : 0));
}

// "2.9 MB", as show prints it: a Python site's headline, a holder's.
void human_bytes(ULong b, HChar* out) {
    format_size_short(static_cast<i64>(b), out);
}

void print_evidence(const Growth& g) {
    if (g.cls == SiteClass::growing || g.cls == SiteClass::plateau) {
        HChar rate[kDecimalBuf], per_bucket[kDecimalBuf], conf[kDecimalBuf];
        format_rate(g.rate / static_cast<double>(tl.run.width), rate);
        format_rate(g.rate, per_bucket);
        format_decimal(g.confidence, 3, conf);
        VG_(umsg)
        (" evidence: %s rule, %s bytes per %s (%s per bucket of %'llu), confidence %s", g.rule,
         rate, unit_name(clo.time_unit, false), per_bucket, tl.run.width, conf);
        if (g.began >= 0)
            VG_(umsg)(", began at %'llu", tl.run.start_of(static_cast<UInt>(g.began)));
        if (g.stopped >= 0)
            VG_(umsg)(", stopped at %'llu", tl.run.end_of(static_cast<UInt>(g.stopped)));
        if (g.released_at_end) VG_(umsg)(", released just before teardown");
        if (g.after_marks) VG_(umsg)(", after the last mark");
        if (g.bound >= 0) {
            HChar fill[kDecimalBuf], at_bound[48];
            format_decimal(100 * g.fill, 0, fill, false);
            human_bytes(g.bound_bytes, at_bound);
            VG_(umsg)
            ("; its holder is bounded at %'lld, %s%% full: %s at the bound", g.bound, fill,
             at_bound);
        }
        if (g.steps) VG_(umsg)
        ("; resize staircase of %u steps; next resize %s clock %'llu", g.steps,
         VG_(strcmp)(g.rule, "staircase") == 0 ? "due at" : "overdue since", staircase_due(g));
        VG_(umsg)("\n");
    }
    if (g.marks_used) {
        HChar per_mark[kDecimalBuf];
        format_rate(g.rate_per_mark / static_cast<double>(tl.marks.width), per_mark);
        VG_(umsg)
        (" per %s: %s bytes (%u of %u repetitions added)\n",
         LogText(tl.mark_label[0] ? tl.mark_label : "mark").c_str(), per_mark, g.marks_adding,
         g.marks_used);
    }
}

// "held by: service.TOKEN_STATS (dict, 12,000 items, no bound), 1,234 bytes
// in 56 blocks, 97%", under a site's headline (docs/holders.md).
void print_held_by(const HeldBy* h, UInt n, ULong whole) {
    UInt n_all;
    const Holder* all = holders_all(&n_all);
    HChar what[160], share[kDecimalBuf];
    for (UInt i = 0; i < n; ++i) {
        const Holder& x = all[h[i].holder];
        holder_text(x, what, sizeof what);
        format_decimal(whole ? 100.0 * static_cast<double>(h[i].bytes) / whole : 0, 1, share,
                       false);
        HChar such[32] = "";
        if (h[i].count > 1) VG_(snprintf)(such, sizeof such, "; %'u such", h[i].count);
        VG_(umsg)
        (" held by: %s (%s%s), %'llu bytes in %'u blocks, %s%%\n", LogText(x.path).c_str(), what,
         such, h[i].bytes, h[i].blocks, share);
    }
}

void print_site(const Site* s, const Growth& g, UInt rank, ULong of) {
    HChar cls[16], title[256];
    upper_class_name(g.cls, cls);
    site_title(s, title, sizeof title); // the frame of the program's own code
    VG_(umsg)
    ("%s %llu of %llu: %s, %'llu bytes in %'llu blocks live (peak %'llu), %s space\n", cls,
     static_cast<ULong>(rank), of, title[0] ? LogText(title).c_str() : "(no frames)",
     static_cast<ULong>(s->clock.live), static_cast<ULong>(s->live_blocks), s->peak_bytes,
     space_name(s->space));
    print_evidence(g);
    const HeldBy* h;
    UInt n = holders_of(s->id, &h);
    print_held_by(h, n, holders_site_bytes(s->id));
    bool first = true;
    for_each_frame(s, print_frame, &first);
    if (first) VG_(umsg)("   (no frames)\n");
    VG_(umsg)("\n");
    if (VG_(clo_gen_suppressions) > 0) print_generated_suppression(s, g.cls);
}

// One native frame of a sub-site on its line: "fn (file:line)", up to three.
struct SubSiteLine {
    UInt shown;
};

void print_sub_frame(const Frame& f, void* ctx) {
    auto* l = static_cast<SubSiteLine*>(ctx);
    if (f.python || l->shown >= 3) return;
    LogText fn(f.function ? f.function : "???"), file(f.file), object(f.object ? f.object : "?");
    if (f.file)
        VG_(umsg)("%s%s (%s:%d)", l->shown ? " < " : "", fn.c_str(), file.c_str(), f.line);
    else
        VG_(umsg)("%s%s (in %s)", l->shown ? " < " : "", fn.c_str(), object.c_str());
    l->shown++;
}

Int sub_by_live_desc(const void* x, const void* y) {
    return by_live_desc(x, y);
}

// A Python site: its headline names its innermost frame in the user's code,
// then the evidence, the Python stack and its largest native sub-sites.
void print_python_site(const Analysis& a, const PySite* ps, UInt rank, ULong of) {
    HChar cls[16], bytes[48], rate[kDecimalBuf];
    const Growth& g = a.py->growth[a.py->of_site[ps->first]];
    upper_class_name(ps->cls, cls);
    human_bytes(ps->live_bytes, bytes);
    format_rate(g.rate / static_cast<double>(tl.run.width), rate);
    const HChar *fn, *file;
    Int line;
    python_site_headline(ps, &fn, &file, &line);
    if (file) file = shown_file(file); // the whole path is in the stack below
    VG_(umsg)
    ("%s %llu of %llu: %s (%s:%d), %s in %'llu blocks, %s B per %s\n", cls,
     static_cast<ULong>(rank), of, LogText(fn ? fn : "???").c_str(),
     LogText(file ? file : "?").c_str(), line, bytes, ps->live_blocks, rate,
     unit_name(clo.time_unit, false));
    print_evidence(g);
    UInt k = a.py->of_site[ps->first];
    const HeldBy* h;
    UInt n_held = holders_of_python_site(k, &h);
    print_held_by(h, n_held, holders_python_site_bytes(k));
    bool first = true;
    for_each_frame(ps->stack, SiteView(ps->first)->epoch, print_frame, &first);
    UInt* subs = static_cast<UInt*>(VG_(malloc)("mg.log.sub", (ps->n_members + 1) * sizeof(UInt)));
    UInt n = 0;
    for (UInt id = ps->first; id != kNoPySite; id = a.py->next[id])
        subs[n++] = id;
    VG_(ssort)(subs, n, sizeof(UInt), sub_by_live_desc);
    UInt shown = 0;
    while (shown < n && shown < 3 && SiteView(subs[shown])->clock.live > 0)
        ++shown;
    VG_(umsg)(" native sub-sites: %u%s\n", n, shown ? ", the largest:" : "");
    for (UInt i = 0; i < shown; ++i) {
        SiteView s(subs[i]);
        VG_(umsg)
        ("   %s %'llu bytes in %'llu blocks: ", class_name(a.growth[s->id].cls),
         static_cast<ULong>(s->clock.live), static_cast<ULong>(s->live_blocks));
        SubSiteLine l{0};
        for_each_frame(s, print_sub_frame, &l);
        VG_(umsg)("\n");
    }
    VG_(free)(subs);
    VG_(umsg)("\n");
}

Int py_by_live_desc(const void* x, const void* y) {
    const PySite* a = *static_cast<PySite* const*>(x);
    const PySite* b = *static_cast<PySite* const*>(y);
    if (a->live_bytes != b->live_bytes) return a->live_bytes < b->live_bytes ? 1 : -1;
    return a->first < b->first ? -1 : a->first > b->first ? 1 : 0;
}

void print_python_sites(const Analysis& a) {
    const PySites& py = *a.py;
    PySite** order = static_cast<PySite**>(VG_(malloc)("mg.log.py", (py.n + 1) * sizeof(PySite*)));
    for (UInt k = 0; k < py.n; ++k)
        order[k] = py.sites[k];
    VG_(ssort)(order, py.n, sizeof(PySite*), py_by_live_desc);
    const SiteClass shown[] = {SiteClass::growing, SiteClass::plateau};
    for (SiteClass c : shown) {
        ULong of = py.in_class[static_cast<UInt>(c)], rank = 0;
        for (UInt i = 0; i < py.n && rank < static_cast<ULong>(clo.top); ++i)
            if (order[i]->cls == c && !order[i]->suppressed)
                print_python_site(a, order[i], static_cast<UInt>(++rank), of);
    }
    VG_(free)(order);
}

} // namespace

void print_frame(const Frame& f, void* first_frame) {
    bool* first = static_cast<bool*>(first_frame);
    const HChar* at = *first ? "at" : "by";
    LogText fn(f.function ? f.function : "???"), file(f.file), object(f.object);
    if (f.python) // no code address: "py:" in its place
        VG_(umsg)("   %s py: %s (%s:%d)\n", at, fn.c_str(), file.c_str(), f.line);
    else if (f.file)
        VG_(umsg)("   %s %#lx: %s (%s:%d)\n", at, f.ip, fn.c_str(), file.c_str(), f.line);
    else if (f.object)
        VG_(umsg)("   %s %#lx: %s (in %s)\n", at, f.ip, fn.c_str(), object.c_str());
    else
        VG_(umsg)("   %s %#lx: %s\n", at, f.ip, fn.c_str());
    *first = false;
}

// The HEAP GROWTH SUMMARY's totals, the classes and the projection.
void print_totals(const Analysis& a) {
    const HChar* when = !tl.torn_down             ? "while running"
                        : tl.teardown_reason == 1 ? "when exit() began"
                        : tl.teardown_reason == 2 ? "when Py_FinalizeEx() began"
                                                  : "when the process ended";
    ULong live = 0, blocks = 0, now = 0;
    for (UInt id = 0; id < a.n_sites; ++id) {
        SiteView s(id);
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
    // A process with Python frames counts what the findings list (Python
    // sites, then the sites without Python frames), as show and the HTML
    // page do: one number of growing sites and bytes everywhere.
    ULong sites_in[4], bytes_in[4];
    for (UInt k = 0; k < 4; ++k)
        sites_in[k] = a.py ? 0 : a.sites_in[k], bytes_in[k] = a.py ? 0 : a.bytes_in[k];
    for (UInt k = 0; a.py && k < a.py->n; ++k) {
        const PySite* ps = a.py->sites[k];
        sites_in[static_cast<UInt>(ps->cls)]++;
        bytes_in[static_cast<UInt>(ps->cls)] += ps->live_bytes;
    }
    for (UInt id = 0; a.py && id < a.n_sites; ++id) {
        if (a.py->of_site[id] != kNoPySite) continue;
        sites_in[static_cast<UInt>(a.growth[id].cls)]++;
        bytes_in[static_cast<UInt>(a.growth[id].cls)] +=
            static_cast<ULong>(SiteView(id)->clock.live);
    }
    if (a.leaks) VG_(umsg)("       leaked: %'llu sites, %'llu bytes\n", sites_in[3], bytes_in[3]);
    VG_(umsg)("      growing: %'llu sites, %'llu bytes\n", sites_in[2], bytes_in[2]);
    VG_(umsg)("      plateau: %'llu sites, %'llu bytes\n", sites_in[1], bytes_in[1]);
    VG_(umsg)("       stable: %'llu sites, %'llu bytes\n", sites_in[0], bytes_in[0]);
    if (a.suppressed_sites) VG_(umsg)
    ("   suppressed: %'llu sites, %'llu bytes (counted above, not listed)\n", a.suppressed_sites,
     a.suppressed_bytes);
    if (a.py) VG_(umsg)
    ("    of which Python sites: %'u (leaked %'llu, growing %'llu, plateau %'llu, stable %'llu), "
     "listed first; the rest have no Python frames\n",
     a.py->n, a.py->in_class[3], a.py->in_class[2], a.py->in_class[1], a.py->in_class[0]);
    if (tl.n_marks) VG_(umsg)
    ("    marks: %'llu (warm-up ends at the first, clock %'llu)\n", tl.n_marks, tl.first_mark_at);
    if (a.marks_stopped_early) VG_(umsg)
    ("    the marks stopped early: the last at clock %'llu of %'llu; the growth after it is "
     "judged by the clock\n",
     tl.last_mark_at, a.end);
    reserve_print(a);
    projection_print(projection_of(a), a);
    VG_(umsg)("\n");
}

// "16.3 MiB", or "68 KiB" below a tenth of a MiB.
void size_text(ULong bytes, HChar* out) {
    HChar num[kDecimalBuf];
    bool mib = bytes >= 1024 * 1024 / 10;
    format_decimal(static_cast<double>(bytes) / (mib ? 1024.0 * 1024.0 : 1024.0), mib ? 1 : 0, num);
    VG_(sprintf)(out, "%s %s", num, mib ? "MiB" : "KiB");
}

// What a copied share held: "objects from app.py:14 (load)".
void held_text(const CowSummary& c, UInt i, HChar* out, SizeT size) {
    HChar place[256];
    SiteView s(c.sites[i].site);
    stack_place(s->stack, s->epoch, place, sizeof place);
    VG_(snprintf)(out, size, "objects from %s", place[0] ? LogText(place).c_str() : "(no frames)");
}

// The writers by the line a person reads: stacks that differ below it (in
// the C library, in the interpreter) are one line. Largest first.
struct WriterLine {
    HChar place[256];
    ULong bytes;
};
UInt writer_lines(const CowSummary& c, WriterLine* out, UInt max) {
    UInt n = 0;
    for (UInt k = 0; k < c.n_writers; ++k) {
        HChar raw[256], place[256];
        stack_place(c.writers[k].stack, c.writers[k].ep, raw, sizeof raw);
        VG_(snprintf)(place, sizeof place, "%s", raw[0] ? LogText(raw).c_str() : "(no frames)");
        UInt i = 0;
        while (i < n && VG_(strcmp)(out[i].place, place) != 0)
            ++i;
        if (i == n) {
            if (n == max) continue;
            VG_(strcpy)(out[n].place, place);
            out[n++].bytes = 0;
        }
        out[i].bytes += c.writers[k].bytes;
        for (; i > 0 && out[i].bytes > out[i - 1].bytes; --i) {
            WriterLine t = out[i];
            out[i] = out[i - 1];
            out[i - 1] = t;
        }
    }
    return n;
}

// A forked child's COPY-ON-WRITE section (docs/pages.md): the headline
// names the largest holder and the largest writer, then up to --top of each.
void print_cow(const CowSummary& c) {
    HChar copied[kDecimalBuf], inherited[kDecimalBuf], bytes[kDecimalBuf], held[300],
        share[kDecimalBuf];
    static WriterLine lines[64];
    UInt n_lines = writer_lines(c, lines, 64);
    size_text(c.copied_bytes, copied);
    size_text(c.inherited_bytes, inherited);
    VG_(umsg)("COPY-ON-WRITE\n");
    VG_(umsg)
    ("this process (forked from %d) copied %s of the %s it inherited", c.parent_pid, copied,
     inherited);
    if (c.n_sites) {
        held_text(c, 0, held, sizeof held);
        size_text(c.sites[0].bytes, bytes);
        VG_(umsg)(": %s held %s", bytes, held);
    }
    if (n_lines) {
        format_decimal(100.0 * static_cast<double>(lines[0].bytes) / c.copied_bytes, 0, share);
        VG_(umsg)("; first written at %s %s%%", lines[0].place, share);
    }
    VG_(umsg)("\n");
    for (UInt i = 0; i < c.n_sites && i < static_cast<UInt>(clo.top); ++i) {
        held_text(c, i, held, sizeof held);
        size_text(c.sites[i].bytes, bytes);
        VG_(umsg)(" held: %s, %s\n", bytes, held);
    }
    for (UInt r = 0; r < cow::kRegions; ++r)
        if (c.region_bytes[r]) {
            size_text(c.region_bytes[r], bytes);
            VG_(umsg)(" held: %s, %s\n", bytes, cow::region_name(static_cast<cow::Region>(r)));
        }
    for (UInt k = 0; k < n_lines && k < static_cast<UInt>(clo.top); ++k) {
        format_decimal(100.0 * static_cast<double>(lines[k].bytes) / c.copied_bytes, 1, share);
        VG_(umsg)(" written: %s%% at %s\n", share, lines[k].place);
    }
    VG_(umsg)("\n");
}

// Settings that silently changed the answer, said at the end where the
// findings are read.
static void print_config_warnings(const Analysis& a) {
    if (clo.warmup_given && clo.warmup_units && a.warmup_end >= a.end) VG_(umsg)
    ("memgrow: --warmup=%llu covers the whole run (clock %'llu %s): every site is stable; give "
     "a shorter warm-up\n",
     clo.warmup_units, a.end, unit_name(clo.time_unit, true));
    mark_at_print_warnings();
}

// The holders of growing memory lead, then the plateau ones (the --top
// largest): one finding per holder, the sites it keeps beneath, in the words
// and numbers of `memgrow-report show` (docs/holders.md).
void print_holder_class(const Analysis& a, const HChar* cls, const UInt* order, UInt n,
                        UInt shown) {
    UInt n_all;
    const Holder* all = holders_all(&n_all);
    for (UInt k = 0; k < n && k < shown; ++k) {
        const Holder& h = all[order[k]];
        const HolderFinding& f = *holder_finding(order[k]);
        HChar what[160], bytes[48], rate[kDecimalBuf];
        holder_text(h, what, sizeof what);
        if (f.count > 1) {
            SizeT len = VG_(strlen)(what);
            VG_(snprintf)(what + len, sizeof what - len, "; %'u such", f.count);
        }
        human_bytes(f.live_bytes, bytes);
        format_rate(f.growth.rate / static_cast<double>(tl.run.width), rate);
        VG_(umsg)
        ("%s HOLDER %u of %u: %s (%s) keeps %s in %'u site%s, %s B per %s\n", cls, k + 1, n,
         LogText(h.path).c_str(), what, bytes, f.n_sites, f.n_sites == 1 ? "" : "s", rate,
         unit_name(clo.time_unit, false));
        for (UInt i = 0; i < f.n_top; ++i) {
            const HolderSite& s = f.top[i];
            HChar title[256], kept[48];
            human_bytes(s.bytes, kept);
            if (s.python) {
                const HChar *fn, *file;
                Int line;
                python_site_headline(a.py->sites[s.id], &fn, &file, &line);
                VG_(snprintf)
                (title, sizeof title, "%s (%s:%d)", fn ? fn : "???", file ? shown_file(file) : "?",
                 line);
            } else {
                site_title(SiteView(s.id), title, sizeof title);
            }
            VG_(umsg)("   %s of %s\n", kept, LogText(title).c_str());
        }
        if (f.n_sites > f.n_top) VG_(umsg)
        ("   and %'u more site%s\n", f.n_sites - f.n_top, f.n_sites - f.n_top == 1 ? "" : "s");
        VG_(umsg)("\n");
    }
}

void print_holder_findings(const Analysis& a) {
    const UInt* order;
    UInt n = holder_findings_growing(&order);
    print_holder_class(a, "GROWING", order, n, n);
    n = holder_findings_plateau(&order);
    print_holder_class(a, "PLATEAU", order, n, static_cast<UInt>(clo.top));
}

void print_summary(const Analysis& a) {
    // -q keeps the findings (the sites listed below), not the totals: as
    // memcheck's LEAK SUMMARY and its loss records.
    if (VG_(clo_verbosity) > 0) print_totals(a);
    if (const CowSummary* cow = cow_summary()) print_cow(*cow);

    UInt* order = static_cast<UInt*>(VG_(malloc)("mg.log.order", (a.n_sites + 1) * sizeof(UInt)));
    for (UInt id = 0; id < a.n_sites; ++id)
        order[id] = id;
    VG_(ssort)(order, a.n_sites, sizeof(UInt), by_live_desc);
    print_holder_findings(a);
    if (a.py) print_python_sites(a);
    // Then the sites without Python frames (all of them without Python).
    const SiteClass shown[] = {SiteClass::growing, SiteClass::plateau};
    for (SiteClass c : shown) {
        ULong of = 0, rank = 0;
        for (UInt id = 0; id < a.n_sites; ++id)
            of += a.growth[id].cls == c && !(a.py && a.py->of_site[id] != kNoPySite);
        for (UInt i = 0; i < a.n_sites && rank < static_cast<ULong>(clo.top); ++i) {
            SiteView s(order[i]);
            if (a.growth[s->id].cls != c) continue;
            if (a.py && a.py->of_site[s->id] != kNoPySite) continue;
            if (a.class_suppressed_by(s->id)) continue;
            print_site(s, a.growth[s->id], static_cast<UInt>(++rank), of);
        }
    }
    VG_(free)(order);
    print_config_warnings(a);
}

} // namespace mg
