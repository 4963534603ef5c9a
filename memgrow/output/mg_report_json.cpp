// SPDX-License-Identifier: GPL-2.0-or-later
#include "checks/mg_errors.hpp"
#include "intercept/mg_host_insns.hpp"
#include "intercept/mg_mark_at.hpp"
#include "mg_options.hpp"
#include "classify/mg_projection.hpp"
#include "output/mg_report.hpp"
#include "output/mg_report_file.hpp"
#include "output/mg_report_select.hpp"
#include "holders/mg_holders.hpp"
#include "holders/mg_holder_findings.hpp"
#include "intercept/mg_reserve.hpp"
#include "pages/mg_cow.hpp"
#include "pages/mg_resident.hpp"
#include "records/mg_symbols.hpp"
#include "output/mg_stack_table.hpp"
#include "records/mg_stack_tree.hpp"
#include "records/mg_timeline.hpp"
#include "core/intern_table.hpp"
#include "core/json_writer.hpp"

namespace mg {

namespace {

struct FileSink {
    Int fd;
    Int error; // the errno of the first failed write, 0 while none
};

void write_to_fd(void* ctx, const char* data, usize len) {
    auto* f = static_cast<FileSink*>(ctx);
    while (len && !f->error) {
        Int n = VG_(write)(f->fd, data, static_cast<Int>(len > (1u << 20) ? (1u << 20) : len));
        if (n < 0)
            f->error = -n;
        else if (n == 0)
            f->error = VKI_EIO;
        else
            data += n, len -= static_cast<usize>(n);
    }
}

const HChar* teardown_name(UInt reason) {
    switch (reason) {
    case 1:
        return "exit";
    case 2:
        return "py_finalize";
    default:
        return "process_end";
    }
}

// Clock value at the end of bucket i, the last bucket ending at `end`.
ULong bucket_end(UInt i, const Analysis& a) {
    ULong e = tl.run.end_of(i);
    return e < a.end ? e : a.end;
}

void write_frame(const Frame& f, void* ctx) {
    auto* w = static_cast<JsonWriter*>(ctx);
    w->begin_object();
    w->member("function", f.function);
    w->member("file", f.file);
    w->key("line");
    if (f.line > 0)
        w->integer(f.line);
    else
        w->null();
    w->member("object", f.object);
    w->member_bool("python", f.python);
    HChar ip[24];
    VG_(sprintf)(ip, "%#lx", f.ip);
    w->member("ip", f.python ? nullptr : ip);
    w->end_object();
}

void write_frames(JsonWriter& w, const Site* s) {
    w.key("frames");
    w.begin_array();
    for_each_frame(s, write_frame, &w);
    w.end_array();
}

void write_ec_frames(JsonWriter& w, const HChar* key, ExeContext* ec) {
    w.key(key);
    if (!ec) {
        w.null();
        return;
    }
    // An unarchived ExeContext has no epoch of its own: symbolise now.
    w.begin_array();
    for_each_frame(VG_(get_ExeContext_StackTrace)(ec),
                   static_cast<UInt>(VG_(get_ExeContext_n_ips)(ec)), VG_(current_DiEpoch)(),
                   write_frame, &w);
    w.end_array();
}

void write_growth(JsonWriter& w, const Growth& g, SiteClass history, const Analysis& a,
                  const HChar* key = "growth") {
    w.key(key);
    w.begin_object();
    w.member("class", class_name(history));
    w.member("rule", g.rule);
    w.member_num("rate", g.rate / static_cast<double>(tl.run.width));
    w.member_num("rate_per_bucket", g.rate);
    w.key("rate_per_mark");
    if (g.marks_used)
        w.number(g.rate_per_mark / static_cast<double>(tl.marks.width));
    else
        w.null();
    w.member_num("confidence", g.confidence);
    w.member_num("trend_z", g.z);
    w.key("began_at");
    if (g.began >= 0)
        w.uinteger(tl.run.start_of(static_cast<UInt>(g.began)));
    else
        w.null();
    w.key("stopped_at");
    if (g.stopped >= 0)
        w.uinteger(bucket_end(static_cast<UInt>(g.stopped), a));
    else
        w.null();
    w.member_u("marks_used", g.marks_used);
    w.member_u("marks_adding", g.marks_adding);
    w.member_bool("released_at_end", g.released_at_end);
    if (g.after_marks) w.member_bool("after_marks", true); // growing after the marks stopped
    w.member_u("staircase_steps", g.steps);
    w.key("next_step_at"); // resize staircase: when its next step is due (may be past the end)
    if (g.steps)
        w.uinteger(staircase_due(g));
    else
        w.null();
    if (g.bound >= 0) { // plateau by the bounded-holder rule
        w.member_u("bound", static_cast<ULong>(g.bound));
        w.member_num("fill", g.fill);
        w.member_u("bound_bytes", g.bound_bytes);
    }
    w.end_object();
}

void write_series(JsonWriter& w, const HChar* key, const Site* s, UInt n, int which) {
    w.key(key);
    w.begin_array();
    for (UInt i = 0; i < n; ++i) {
        if (which == 0)
            w.integer(s->clock.level_at(i));
        else if (which == 1)
            w.uinteger(s->clock.alloc_at(i));
        else
            w.uinteger(s->clock.freed(i));
    }
    w.end_array();
}

const HChar* part_key(UInt part) {
    return part == kStartupPart ? "lost_at_startup" : "lost_by_teardown";
}

// The parts of "lost" allocated before start-up ended and reachable when
// teardown began (each absent when none was).
void write_lost_apart(JsonWriter& w, const SiteLeak& l, const Analysis& a) {
    for (UInt part = kStartupPart; part < kLeakParts; ++part) {
        const PartLeak& p = l.apart[part - 1];
        ULong bytes = 0;
        for (UInt k = 0; k < kReachable; ++k)
            bytes += p.bytes[k];
        if (!bytes || !leak_part_told(*a.leaks, part)) continue;
        w.key(part_key(part));
        w.begin_object();
        for (UInt k = 0; k < kReachable; ++k)
            w.member_u(leak_kind_name(k), p.bytes[k]);
        w.end_object();
    }
}

// What the leak scan found of the site's blocks: bytes by kind under
// "lost" (the contract), blocks by kind beside it.
void write_site_leaks(JsonWriter& w, UInt id, const Analysis& a) {
    const SiteLeak& l = a.leaks->site(id);
    for (int blocks = 0; blocks < 2; ++blocks) {
        w.key(blocks ? "lost_blocks" : "lost");
        w.begin_object();
        for (UInt k = 0; k < kReachable; ++k)
            w.member_u(leak_kind_name(k), blocks ? l.blocks[k] : l.bytes[k]);
        w.end_object();
    }
    w.member_u("reachable_bytes", l.bytes[kReachable]);
    w.member_u("indirect_through", l.indirect_through);
    write_lost_apart(w, l, a);
    const HChar* supp = a.leak_suppressed_by(id);
    w.member_bool("lost_suppressed", supp != nullptr);
}

// The scan's totals, memcheck's LEAK SUMMARY: bytes and blocks by kind, the
// suppressed ones apart, and what the heuristics made reachable.
void write_leak_check(JsonWriter& w, const Analysis& a) {
    const LeakScan* scan = a.leaks;
    ULong sup[kLeakKinds + 1], sup_blocks[kLeakKinds + 1];
    suppressed_totals(scan, a, sup, sup_blocks);
    w.key("leak_check");
    w.begin_object();
    w.member("mode", clo.leak_check == LeakCheck::full      ? "full"
                     : clo.leak_check == LeakCheck::summary ? "summary"
                                                            : "no"); // scans were requested
    w.member_u("scans", scan->number);
    w.member_u("scanned_bytes", scan->scanned_bytes);
    w.key("heuristics");
    w.begin_array();
    for (UInt h = 1; h < reach::kHeuristicCount; ++h)
        if (clo.heuristics & (1u << h)) w.string(reach::heuristic_name(h));
    w.end_array();
    for (UInt k = 0; k <= kLeakKinds; ++k) {
        w.key(k == kLeakKinds ? "suppressed" : leak_kind_name(k));
        w.begin_object();
        bool total = k == kLeakKinds;
        w.member_u("bytes", total ? sup[k] : scan->bytes[k] - sup[k]);
        w.member_u("blocks", total ? sup_blocks[k] : scan->blocks[k] - sup_blocks[k]);
        w.end_object();
    }
    // Of the lost kinds above (memcheck's exit totals): what was allocated
    // before start-up ended (absent when no start-up was announced) and
    // what was reachable when teardown began (absent when no teardown scan
    // ran).
    for (UInt part = kStartupPart; part < kLeakParts; ++part) {
        if (!leak_part_told(*scan, part)) continue;
        ULong psup[kLeakKinds + 1], psup_blocks[kLeakKinds + 1];
        suppressed_totals(scan, a, psup, psup_blocks, part);
        w.key(part_key(part));
        w.begin_object();
        for (UInt k = 0; k < kReachable; ++k) {
            w.key(leak_kind_name(k));
            w.begin_object();
            w.member_u("bytes", scan->part_bytes[part - 1][k] - psup[k]);
            w.member_u("blocks", scan->part_blocks[part - 1][k] - psup_blocks[k]);
            w.end_object();
        }
        w.end_object();
    }
    if (scan->startup_end) w.member_u("startup_end", scan->startup_end);
    w.key("reachable_via_heuristic");
    w.begin_object();
    for (UInt h = 1; h < reach::kHeuristicCount; ++h) {
        if (!scan->heuristic_blocks[h]) continue;
        w.key(reach::heuristic_name(h));
        w.begin_object();
        w.member_u("bytes", scan->heuristic_bytes[h]);
        w.member_u("blocks", scan->heuristic_blocks[h]);
        w.end_object();
    }
    w.end_object();
    w.end_object();
}

void write_holder_fields(JsonWriter& w, const Holder& x) {
    w.member("path", x.path);
    w.member("root", root_kind_name(x.root));
    w.key("type");
    if (x.type)
        w.string(x.type);
    else
        w.null();
    w.key("length");
    if (x.length >= 0)
        w.integer(x.length);
    else
        w.null();
    w.key("bound");
    if (x.bound >= 0)
        w.integer(x.bound);
    else
        w.null();
}

// What this report lists (output/mg_report_select.hpp), while it is written.
__constinit const ReportSelection* selection;
bool listed(UInt id);

// "holders": every holder named at the scan, by index, one finding each
// (docs/holders.md).
void write_holders(JsonWriter& w, const Analysis& a) {
    UInt n;
    const Holder* all = holders_all(&n);
    if (!n) return;
    w.key("holders");
    w.begin_array();
    for (UInt i = 0; i < n; ++i) {
        w.begin_object();
        w.member_u("id", i);
        write_holder_fields(w, all[i]);
        w.member_u("bytes", all[i].bytes);
        w.member_u("blocks", all[i].blocks);
        if (const HolderFinding* f = holder_finding(i)) {
            w.member("class", class_name(f->growth.cls));
            w.member_num("rate", f->growth.rate / static_cast<double>(tl.run.width));
            w.member_u("live_bytes", f->live_bytes);
            w.member_u("n_sites", f->n_sites);
            for (int python = 1; python >= 0; --python) { // the largest it keeps
                w.key(python ? "python_sites" : "sites");
                w.begin_array();
                for (UInt k = 0; k < f->n_top; ++k) // those the report lists
                    if (f->top[k].python == static_cast<bool>(python) &&
                        (python ? selection->py[f->top[k].id] : listed(f->top[k].id)))
                        w.uinteger(f->top[k].id);
                w.end_array();
            }
            // What the log prints beneath the finding, in its order: the
            // members and the bytes of each it keeps.
            w.key("members");
            w.begin_array();
            for (UInt k = 0; k < f->n_top; ++k) {
                const HolderSite& s = f->top[k];
                if (!(s.python ? selection->py[s.id] : listed(s.id))) continue;
                w.begin_object();
                w.member_bool("python", s.python);
                w.member_u("id", s.id);
                w.member_u("bytes", s.bytes);
                w.end_object();
            }
            w.end_array();
            write_growth(w, f->growth, f->growth.cls, a);
        }
        w.end_object();
    }
    w.end_array();
}

// "held_by" (docs/holders.md): who holds the site's memory at the scan,
// largest first; "holder" indexes the report's "holders".
void write_held_by(JsonWriter& w, const HeldBy* h, UInt n, ULong whole) {
    if (!n) return;
    UInt n_all;
    const Holder* all = holders_all(&n_all);
    w.key("held_by");
    w.begin_array();
    for (UInt i = 0; i < n; ++i) {
        const Holder& x = all[h[i].holder];
        w.begin_object();
        write_holder_fields(w, x);
        w.member_u("holder", h[i].holder);
        w.member_u("count", h[i].count);
        w.member_u("bytes", h[i].bytes);
        w.member_u("blocks", h[i].blocks);
        w.member_num("share", whole ? static_cast<double>(h[i].bytes) / whole : 0.0);
        w.end_object();
    }
    w.end_array();
}

void write_site_held_by(JsonWriter& w, UInt id) {
    const HeldBy* h;
    UInt n = holders_of(id, &h);
    write_held_by(w, h, n, holders_site_bytes(id));
}

void write_python_site_held_by(JsonWriter& w, UInt k) {
    const HeldBy* h;
    UInt n = holders_of_python_site(k, &h);
    write_held_by(w, h, n, holders_python_site_bytes(k));
}

struct Counts {
    ULong live_bytes, live_blocks, peak_bytes, allocated_bytes, allocated_blocks;
    ULong at_exit_bytes, at_exit_blocks;
};

// The fields a site and a Python site share, up to their byte counts.
void write_head(JsonWriter& w, UInt id, Space space, UInt device, SiteClass cls, const Counts& c) {
    w.member_u("id", id);
    w.member("space", space_name(space));
    if (space_on_device(space)) w.member_u("device", device);
    w.member("class", class_name(cls));
    w.member_u("live_bytes", c.live_bytes);
    w.member_u("live_blocks", c.live_blocks);
    w.member_u("peak_bytes", c.peak_bytes);
    w.member_u("allocated_bytes", c.allocated_bytes);
    w.member_u("allocated_blocks", c.allocated_blocks);
    w.member_u("at_exit_bytes", c.at_exit_bytes);
    w.member_u("at_exit_blocks", c.at_exit_blocks);
}

void write_site(JsonWriter& w, const Site* s, const Analysis& a) {
    const Growth& g = a.growth[s->id];
    w.begin_object();
    write_head(w, s->id, s->space, s->device, g.cls,
               {static_cast<ULong>(s->clock.live), s->live_blocks, s->peak_bytes,
                s->clock.allocated, s->allocated_blocks, s->live_bytes_now, s->live_blocks_now});
    const HChar* supp = a.class_suppressed_by(s->id);
    w.member_bool("suppressed", supp != nullptr);
    if (supp) w.member("suppression", supp);
    if (a.leaks) write_site_leaks(w, s->id, a);
    write_site_held_by(w, s->id);
    write_growth(w, g, a.growth_class[s->id], a);
    write_series(w, "series", s, a.n_buckets, 0);
    write_series(w, "allocated_series", s, a.n_buckets, 1);
    write_series(w, "freed_series", s, a.n_buckets, 2);
    if (a.n_mark_buckets) {
        i64 scratch[kBuckets];
        const i64* m = mark_levels(s, a.n_mark_buckets, scratch);
        w.key("mark_series");
        w.begin_array();
        for (UInt i = 0; i < a.n_mark_buckets; ++i)
            w.integer(m[i]);
        w.end_array();
    }
    write_frames(w, s);
    w.end_object();
}

bool listed(UInt id) {
    return selection->site[id];
}

// A forked child's copy-on-write (docs/pages.md): what its copied pages
// held, by site or region, and the stacks that first wrote them (format 2:
// "stack", a node of the stack table; format 1: "frames").
void write_fork(JsonWriter& w, const CowSummary& c, bool v2) {
    w.key("fork");
    w.begin_object();
    w.member_u("parent_pid", static_cast<ULong>(c.parent_pid));
    w.member_u("inherited_bytes", c.inherited_bytes);
    w.member_u("copied_bytes", c.copied_bytes);
    w.key("copied");
    w.begin_array();
    // Sites and regions in one list, largest first.
    UInt i = 0;
    bool region_done[cow::kRegions] = {};
    for (;;) {
        UInt r_best = cow::kRegions;
        for (UInt r = 0; r < cow::kRegions; ++r)
            if (!region_done[r] && c.region_bytes[r] &&
                (r_best == cow::kRegions || c.region_bytes[r] > c.region_bytes[r_best]))
                r_best = r;
        bool site_next = i < c.n_sites &&
                         (r_best == cow::kRegions || c.sites[i].bytes >= c.region_bytes[r_best]);
        if (!site_next && r_best == cow::kRegions) break;
        w.begin_object();
        if (site_next) {
            w.member_u("site", c.sites[i].site);
            w.member_u("bytes", c.sites[i++].bytes);
        } else {
            w.member("region", cow::region_name(static_cast<cow::Region>(r_best)));
            w.member_u("bytes", c.region_bytes[r_best]);
            region_done[r_best] = true;
        }
        w.end_object();
    }
    w.end_array();
    w.key("writers");
    w.begin_array();
    for (UInt k = 0; k < c.n_writers; ++k) {
        w.begin_object();
        if (v2) {
            UInt id =
                c.writers[k].stack == kEmptyStack ? kNoStack : stack_table_id(c.writers[k].stack);
            w.key("stack");
            if (id == kNoStack)
                w.null();
            else
                w.uinteger(id);
        } else {
            w.key("frames");
            w.begin_array();
            for_each_frame(c.writers[k].stack, c.writers[k].ep, write_frame, &w);
            w.end_array();
        }
        w.member_u("bytes", c.writers[k].bytes);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

void write_python_site(JsonWriter& w, UInt k, const Analysis& a) {
    const PySites& py = *a.py;
    const PySite* ps = py.sites[k];
    w.begin_object();
    write_head(w, k, ps->space, ps->device, ps->cls,
               {ps->live_bytes, ps->live_blocks, ps->peak_bytes, ps->allocated_bytes,
                ps->allocated_blocks, ps->at_exit_bytes, ps->at_exit_blocks});
    w.member_bool("suppressed", ps->suppressed);
    if (a.leaks) {
        ULong lost[kReachable] = {};
        for (UInt id = ps->first; id != kNoPySite; id = py.next[id])
            if (id < a.leaks->n_sites)
                for (UInt kind = 0; kind < kReachable; ++kind)
                    lost[kind] += a.leaks->site(id).bytes[kind];
        w.key("lost");
        w.begin_object();
        for (UInt kind = 0; kind < kReachable; ++kind)
            w.member_u(leak_kind_name(kind), lost[kind]);
        w.end_object();
    }
    write_growth(w, py.growth[k], ps->history, a);
    write_python_site_held_by(w, k);
    w.key("series");
    w.begin_array();
    for (UInt i = 0; i < a.n_buckets; ++i)
        w.integer(ps->series[i]);
    w.end_array();
    if (a.n_mark_buckets) {
        w.key("mark_series");
        w.begin_array();
        for (UInt i = 0; i < a.n_mark_buckets; ++i)
            w.integer(ps->marks[i]);
        w.end_array();
    }
    w.key("frames");
    w.begin_array();
    for_each_frame(ps->stack, SiteView(ps->first)->epoch, write_frame, &w);
    w.end_array();
    // Its native sub-sites, by their "id" in "sites"; small stable ones that
    // "sites" leaves out (--json-stable-min-bytes) only counted.
    UInt omitted = 0;
    w.key("sites");
    w.begin_array();
    for (UInt id = ps->first; id != kNoPySite; id = py.next[id]) {
        if (listed(id))
            w.uinteger(id);
        else
            ++omitted;
    }
    w.end_array();
    w.member_u("omitted_sites", omitted);
    w.end_object();
}

// ---- format 2 (docs/output-format.md): rows, a stack tree, sparse series.

// The evidence of a quiet stable site of this report, written once as
// "quiet_growth": rows whose evidence equals it leave theirs out. In a
// marked program every quiet site looked at the same marks (marks_used), so
// the template is taken from the first quiet site, not assumed.
__constinit const Growth* quiet_growth;

bool is_quiet(const Growth& g, SiteClass history) {
    return history == SiteClass::stable && g.cls == SiteClass::stable && VG_STREQ(g.rule, "none") &&
           g.rate == 0 && g.confidence == 0 && g.z == 0 && g.began < 0 && g.stopped < 0 &&
           g.marks_adding == 0 && g.rate_per_mark == 0 && !g.released_at_end && g.steps == 0;
}

bool growth_is_default(const Growth& g, SiteClass history) {
    return quiet_growth && is_quiet(g, history) && g.marks_used == quiet_growth->marks_used;
}

template <typename T> void write_changes(JsonWriter& w, const T* v, UInt n) {
    w.begin_array();
    for_each_change(v, n, [&](u32 i, T x) { w.uinteger(i), w.integer(static_cast<i64>(x)); });
    w.end_array();
}

// "mark_series" as change points, left out when there is none: most sites
// of a marked program (all but the loop's) hold nothing while it marks, and
// `"mark_series":[]` was 28 MB of a 210 MB PyTorch report.
void write_mark_changes(JsonWriter& w, const i64* v, UInt n) {
    bool any = false;
    for_each_change(v, n, [&](u32, i64) { any = true; });
    if (!any) return;
    w.key("mark_series");
    write_changes(w, v, n);
}

template <typename T> void write_nonzero(JsonWriter& w, const T* v, UInt n) {
    w.begin_array();
    for_each_nonzero(v, n, [&](u32 i, T x) { w.uinteger(i), w.integer(static_cast<i64>(x)); });
    w.end_array();
}

// The positional part of a row, up to the series: the id as the gap after
// the previous row's (`next_id`: that id + 1; 0 for consecutive ids), the
// stack node, the class as its code (0 stable, 1 plateau, 2 growing, 3
// leaked: SiteClass's order) and the byte counts. Revision 2: the ids and
// class names were 21 MB of a 191 MB PyTorch report.
void write_row_head(JsonWriter& w, UInt id, UInt* next_id, UInt stack, SiteClass cls,
                    const Counts& c) {
    w.uinteger(id - *next_id);
    *next_id = id + 1;
    if (stack == kNoStack)
        w.null();
    else
        w.uinteger(stack);
    w.uinteger(static_cast<UInt>(cls));
    const ULong counts[] = {c.live_bytes,       c.live_blocks,   c.peak_bytes,    c.allocated_bytes,
                            c.allocated_blocks, c.at_exit_bytes, c.at_exit_blocks};
    for (ULong v : counts)
        w.uinteger(v);
}

// What a site's row leaves to its trailing object: only what differs from
// the defaults (host space, not suppressed, nothing lost, quiet evidence).
void write_site_extra(JsonWriter& w, const Site* s, const Analysis& a) {
    w.begin_object();
    if (s->space != Space::host) w.member("space", space_name(s->space));
    if (space_on_device(s->space)) w.member_u("device", s->device);
    const HChar* supp = a.class_suppressed_by(s->id);
    if (supp) {
        w.member_bool("suppressed", true);
        w.member("suppression", supp);
    }
    if (a.leaks && s->id < a.leaks->n_sites) {
        const SiteLeak& l = a.leaks->site(s->id);
        bool any = l.indirect_through != 0;
        for (UInt k = 0; k <= kReachable; ++k)
            any = any || l.bytes[k] || l.blocks[k];
        if (any) { // "leak": the counts of format 1's lost, lost_blocks, ... in one array
            w.key("leak");
            w.begin_array();
            for (UInt blocks = 0; blocks < 2; ++blocks)
                for (UInt k = 0; k < kReachable; ++k)
                    w.uinteger(blocks ? l.blocks[k] : l.bytes[k]);
            w.uinteger(l.bytes[kReachable]);
            w.uinteger(l.indirect_through);
            w.end_array();
            write_lost_apart(w, l, a);
        }
        if (a.leak_suppressed_by(s->id)) w.member_bool("lost_suppressed", true);
    }
    write_site_held_by(w, s->id);
    const Growth& g = a.growth[s->id];
    if (!growth_is_default(g, a.growth_class[s->id])) write_growth(w, g, a.growth_class[s->id], a);
    if (a.n_mark_buckets) { // change points, over the report's "mark_buckets"
        i64 scratch[kBuckets];
        write_mark_changes(w, mark_levels(s, a.n_mark_buckets, scratch), a.n_mark_buckets);
    }
    w.end_object();
}

void write_site_row(JsonWriter& w, const Site* s, UInt* next_id, UInt stack, const Analysis& a) {
    w.begin_array();
    write_row_head(w, s->id, next_id, stack, a.growth[s->id].cls,
                   {static_cast<ULong>(s->clock.live), s->live_blocks, s->peak_bytes,
                    s->clock.allocated, s->allocated_blocks, s->live_bytes_now,
                    s->live_blocks_now});
    i64 levels[kBuckets];
    u64 added[kBuckets];
    for (UInt i = 0; i < a.n_buckets; ++i)
        added[i] = s->clock.alloc_at(i);
    write_changes(w, s->clock.levels(levels, a.n_buckets), a.n_buckets);
    write_nonzero(w, static_cast<const u64*>(added), a.n_buckets);
    write_site_extra(w, s, a);
    w.end_array();
}

void write_python_site_row(JsonWriter& w, UInt k, UInt* next_id, UInt stack, const Analysis& a) {
    const PySites& py = *a.py;
    const PySite* ps = py.sites[k];
    w.begin_array();
    write_row_head(w, k, next_id, stack, ps->cls,
                   {ps->live_bytes, ps->live_blocks, ps->peak_bytes, ps->allocated_bytes,
                    ps->allocated_blocks, ps->at_exit_bytes, ps->at_exit_blocks});
    write_changes(w, ps->series, a.n_buckets);
    w.begin_array(); // a Python site has no allocation series of its own
    w.end_array();
    w.begin_object();
    if (ps->space != Space::host) w.member("space", space_name(ps->space));
    if (space_on_device(ps->space)) w.member_u("device", ps->device);
    if (ps->suppressed) w.member_bool("suppressed", true);
    if (a.leaks) {
        ULong lost[kReachable] = {};
        bool any = false;
        for (UInt id = ps->first; id != kNoPySite; id = py.next[id])
            if (id < a.leaks->n_sites)
                for (UInt kind = 0; kind < kReachable; ++kind)
                    lost[kind] += a.leaks->site(id).bytes[kind], any = any || lost[kind];
        if (any) { // format 1's "lost" as [definite, indirect, possible]
            w.key("leak");
            w.begin_array();
            for (UInt kind = 0; kind < kReachable; ++kind)
                w.uinteger(lost[kind]);
            w.end_array();
        }
    }
    if (!growth_is_default(py.growth[k], ps->history))
        write_growth(w, py.growth[k], ps->history, a);
    write_python_site_held_by(w, k);
    if (a.n_mark_buckets) write_mark_changes(w, ps->marks, a.n_mark_buckets);
    // The sub-sites' ids rise (a Python site collects them in id order):
    // each is written as the step from the one before (the first from 0).
    UInt omitted = 0, prev = 0;
    w.key("sites");
    w.begin_array();
    for (UInt id = ps->first; id != kNoPySite; id = py.next[id]) {
        if (listed(id))
            w.integer(static_cast<i64>(id) - static_cast<i64>(prev)), prev = id;
        else
            ++omitted;
    }
    w.end_array();
    if (omitted) w.member_u("omitted_sites", omitted);
    w.end_object();
    w.end_array();
}

// The counts of a group of folded sites: a format-2 row's after its stack
// and Python site, a format-1 object's members.
void write_group_counts(JsonWriter& w, const FoldGroup& g, bool row) {
    const HChar* const names[] = {"sites",         "live_bytes",      "live_blocks",
                                  "peak_bytes",    "allocated_bytes", "allocated_blocks",
                                  "at_exit_bytes", "at_exit_blocks"};
    const ULong counts[] = {g.sites,         g.live_bytes,      g.live_blocks,
                            g.peak_bytes,    g.allocated_bytes, g.allocated_blocks,
                            g.at_exit_bytes, g.at_exit_blocks};
    for (UInt i = 0; i < 8; ++i) {
        if (!row) w.key(names[i]);
        w.uinteger(counts[i]);
    }
}

void write_group_python_site(JsonWriter& w, const FoldGroup& g) {
    if (g.python_site != kNoPySite && selection->py[g.python_site])
        w.uinteger(g.python_site);
    else
        w.null();
}

// Format 1's "folded": each group with its frames inline (a Python site's
// Python frames, or the one frame that names the group).
struct PickFrame {
    JsonWriter* w;
    UInt inlined;
};

void write_picked_frame(const Frame& f, void* ctx) {
    auto* p = static_cast<PickFrame*>(ctx);
    if (f.inlined == p->inlined) write_frame(f, p->w);
}

void write_folded(JsonWriter& w, const Analysis& a) {
    w.key("folded");
    w.begin_array();
    for (UInt i = 0; i < selection->n_groups; ++i) {
        const FoldGroup& g = selection->groups[i];
        w.begin_object();
        w.key("python_site");
        write_group_python_site(w, g);
        write_group_counts(w, g, false);
        w.key("frames");
        w.begin_array();
        if (g.python_site != kNoPySite) {
            const PySite* ps = a.py->sites[g.python_site];
            for_each_frame(ps->stack, SiteView(ps->first)->epoch, write_frame, &w);
        } else if (g.word) {
            PickFrame p{&w, g.inlined};
            for_each_frame_of_word(g.word, g.ep, write_picked_frame, &p);
        }
        w.end_array();
        w.end_object();
    }
    w.end_array();
}

// Interns every listed stack and those that name the folded groups (the
// tables go before the rows that name them), then writes the tables and
// the rows.
void write_sites_v2(JsonWriter& w, const Analysis& a) {
    stack_table_begin();
    quiet_growth = nullptr;
    for (UInt id = 0; id < a.n_sites; ++id) {
        if (!listed(id)) continue;
        SiteView s(id);
        if (!quiet_growth && is_quiet(a.growth[id], a.growth_class[id]))
            quiet_growth = &a.growth[id];
        stack_table_use(s->stack, s->epoch);
    }
    UInt n_py = a.py ? a.py->n : 0;
    for (UInt k = 0; k < n_py; ++k) {
        const PySite* ps = a.py->sites[k];
        if (selection->py[k]) stack_table_use(ps->stack, SiteView(ps->first)->epoch);
    }
    const CowSummary* cow = cow_summary();
    for (UInt k = 0; cow && k < cow->n_writers; ++k)
        if (cow->writers[k].stack != kEmptyStack)
            stack_table_use(cow->writers[k].stack, cow->writers[k].ep);
    stack_table_number();
    UInt* group_node =
        static_cast<UInt*>(VG_(malloc)("mg.json.groups", (selection->n_groups + 1) * sizeof(UInt)));
    for (UInt i = 0; i < selection->n_groups; ++i) {
        const FoldGroup& g = selection->groups[i];
        group_node[i] = g.python_site != kNoPySite
                            ? stack_table_id(a.py->sites[g.python_site]->stack)
                        : g.word ? stack_table_frame(g.word, g.inlined, g.ep)
                                 : kNoStack;
    }
    // How many rows follow: a reader sizes its tables once.
    w.member_u("site_count", selection->n_sites);
    if (a.py) w.member_u("python_site_count", selection->n_py);
    w.member_u("folded_count", selection->n_groups);
    if (quiet_growth) write_growth(w, *quiet_growth, SiteClass::stable, a, "quiet_growth");
    if (a.n_mark_buckets) w.member_u("mark_buckets", a.n_mark_buckets);
    stack_table_write(w);
    UInt next_id = 0;
    w.key("sites");
    w.begin_array();
    for (UInt id = 0; id < a.n_sites; ++id) {
        if (!listed(id)) continue;
        SiteView s(id);
        write_site_row(w, s, &next_id, stack_table_id(s->stack), a);
    }
    w.end_array();
    if (a.py) {
        next_id = 0;
        w.key("python_sites");
        w.begin_array();
        for (UInt k = 0; k < n_py; ++k)
            if (selection->py[k])
                write_python_site_row(w, k, &next_id, stack_table_id(a.py->sites[k]->stack), a);
        w.end_array();
    }
    write_holders(w, a);
    // [stack, python site, sites, the seven counts] per group.
    w.key("folded");
    w.begin_array();
    for (UInt i = 0; i < selection->n_groups; ++i) {
        w.begin_array();
        if (group_node[i] == kNoStack)
            w.null();
        else
            w.uinteger(group_node[i]);
        write_group_python_site(w, selection->groups[i]);
        write_group_counts(w, selection->groups[i], true);
        w.end_array();
    }
    w.end_array();
    VG_(free)(group_node);
    if (cow) write_fork(w, *cow, true);
    quiet_growth = nullptr;
    stack_table_end();
}

void write_buckets(JsonWriter& w, const Analysis& a) {
    w.key("buckets");
    w.begin_array();
    for (UInt i = 0; i < a.n_buckets; ++i) {
        i64 live = 0;
        ULong alloc = 0, freed = 0;
        for (UInt sp = 0; sp < kSpaces; ++sp) {
            live += tl.totals[sp].live_end[i];
            alloc += tl.totals[sp].alloc[i];
            freed += tl.totals[sp].freed(i);
        }
        w.begin_object();
        w.member_u("end", bucket_end(i, a));
        w.member("live_bytes", live);
        w.member_u("allocated_bytes", alloc);
        w.member_u("freed_bytes", freed);
        w.key("spaces");
        w.begin_object();
        for (UInt sp = 0; sp < kSpaces; ++sp) {
            const SiteSeries& t = tl.totals[sp];
            if (sp != 0 && t.live_end[i] == 0 && t.alloc[i] == 0) continue;
            w.key(space_name(static_cast<Space>(sp)));
            w.begin_object();
            w.member("live_bytes", t.live_end[i]);
            w.member_u("allocated_bytes", t.alloc[i]);
            w.member_u("freed_bytes", t.freed(i));
            w.end_object();
        }
        w.end_object();
        w.end_object();
    }
    w.end_array();
}

void write_levels(JsonWriter& w, const char* name, const SiteSeries& t, const Analysis& a) {
    w.key(name);
    w.begin_array();
    for (UInt i = 0; i < a.n_buckets; ++i)
        w.integer(t.live_end[i]);
    w.end_array();
}

constexpr UInt kListedFiles = 16;

// What a dashboard sees of the process per bucket: the heap's live bytes,
// the client's own mappings, the pages resident (docs/pages.md).
void write_pages(JsonWriter& w, const Analysis& a) {
    w.key("pages");
    w.begin_object();
    write_levels(w, "heap", tl.totals[static_cast<UInt>(Space::host)], a);
    write_levels(w, "mapped", tl.totals[static_cast<UInt>(Space::mapped)], a);
    write_levels(w, "resident", tl.resident, a);
    if (tl.torn_down) {
        w.key("teardown");
        w.begin_object();
        w.member_u("heap", tl.totals[static_cast<UInt>(Space::host)].live_end[a.n_buckets - 1]);
        w.member_u("mapped", tl.totals[static_cast<UInt>(Space::mapped)].live_end[a.n_buckets - 1]);
        w.member_u("resident", tl.resident_at_teardown);
        w.end_object();
    }
    // File mappings by file, the most resident first; the rest summed.
    const FileResidence* files;
    UInt n = resident_files(&files);
    w.key("files");
    w.begin_array();
    FileResidence rest{nullptr, 0, 0};
    for (UInt i = 0; i < n; ++i) {
        if (i >= kListedFiles) {
            rest.mapped += files[i].mapped, rest.resident += files[i].resident;
            continue;
        }
        w.begin_object();
        w.member("file", files[i].name);
        w.member_u("mapped_bytes", files[i].mapped);
        w.member_u("resident_bytes", files[i].resident);
        w.end_object();
    }
    if (rest.mapped) {
        w.begin_object();
        w.key("file");
        w.null();
        w.member_u("files", n - kListedFiles);
        w.member_u("mapped_bytes", rest.mapped);
        w.member_u("resident_bytes", rest.resident);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

void write_errors(JsonWriter& w) {
    w.key("errors");
    w.begin_array();
    for (UInt i = 0; i < error_record_count(); ++i) {
        const ErrorRecord& e = error_record_at(i);
        if (!error_record_listed(e)) continue;
        w.begin_object();
        w.member("kind", error_kind_name(e.kind));
        HChar addr[24];
        VG_(sprintf)(addr, "%#lx", e.addr);
        w.member("address", addr);
        w.member_u("count", e.count);
        if (e.extra.alloc_at) w.member_u("size", e.extra.size);
        HChar text[256];
        error_headline(e.kind, e.addr, e.extra, text, sizeof text);
        w.member("message", text);
        if (is_address_kind(e.kind)) {
            w.member("access", e.extra.write ? "write" : "read");
            if (e.kind != kParam && e.kind != kUser) w.member_u("access_size", e.extra.access_size);
            if (e.extra.what) w.member("param", e.extra.what);
        }
        // Described as memcheck describes an address (address errors, and
        // custom allocators' bad frees and pools).
        if (e.extra.ai.tag != Addr_Undescribed) {
            describe_text(e.addr, e.extra.ai, text, sizeof text);
            w.member("description", text);
        }
        if (e.extra.n_words) {
            w.key("frames");
            w.begin_array();
            for_each_frame(e.extra.words, e.extra.n_words, VG_(current_DiEpoch)(), write_frame, &w);
            w.end_array();
        } else {
            write_ec_frames(w, "frames", e.where);
        }
        if (e.extra.block_site != kNoSite) {
            w.key("alloc_frames");
            w.begin_array();
            for_each_frame(SiteView(e.extra.block_site), write_frame, &w);
            w.end_array();
        } else {
            write_ec_frames(w, "alloc_frames", e.extra.alloc_at);
        }
        write_ec_frames(w, "free_frames", e.extra.freed_at);
        w.end_object();
    }
    w.end_array();
}

// The instruction Valgrind could not decode that killed the client.
void write_fatal_insn(JsonWriter& w) {
    const FatalInsn* f = host_insns_fatal();
    if (!f) return;
    HChar addr[24], bytes[3 * sizeof f->bytes + 1] = {};
    VG_(sprintf)(addr, "%#lx", f->addr);
    format_bytes(*f, bytes);
    w.key("fatal_instruction");
    w.begin_object();
    w.member("address", addr);
    w.member("bytes", bytes);
    w.member("where", VG_(describe_IP)(VG_(current_DiEpoch)(), f->addr, nullptr));
    w.end_object();
}

void write_report(JsonWriter& w, const Analysis& a) {
    w.begin_object();
    bool v2 = clo.json_format == 2;
    w.member_u("memgrow", v2 ? 2 : 1);
    w.member("memgrow_version", PACKAGE_VERSION);
    // Format 2's encoding (docs/output-format.md): 2 = callers as distances
    // back, ids as gaps, class codes, "leak" arrays, sub-site steps. A report
    // without it is the first encoding, which readers still read.
    if (v2) w.member_u("revision", 2);
    w.key("command");
    w.begin_array();
    w.string(VG_(args_the_exename));
    for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_client)); ++i)
        w.string(*static_cast<HChar**>(VG_(indexXA)(VG_(args_for_client), i)));
    w.end_array();
    w.member_u("pid", static_cast<ULong>(VG_(getpid)()));
    w.member_u("ppid", static_cast<ULong>(VG_(getppid)()));
    w.member("time_unit", time_unit_name(clo.time_unit));
    w.member_u("bucket_width", tl.run.width);
    w.member_u("warmup_end", a.warmup_end);
    w.member_u("teardown_at", a.end);
    w.member("teardown", tl.torn_down ? teardown_name(tl.teardown_reason) : "running");
    write_fatal_insn(w);
    w.key("marks");
    w.begin_object();
    w.member_u("count", tl.n_marks);
    w.member_u("first_at", tl.first_mark_at);
    w.member_u("last_at", tl.last_mark_at);
    w.member_bool("stopped_early", a.marks_stopped_early);
    mark_at_write_json(w);
    w.member_u("per_bucket", tl.marks.width);
    w.key("label");
    if (tl.mark_label[0])
        w.string(tl.mark_label);
    else
        w.null();
    w.end_object();
    projection_write_json(w, projection_of(a), a);
    write_buckets(w, a);
    write_pages(w, a);
    reserve_write_json(w, a);
    if (a.leaks) write_leak_check(w, a);
    // --json-sites, --json-stable-min-bytes: which sites are listed, which
    // folded (a program like PyTorch has a million distinct allocation stacks).
    ReportSelection sel;
    report_select(a, &sel);
    selection = &sel;
    if (v2) {
        write_sites_v2(w, a);
    } else {
        w.key("sites");
        w.begin_array();
        for (UInt id = 0; id < a.n_sites; ++id)
            if (listed(id)) write_site(w, SiteView(id), a);
        w.end_array();
        if (a.py) {
            w.key("python_sites");
            w.begin_array();
            for (UInt k = 0; k < a.py->n; ++k)
                if (selection->py[k]) write_python_site(w, k, a);
            w.end_array();
        }
        write_holders(w, a);
        write_folded(w, a);
        if (const CowSummary* cow = cow_summary()) write_fork(w, *cow, false);
    }
    if (sel.min_bytes) {
        w.key("omitted_sites");
        w.begin_object();
        w.member_u("min_bytes", sel.min_bytes);
        w.member_u("sites", sel.folded_sites);
        w.member_u("peak_bytes", sel.folded_peak);
        w.member_u("at_exit_bytes", sel.folded_at_exit);
        w.end_object();
    }
    selection = nullptr;
    report_select_release(&sel);
    write_errors(w);
    w.end_object();
}

} // namespace

bool write_json_report(const HChar* path, const Analysis& a, bool may_wait) {
    ReportFile f;
    if (!report_file_open(path, &f, may_wait)) return false;
    FileSink sink{f.fd, 0};
    {
        JsonWriter w(write_to_fd, &sink);
        write_report(w, a);
    }
    return report_file_finish(path, &f, sink.error);
}

HChar* report_file_name(const HChar* pattern, bool forked_child) {
    static bool wrote_default; // the --json-file name is ours once written
    HChar* name = VG_(expand_file_name)("--json-file", pattern);
    if (VG_(strstr)(pattern, "%p") || report_path_written_through(name)) return name;
    // Without %p, processes of one run share the name: a forked child, or a
    // program run by --trace-children that wrote it first. Then the pid
    // goes into the name.
    bool is_default = pattern == clo.json_file;
    struct vg_stat st;
    bool taken = forked_child || (is_default && !wrote_default && !json_file_existed_at_start &&
                                  !sr_isError(VG_(stat)(name, &st)));
    if (is_default && !taken) wrote_default = true;
    if (!taken) return name;
    SizeT len = VG_(strlen)(name);
    HChar* unique = static_cast<HChar*>(VG_(malloc)("mg.json.name", len + 32));
    bool json = len > 5 && VG_STREQ(name + len - 5, ".json");
    if (json) name[len - 5] = 0;
    VG_(sprintf)(unique, "%s.%d%s", name, VG_(getpid)(), json ? ".json" : "");
    VG_(free)(name);
    return unique;
}

} // namespace mg
