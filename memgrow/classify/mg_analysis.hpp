// SPDX-License-Identifier: GPL-2.0-or-later
// Classification of every site on the frozen (teardown) state: the glue
// between the tool's records and the shared rules in core/classify.hpp.
#pragma once

#include "scan/mg_leak.hpp"
#include "classify/mg_growth_table.hpp"
#include "python/mg_pysites.hpp"
#include "records/mg_sites.hpp"
#include "core/classify.hpp"

namespace mg {

// Which sites a suppression silences, by site id: the few that match, in
// ascending id, not an array of every site (a million sites under `import
// torch`, a few hundred suppressed).
class SuppressedBy {
  public:
    // The name of the suppression that silences site id, else null.
    const HChar* operator()(UInt id) const;
    // Appends a match; ids must come in ascending order.
    void add(UInt id, const HChar* name);
    UInt size() const { return n_; }
    UInt id_at(UInt i) const { return ids_[i]; }
    void release();

  private:
    UInt* ids_ = nullptr;
    const HChar** names_ = nullptr;
    UInt n_ = 0, cap_ = 0;
};

struct Analysis {
    GrowthTable growth;      // by site id; growth[id].cls is the site's class
    SiteClass* growth_class; // by site id: the class its history alone gives
    const LeakScan* leaks;   // the last leak scan; null with --leak-check=no
    // By site id, the name of the suppression that silences the site's
    // class, and its lost blocks (memgrow:Leaked); null when none matches.
    SuppressedBy class_suppressed_by;
    SuppressedBy leak_suppressed_by;
    ULong suppressed_sites, suppressed_bytes; // classes suppressed (live bytes)
    UInt n_sites;
    UInt n_buckets; // length of every site's series
    UInt warmup_buckets;
    UInt n_mark_buckets; // complete mark buckets (0: the program did not mark)
    UInt marks_end;      // the run-clock bucket of the last mark (n_buckets: no marks)
    // The marks stopped early: they had a view of their own, and after the
    // last one came at least min_buckets buckets of the run clock, which the
    // clock judges (core/classify.hpp).
    bool marks_stopped_early;
    ULong end;         // run clock at the end of the series
    ULong warmup_end;  // run clock where the warm-up ends
    ULong sites_in[4]; // per SiteClass
    ULong bytes_in[4];
    PySites* py;           // the Python sites; null without Python frames
    ClassifyParams params; // what classified the sites (the holders' series too)
};

// Brings all series up to date and classifies every site: leaked when the
// last leak scan found some of its blocks definitely or indirectly lost,
// else by its history.
// python_sites: group the Python sites too (the teardown's holders do
// without: a Python site's series costs 512 bytes, a million of them at the
// run's peak).
void analyse(Analysis* a, bool python_sites = true);
void analysis_release(Analysis* a);

// The run clock where a resize staircase's next step is due: the end of
// the (fractional) bucket position the classifier predicted.
ULong staircase_due(const Growth& g);

// Live bytes of a site at the end of each complete mark bucket (its own
// history, or its constant level if it did not change since marks began).
const i64* mark_levels(const Site* s, UInt n, i64* scratch);

} // namespace mg
