// SPDX-License-Identifier: GPL-2.0-or-later
#include "holders/mg_holder_findings.hpp"
#include "holders/mg_holders.hpp"
#include "output/mg_report_select.hpp"
#include "core/holder_rule.hpp"

namespace mg {

namespace {

struct Held {
    UInt holder, site;
    ULong bytes, whole;
};

HolderFinding* findings; // by holder index: at the first of those that read the same
UInt n_findings;
UInt* first_alike; // by holder index: the first holder that reads the same
const Holder* all;
UInt* growing; // holder indexes, largest growth first
UInt n_growing;
UInt* plateau; // holder indexes, most live bytes first
UInt n_plateau;

struct Gather {
    Held* out;
    UInt n;
};
void gather(void* ctx, UInt site, UInt holder, ULong bytes, ULong whole) {
    auto* g = static_cast<Gather*>(ctx);
    if (g->out) g->out[g->n] = Held{holder, site, bytes, whole};
    ++g->n;
}

Int by_holder_site(const void* x, const void* y) {
    const auto* a = static_cast<const Held*>(x);
    const auto* b = static_cast<const Held*>(y);
    if (a->holder != b->holder) return a->holder < b->holder ? -1 : 1;
    return a->site < b->site ? -1 : a->site > b->site;
}

Int by_bytes(const void* x, const void* y) {
    const auto* a = static_cast<const HolderSite*>(x);
    const auto* b = static_cast<const HolderSite*>(y);
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

Int by_reading(const void* x, const void* y) {
    const Holder& a = all[*static_cast<const UInt*>(x)];
    const Holder& b = all[*static_cast<const UInt*>(y)];
    if (Int c = VG_(strcmp)(a.path, b.path)) return c;
    if (a.root != b.root) return a.root < b.root ? -1 : 1;
    if (Int c = VG_(strcmp)(a.type ? a.type : "", b.type ? b.type : "")) return c;
    return *static_cast<const UInt*>(x) < *static_cast<const UInt*>(y) ? -1 : 1;
}

// first_alike for every holder, by sorting them by what they read.
void fold_alike() {
    auto* order =
        static_cast<UInt*>(VG_(malloc)("mg.findings.fold", (n_findings + 1) * sizeof(UInt)));
    for (UInt h = 0; h < n_findings; ++h)
        order[h] = h;
    VG_(ssort)(order, n_findings, sizeof(UInt), by_reading);
    first_alike =
        static_cast<UInt*>(VG_(malloc)("mg.findings.fold", (n_findings + 1) * sizeof(UInt)));
    for (UInt i = 0, first = 0; i < n_findings; ++i) {
        if (i && !holders_read_the_same(all[order[i - 1]], all[order[i]])) first = i;
        first_alike[order[i]] = order[first];
    }
    VG_(free)(order);
}

Int by_live_bytes(const void* x, const void* y) {
    ULong a = findings[*static_cast<const UInt*>(x)].live_bytes;
    ULong b = findings[*static_cast<const UInt*>(y)].live_bytes;
    if (a != b) return a > b ? -1 : 1;
    return *static_cast<const UInt*>(x) < *static_cast<const UInt*>(y) ? -1 : 1;
}

Int by_growth(const void* x, const void* y) {
    double a = findings[*static_cast<const UInt*>(x)].growth.rate;
    double b = findings[*static_cast<const UInt*>(y)].growth.rate;
    if (a != b) return a > b ? -1 : 1;
    return *static_cast<const UInt*>(x) < *static_cast<const UInt*>(y) ? -1 : 1;
}

// One holder's run of (site, bytes): its series, summed in shares, and its
// sites, merged by Python site where the sites have Python frames.
void build_one(const Analysis& a, const Holder& holder, const Held* run, UInt n, ULong floor,
               HolderFinding* f) {
    double sum[kBuckets] = {};
    f->live_bytes = 0;
    ULong steady = 0;  // of live_bytes, those of sites whose blocks keep their size
    ULong growing = 0; // of live_bytes, those of growing sites
    ULong bounded = 0; // of live_bytes, those of sites a bounded holder made a plateau
    ULong largest_bounded = 0;
    Growth bounded_growth; // the largest of those sites'
    double growing_rate = 0;
    auto* sites =
        static_cast<HolderSite*>(VG_(malloc)("mg.findings.sites", (n + 1) * sizeof(HolderSite)));
    UInt n_sites = 0;
    for (UInt i = 0; i < n; ++i) {
        const Held& h = run[i];
        // A suppressed class is silenced: its memory is nobody's finding.
        if (h.site >= a.n_sites || !h.whole || a.class_suppressed_by(h.site)) continue;
        double share = static_cast<double>(h.bytes) / static_cast<double>(h.whole);
        SiteView s(h.site);
        i64 levels[kBuckets];
        const i64* series = s->clock.levels(levels, a.n_buckets);
        for (UInt b = 0; b < a.n_buckets; ++b)
            sum[b] += share * static_cast<double>(series[b]);
        auto live = static_cast<ULong>(share * static_cast<double>(s->clock.live));
        f->live_bytes += live;
        if (!site_blocks_grew(h.site)) steady += live;
        if (a.growth[h.site].cls == SiteClass::growing)
            growing += live, growing_rate += share * a.growth[h.site].rate;
        UInt ps = a.py ? a.py->of_site[h.site] : kNoPySite;
        const Growth& g = ps != kNoPySite ? a.py->growth[ps] : a.growth[h.site];
        if (g.cls == SiteClass::plateau && VG_(strcmp)(g.rule, "bounded holder") == 0) {
            bounded += live;
            if (live >= largest_bounded) largest_bounded = live, bounded_growth = g;
        }
        sites[n_sites++] =
            ps != kNoPySite ? HolderSite{ps, true, h.bytes} : HolderSite{h.site, false, h.bytes};
    }
    // Merge the sub-sites of one Python site.
    VG_(ssort)
    (sites, n_sites, sizeof(HolderSite), [](const void* x, const void* y) -> Int {
        const auto* a = static_cast<const HolderSite*>(x);
        const auto* b = static_cast<const HolderSite*>(y);
        if (a->python != b->python) return a->python ? -1 : 1;
        return a->id < b->id ? -1 : a->id > b->id;
    });
    UInt m = 0;
    for (UInt i = 0; i < n_sites; ++i) {
        if (m && sites[m - 1].python == sites[i].python && sites[m - 1].id == sites[i].id)
            sites[m - 1].bytes += sites[i].bytes;
        else
            sites[m++] = sites[i];
    }
    VG_(ssort)(sites, m, sizeof(HolderSite), by_bytes);
    f->n_sites = m;
    // The members printed: the largest, and the others whose share reaches
    // the report's threshold (the rest are "N more").
    f->n_top = 0;
    while (f->n_top < m && f->n_top < kTopSites &&
           (f->n_top == 0 || sites[f->n_top].bytes >= floor))
        f->top[f->n_top] = sites[f->n_top], ++f->n_top;
    VG_(free)(sites);
    i64 series[kBuckets];
    for (UInt b = 0; b < a.n_buckets; ++b)
        series[b] = static_cast<i64>(sum[b]);
    f->growth = classify(series, a.n_buckets, nullptr, 0, a.params);
    if (holder.lost) { // a lost block's: leaked, whatever its history
        f->growth.cls = SiteClass::leaked;
        return;
    }
    // A bounded holder cannot outgrow its bound (core/holder_rule.hpp).
    HeldShare whole{steady, holder.length,
                    holder.type || array_bounds(holder.bound, holder.length) ? holder.bound : -1};
    BoundedVerdict v = bounded_verdict(&whole, 1, f->live_bytes);
    if (f->growth.cls == SiteClass::growing &&
        static_cast<double>(bounded) >= kBoundedShare * static_cast<double>(f->live_bytes)) {
        // Parts of what a bounded holder holds (some of its records, reached
        // through each other): they rose as its sites did, within its bound.
        f->growth = bounded_growth;
    } else if (v.bounded && f->growth.cls == SiteClass::growing) {
        f->growth.cls = SiteClass::plateau;
        f->growth.rule = "bounded holder";
        f->growth.bound = v.bound, f->growth.fill = v.fill, f->growth.bound_bytes = v.bound_bytes;
    } else if (f->growth.cls == SiteClass::plateau && unbounded_container(holder) &&
               unbounded_growth(f->live_bytes, f->live_bytes, growing, f->live_bytes)) {
        // Its items keep coming (core/holder_rule.hpp): as its Python sites.
        f->growth.cls = SiteClass::growing;
        f->growth.rule = "unbounded holder";
        f->growth.rate = growing_rate;
        f->growth.stopped = -1;
    }
}

} // namespace

void holder_findings_build(const Analysis& a) {
    holder_findings_release();
    const Holder* holders = all = holders_all(&n_findings);
    if (!n_findings) return;
    fold_alike();
    const ULong floor = report_floor(a);
    Gather g{nullptr, 0};
    holders_for_each(gather, &g);
    g.out = static_cast<Held*>(VG_(malloc)("mg.findings", (g.n + 1) * sizeof(Held)));
    g.n = 0;
    holders_for_each(gather, &g);
    for (UInt i = 0; i < g.n; ++i)
        g.out[i].holder = first_alike[g.out[i].holder];
    VG_(ssort)(g.out, g.n, sizeof(Held), by_holder_site);
    findings = static_cast<HolderFinding*>(
        VG_(calloc)("mg.findings", n_findings + 1, sizeof(HolderFinding)));
    for (UInt i = 0, end; i < g.n; i = end) {
        for (end = i; end < g.n && g.out[end].holder == g.out[i].holder;)
            ++end;
        build_one(a, holders[g.out[i].holder], g.out + i, end - i, floor,
                  &findings[g.out[i].holder]);
    }
    VG_(free)(g.out);
    for (UInt h = 0; h < n_findings; ++h)
        findings[first_alike[h]].count++;
    growing = static_cast<UInt*>(VG_(malloc)("mg.findings", (n_findings + 1) * sizeof(UInt)));
    for (UInt h = 0; h < n_findings; ++h)
        if (findings[h].growth.cls == SiteClass::growing && findings[h].n_sites)
            growing[n_growing++] = h;
    VG_(ssort)(growing, n_growing, sizeof(UInt), by_growth);
    // A holder inside a growing one (`errors[*]` in `errors`) is part of its
    // growth: its finding is the outer one's.
    UInt m = 0;
    for (UInt i = 0; i < n_growing; ++i) {
        bool inside = false;
        for (UInt j = 0; j < n_growing && !inside; ++j)
            inside = j != i && path_inside(holders[growing[i]].path, holders[growing[j]].path);
        if (!inside) growing[m++] = growing[i];
    }
    n_growing = m;
    plateau = static_cast<UInt*>(VG_(malloc)("mg.findings", (n_findings + 1) * sizeof(UInt)));
    for (UInt h = 0; h < n_findings; ++h)
        if (findings[h].growth.cls == SiteClass::plateau && findings[h].n_sites)
            plateau[n_plateau++] = h;
    VG_(ssort)(plateau, n_plateau, sizeof(UInt), by_live_bytes);
    // A plateau holder inside a growing or a bounded one is part of its
    // finding (a module's namespace holds every global: no bound).
    m = 0;
    for (UInt i = 0; i < n_plateau; ++i) {
        bool inside = false;
        for (UInt j = 0; j < n_plateau && !inside; ++j)
            inside = j != i && holders[plateau[j]].bound >= 0 &&
                     path_inside(holders[plateau[i]].path, holders[plateau[j]].path);
        for (UInt j = 0; j < n_growing && !inside; ++j)
            inside = path_inside(holders[plateau[i]].path, holders[growing[j]].path);
        if (!inside) plateau[m++] = plateau[i];
    }
    n_plateau = m;
}

const HolderFinding* holder_finding(UInt holder) {
    return findings && holder < n_findings ? &findings[first_alike[holder]] : nullptr;
}

UInt holder_findings_growing(const UInt** order) {
    *order = growing;
    return n_growing;
}

UInt holder_findings_plateau(const UInt** order) {
    *order = plateau;
    return n_plateau;
}

void holder_findings_release() {
    if (findings) VG_(free)(findings);
    if (growing) VG_(free)(growing);
    if (plateau) VG_(free)(plateau);
    if (first_alike) VG_(free)(first_alike);
    findings = nullptr, growing = nullptr, plateau = nullptr, first_alike = nullptr;
    n_findings = n_growing = n_plateau = 0;
}

} // namespace mg
