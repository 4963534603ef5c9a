// SPDX-License-Identifier: GPL-2.0-or-later
#include "classify/mg_analysis.hpp"
#include "mg_options.hpp"
#include "checks/mg_suppressions.hpp"
#include "records/mg_timeline.hpp"
#include "core/sorted_ids.hpp"

namespace mg {

static_assert(kBuckets <= kMaxBuckets, "a site's whole series must fit the classifier");

static void apply_suppressions(Analysis* a);

static ULong ceil_div(ULong a, ULong b) {
    return (a + b - 1) / b;
}

const i64* mark_levels(const Site* s, UInt n, i64* scratch) {
    if (const SiteSeries* m = site_marks(s)) return m->live_end;
    for (UInt i = 0; i < n; ++i)
        scratch[i] = s->clock.live;
    return scratch;
}

void analyse(Analysis* a, bool python_sites) {
    timeline_sync_all();
    a->n_sites = site_count();
    a->n_buckets = tl.run.current + 1;
    a->end = clock_end();
    a->n_mark_buckets = tl.n_marks ? tl.marks.current : 0;

    // The warm-up: where start-up ended (--warmup's units, MEMGROW_WARMUP_END,
    // the first mark, the CUDA driver's start-up: timeline_startup_end);
    // else the default share of the clock. Never the whole series. Once the
    // run clock folded there, the warm-up is bucket 0.
    bool announced = false; // a start-up that ended at clock 0 still ended
    ULong startup = timeline_startup_end(&announced);
    a->warmup_end = announced ? startup : a->end * clo.warmup_percent / 100;
    ULong wb = tl.run.folds ? 1 : ceil_div(a->warmup_end, tl.run.width);
    a->warmup_buckets = static_cast<UInt>(wb < a->n_buckets ? wb : a->n_buckets - 1);

    ClassifyParams p;
    p.warmup_buckets = a->warmup_buckets;
    p.mark_warmup = clo.mark_warmup;
    a->marks_end = a->n_buckets;
    if (a->n_mark_buckets) {
        // The bucket the last mark fell in; before a later fold, bucket 0.
        const BucketClock& c = tl.run;
        ULong since = tl.last_mark_at > c.origin ? tl.last_mark_at - c.origin : 0;
        ULong b = c.folds && tl.last_mark_at <= c.origin ? 0 : c.fixed() + since / c.width;
        a->marks_end = static_cast<UInt>(b < a->n_buckets ? b : a->n_buckets - 1);
        p.marks_end = a->marks_end;
    }
    // Only where the marks have a view of their own to stop (mark_view).
    a->marks_stopped_early = a->n_mark_buckets >= p.mark_warmup + p.min_mark_deltas + 1 &&
                             a->marks_end + p.min_buckets <= a->n_buckets;
    a->growth.init(a->n_sites);
    a->growth_class =
        static_cast<SiteClass*>(VG_(malloc)("mg.analysis", (a->n_sites + 1) * sizeof(SiteClass)));
    a->leaks = leak_scan_last(); // none with --leak-check=no, unless requested
    for (UInt k = 0; k < 4; ++k)
        a->sites_in[k] = a->bytes_in[k] = 0;
    i64 scratch[kBuckets];
    for (UInt id = 0; id < a->n_sites; ++id) {
        SiteView s(id);
        const i64* marks = a->n_mark_buckets ? mark_levels(s, a->n_mark_buckets, scratch) : nullptr;
        i64 levels[kBuckets];
        Growth g = classify(s->clock.levels(levels, a->n_buckets), a->n_buckets, marks,
                            a->n_mark_buckets, p);
        a->growth_class[id] = g.cls;
        if (a->leaks && id < a->leaks->n_sites && leaked_bytes(a->leaks->site(id)) > 0)
            g.cls = SiteClass::leaked;
        a->growth.set(id, g);
        UInt k = static_cast<UInt>(g.cls);
        a->sites_in[k]++;
        a->bytes_in[k] += static_cast<ULong>(s->clock.live);
    }
    a->suppressed_sites = a->suppressed_bytes = 0;
    apply_suppressions(a);
    a->params = p;
    a->py = nullptr;
    if (python_sites) python_sites_build(a, p);
}

// Which sites the class suppressions silence: a Leaked one silences a site's
// loss records (and its class when it is leaked); Growing and Plateau ones
// the class.
static void apply_suppressions(Analysis* a) {
    if (!have_class_suppressions()) return;
    for (UInt id = 0; id < a->n_sites; ++id) {
        SiteView s(id);
        const HChar* leak = nullptr;
        if (a->leaks && id < a->leaks->n_sites) {
            const SiteLeak& l = a->leaks->site(id);
            if (l.blocks[kDefinite] + l.blocks[kIndirect] + l.blocks[kPossible])
                leak = class_suppression(s, SiteClass::leaked);
        }
        if (leak) a->leak_suppressed_by.add(id, leak);
        SiteClass c = a->growth[id].cls;
        const HChar* cls = c == SiteClass::leaked   ? leak
                           : c != SiteClass::stable ? class_suppression(s, c)
                                                    : nullptr;
        if (cls) {
            a->class_suppressed_by.add(id, cls);
            a->suppressed_sites++;
            a->suppressed_bytes += static_cast<ULong>(s->clock.live);
        }
    }
}

const HChar* SuppressedBy::operator()(UInt id) const {
    UInt k = find_sorted_id(ids_, n_, id);
    return k < n_ ? names_[k] : nullptr;
}

void SuppressedBy::add(UInt id, const HChar* name) {
    if (n_ == cap_) {
        cap_ = cap_ ? cap_ * 2 : 64;
        ids_ = static_cast<UInt*>(VG_(realloc)("mg.analysis.supp", ids_, cap_ * sizeof(UInt)));
        names_ = static_cast<const HChar**>(
            VG_(realloc)("mg.analysis.supp", names_, cap_ * sizeof(const HChar*)));
    }
    ids_[n_] = id, names_[n_++] = name;
}

void SuppressedBy::release() {
    if (ids_) VG_(free)(ids_);
    if (names_) VG_(free)(names_);
    *this = SuppressedBy();
}

void analysis_release(Analysis* a) {
    python_sites_release(a);
    a->class_suppressed_by.release();
    a->leak_suppressed_by.release();
    a->growth.release();
    VG_(free)(a->growth_class);
    a->growth_class = nullptr;
}

// The same evidence, field by field (a rule by its pointer: the classifier's
// literals; at worst an equal one is held twice).
static bool same_growth(const Growth& x, const Growth& y) {
    return x.cls == y.cls && x.rule == y.rule && x.rate == y.rate && x.confidence == y.confidence &&
           x.z == y.z && x.began == y.began && x.stopped == y.stopped &&
           x.rate_per_mark == y.rate_per_mark && x.marks_used == y.marks_used &&
           x.marks_adding == y.marks_adding && x.released_at_end == y.released_at_end &&
           x.steps == y.steps && x.next_step == y.next_step && x.after_marks == y.after_marks &&
           x.bound == y.bound && x.fill == y.fill && x.bound_bytes == y.bound_bytes;
}

void GrowthTable::init(UInt n_sites) {
    release();
    of_site_ = static_cast<u32*>(VG_(malloc)("mg.analysis", (n_sites + 1) * sizeof(u32)));
}

// Compared with the previous site's evidence and the last stable one: quiet
// sites share theirs wherever they lie among the others.
void GrowthTable::set(UInt id, const Growth& g) {
    u32 k;
    if (n_ && same_growth(g, distinct_[previous_]))
        k = previous_;
    else if (n_ && same_growth(g, distinct_[stable_]))
        k = stable_;
    else
        k = add(g);
    if (g.cls == SiteClass::stable) stable_ = k;
    of_site_[id] = previous_ = k;
}

u32 GrowthTable::add(const Growth& g) {
    if (n_ == cap_) {
        cap_ = cap_ ? cap_ * 2 : 64;
        distinct_ = static_cast<Growth*>(
            VG_(realloc)("mg.analysis.growth", distinct_, cap_ * sizeof(Growth)));
    }
    distinct_[n_] = g;
    return n_++;
}

void GrowthTable::release() {
    if (of_site_) VG_(free)(of_site_);
    if (distinct_) VG_(free)(distinct_);
    *this = GrowthTable();
}

ULong staircase_due(const Growth& g) {
    // A bucket position, past the last bucket perhaps: where it ends on the clock.
    const double due = static_cast<double>(tl.run.origin) +
                       (g.next_step + 1 - tl.run.fixed()) * static_cast<double>(tl.run.width);
    return due > 0 ? static_cast<ULong>(due) : 0;
}

} // namespace mg
