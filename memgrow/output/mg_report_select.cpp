// SPDX-License-Identifier: GPL-2.0-or-later
#include "output/mg_report_select.hpp"
#include "pages/mg_cow.hpp"
#include "core/intern_table.hpp"
#include "core/site_name.hpp"
#include "holders/mg_holder_findings.hpp"
#include "holders/mg_holders.hpp"
#include "mg_options.hpp"
#include "python/mg_pysites.hpp"
#include "records/mg_site_store.hpp"
#include "records/mg_stack_tree.hpp"
#include "records/mg_timeline.hpp"

namespace mg {

namespace {

// The default's threshold: a site that ever held 0.1% of the peak heap, or
// 64 KiB (--json-stable-min-bytes), whichever is more. A program's heap
// peaks at megabytes to gigabytes; 0.1% keeps the few hundred sites a
// person could act on, the floor keeps a small program's report from
// listing its interpreter's kilobyte-sized buffers.
constexpr ULong kFloor = 64 * 1024;
constexpr ULong kShare = 1000;

ULong peak_heap(const Analysis& a) {
    i64 peak = 0;
    for (UInt i = 0; i < a.n_buckets; ++i) {
        i64 live = 0;
        for (UInt sp = 0; sp < kSpaces; ++sp)
            live += tl.totals[sp].live_end[i];
        if (live > peak) peak = live;
    }
    return static_cast<ULong>(peak);
}

// All bytes allocated in the run, every space.
ULong allocated_total(const Analysis& a) {
    ULong total = 0;
    for (UInt sp = 0; sp < kSpaces; ++sp)
        for (UInt i = 0; i <= a.n_buckets && i <= kBuckets; ++i)
            total += tl.totals[sp].alloc[i];
    return total;
}

// Where the churn is: a site that allocated 1% of all bytes allocated is
// listed whatever it holds (at most a hundred such sites).
constexpr ULong kChurnShare = 100;

ULong threshold(const Analysis& a) {
    if (clo.json_sites == JsonSites::all) return clo.json_stable_min_bytes;
    return report_floor(a);
}

// The members of the holder findings that the log and show print
// (holders/mg_holder_findings.hpp): listed, so that show names each.
void list_holder_members(ReportSelection* sel) {
    UInt n;
    holders_all(&n);
    for (UInt h = 0; h < n; ++h) {
        const HolderFinding* f = holder_finding(h);
        if (!f || f->growth.cls == SiteClass::stable) continue;
        for (UInt k = 0; k < f->n_top; ++k)
            if (f->top[k].python)
                sel->py[f->top[k].id] = 1;
            else
                sel->site[f->top[k].id] = 1;
    }
}

bool lost_any(UInt id, const Analysis& a) {
    if (!a.leaks || id >= a.leaks->n_sites) return false;
    const SiteLeak& l = a.leaks->site(id);
    for (UInt k = 0; k < kReachable; ++k)
        if (l.bytes[k]) return true;
    return false;
}

// Listed on its own merits: a class (suppressed ones included), a leak
// scan's finding, another memory space than the host's (few, and each a
// device allocation), a large enough peak, or a large share of the churn.
bool listed_alone(UInt id, const Analysis& a, ULong min_bytes, ULong churn_bytes) {
    SiteView s(id);
    return a.growth[id].cls != SiteClass::stable || s->peak_bytes >= min_bytes ||
           s->clock.allocated >= churn_bytes || s->space != Space::host || lost_any(id, a) ||
           cow_site_copied(id); // a forked child's "fork" names it
}

// The frame that names a stack (core/site_name.hpp): walked from the
// innermost until the program's own code settles it.
struct Naming {
    SiteNamer namer;
    StackWord word;
    UInt inlined;
};

void offer_frame(const Frame& f, void* ctx) {
    auto* n = static_cast<Naming*>(ctx);
    if (n->namer.settled()) return;
    n->namer.offer(f.function, f.file, f.object, f.python);
    if (n->namer.index + 1 == n->namer.seen) n->word = f.ip, n->inlined = f.inlined;
}

Naming naming_frame(UInt stack, DiEpoch ep) {
    Naming n{};
    for (UInt node = stack; node != kEmptyStack && !n.namer.settled() &&
                            for_each_frame_of_word(stack_tree_word(node), ep, offer_frame, &n);
         node = stack_tree_caller(node)) {
    }
    if (!n.namer.any) n.word = 0; // no frames
    return n;
}

void* table_alloc(usize bytes) {
    return VG_(malloc)("mg.json.select", bytes);
}
void table_free(void* p) {
    VG_(free)(p);
}

// Group keys: (Python site, kPythonKey) for a listed Python site's folded
// sub-sites, else (word, inlined) of the naming frame, (0, 0) without
// frames. The intern id is the group's index.
constexpr u64 kPythonKey = ~0ull;

void add_to(FoldGroup& f, const Site* s) {
    ++f.sites;
    f.live_bytes += static_cast<ULong>(s->clock.live);
    f.live_blocks += s->live_blocks;
    f.peak_bytes += s->peak_bytes;
    f.allocated_bytes += s->clock.allocated;
    f.allocated_blocks += s->allocated_blocks;
    f.at_exit_bytes += s->live_bytes_now;
    f.at_exit_blocks += s->live_blocks_now;
}

void add_sums(FoldGroup& to, const FoldGroup& from) {
    to.sites += from.sites;
    to.live_bytes += from.live_bytes, to.live_blocks += from.live_blocks;
    to.peak_bytes += from.peak_bytes;
    to.allocated_bytes += from.allocated_bytes, to.allocated_blocks += from.allocated_blocks;
    to.at_exit_bytes += from.at_exit_bytes, to.at_exit_blocks += from.at_exit_blocks;
}

FoldGroup& group(ReportSelection* sel, u32 g, UInt py, const Naming& n, DiEpoch ep) {
    if (g >= sel->n_groups) { // a new group: ids come in order
        if (g >= sel->cap_groups) {
            sel->cap_groups = sel->cap_groups ? 2 * sel->cap_groups : 256;
            sel->groups = static_cast<FoldGroup*>(
                VG_(realloc)("mg.json.select", sel->groups, sel->cap_groups * sizeof(FoldGroup)));
        }
        FoldGroup& f = sel->groups[g];
        VG_(memset)(&f, 0, sizeof f);
        f.python_site = py;
        f.word = n.word;
        f.inlined = n.inlined;
        f.ep = ep;
        sel->n_groups = g + 1;
    }
    return sel->groups[g];
}

// Groups whose sites together never held nor allocated the threshold go
// into one group without frames, last: the groups are then at most the
// folded sites' summed peaks and allocations over the threshold (the
// one-liner's 8,700 lines of interpreter start-up were 370 KB of rows and
// 440 KB of frames). A line that allocated and freed at once keeps its name.
void merge_small_groups(ReportSelection* sel) {
    FoldGroup rest{};
    rest.python_site = kNoPySite;
    UInt kept = 0;
    for (UInt g = 0; g < sel->n_groups; ++g) {
        const FoldGroup& f = sel->groups[g];
        if (f.peak_bytes >= sel->min_bytes || f.allocated_bytes >= sel->min_bytes)
            sel->groups[kept++] = sel->groups[g];
        else
            add_sums(rest, sel->groups[g]);
    }
    if (rest.sites) sel->groups[kept++] = rest; // kept < n_groups here
    sel->n_groups = kept;
}

} // namespace

ULong report_floor(const Analysis& a) {
    ULong floor = clo.json_stable_min_bytes ? clo.json_stable_min_bytes : kFloor;
    ULong share = peak_heap(a) / kShare;
    return share > floor ? share : floor;
}

void report_select(const Analysis& a, ReportSelection* sel) {
    VG_(memset)(sel, 0, sizeof *sel);
    sel->min_bytes = threshold(a);
    sel->site = static_cast<UChar*>(table_alloc(a.n_sites + 1));
    ULong churn = allocated_total(a) / kChurnShare;
    if (churn < sel->min_bytes) churn = sel->min_bytes;
    for (UInt id = 0; id < a.n_sites; ++id)
        sel->site[id] = listed_alone(id, a, sel->min_bytes, churn);
    // A Python site is listed on the same merits, or for a sub-site listed;
    // a growing or plateau one lists every sub-site: they are its evidence.
    // A leaked one's evidence is its sub-sites that lost blocks (and the
    // large ones), listed on their own merits: the import line of `import
    // torch` has 753,831 sub-sites, a hundred megabytes of report.
    const PySites* py = a.py;
    if (py) {
        sel->py = static_cast<UChar*>(table_alloc(py->n + 1));
        for (UInt k = 0; k < py->n; ++k) {
            const PySite* ps = py->sites[k];
            bool keep = ps->cls != SiteClass::stable || ps->suppressed ||
                        ps->peak_bytes >= sel->min_bytes || ps->space != Space::host;
            for (UInt id = ps->first; !keep && id != kNoPySite; id = py->next[id])
                keep = sel->site[id];
            sel->py[k] = keep;
            if (ps->cls == SiteClass::growing || ps->cls == SiteClass::plateau)
                for (UInt id = ps->first; id != kNoPySite; id = py->next[id])
                    sel->site[id] = 1;
        }
    }
    list_holder_members(sel);
    if (py) {
        sel->n_py = 0;
        for (UInt k = 0; k < py->n; ++k)
            sel->n_py += sel->py[k];
    }
    // Each folded site's group: its listed Python site's, else by the
    // frame that names its Python stack (once per Python site) or its
    // native stack.
    FrameInternTable keys(table_alloc, table_free);
    UInt* py_group = py ? static_cast<UInt*>(table_alloc((py->n + 1) * sizeof(UInt))) : nullptr;
    for (UInt k = 0; py && k < py->n; ++k)
        py_group[k] = FrameInternTable::kNone;
    for (UInt id = 0; id < a.n_sites; ++id) {
        if (sel->site[id]) {
            ++sel->n_sites;
            continue;
        }
        SiteView s(id);
        ++sel->folded_sites;
        sel->folded_peak += s->peak_bytes;
        sel->folded_at_exit += s->live_bytes_now;
        UInt k = py ? py->of_site[id] : kNoPySite;
        u32 g = k == kNoPySite ? FrameInternTable::kNone : py_group[k];
        if (g == FrameInternTable::kNone) {
            bool own = k != kNoPySite && sel->py[k]; // a listed Python site's
            UInt stack = k == kNoPySite ? s->stack : py->sites[k]->stack;
            Naming n = own ? Naming{} : naming_frame(stack, s->epoch);
            g = own ? keys.intern(k, kPythonKey) : keys.intern(n.word, n.inlined);
            if (g == FrameInternTable::kNone) continue; // out of memory: counted, not grouped
            group(sel, g, own ? k : kNoPySite, n, s->epoch);
            if (k != kNoPySite) py_group[k] = g;
        }
        add_to(sel->groups[g], s);
    }
    if (py_group) VG_(free)(py_group);
    keys.reset();
    merge_small_groups(sel);
}

void report_select_release(ReportSelection* sel) {
    if (sel->site) VG_(free)(sel->site);
    if (sel->py) VG_(free)(sel->py);
    if (sel->groups) VG_(free)(sel->groups);
    VG_(memset)(sel, 0, sizeof *sel);
}

} // namespace mg
