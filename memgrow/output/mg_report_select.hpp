// SPDX-License-Identifier: GPL-2.0-or-later
// Which sites the JSON report lists in full and which it folds into totals
// (--json-sites, --json-stable-min-bytes; docs/output-format.md, "What the
// report lists"). A report sized by the interpreter's stacks (5 MB for a
// Python one-liner, 716 MB for a pytest run) is one nobody reads: the
// default lists what a person or a CI gate needs, every classified, leaking,
// suppressed, device-side or large site, and folds the rest so that the
// totals still add up to the heap.
#pragma once

#include "classify/mg_analysis.hpp"
#include "records/mg_symbols.hpp"

namespace mg {

// The sites folded together, summed: a listed Python site's folded
// sub-sites, or those one frame names (core/site_name.hpp's rule applied to
// the Python stack where there is one, else to the native stack); groups
// that never held the threshold together make one group without frames.
struct FoldGroup {
    UInt python_site; // the listed Python site, or kNoPySite: named by (word, inlined)
    StackWord word;   // the naming frame's code word (0: no frames)
    UInt inlined;     // and its place among the calls inlined there
    DiEpoch ep;       // the epoch that symbolises it
    ULong sites;      // how many sites it holds
    ULong live_bytes, live_blocks, peak_bytes; // peak: the sum of its sites' peaks
    ULong allocated_bytes, allocated_blocks, at_exit_bytes, at_exit_blocks;
};

struct ReportSelection {
    ULong min_bytes;    // a stable site whose peak stayed under it may be folded
    UChar* site;        // by site id: 1 when listed
    UChar* py;          // by Python site id: 1 when listed (null without Python sites)
    UInt n_sites, n_py; // listed
    FoldGroup* groups;
    UInt n_groups, cap_groups;
    ULong folded_sites, folded_peak, folded_at_exit; // the "omitted_sites" totals
};

// The default's threshold (whatever --json-sites says): a stable site that
// never held it may be folded, and a holder's share under it is no line of
// its own (held_by, a holder finding's members: docs/holders.md).
ULong report_floor(const Analysis& a);
// Decides what the report of `a` lists, and sums what it folds.
void report_select(const Analysis& a, ReportSelection* sel);
void report_select_release(ReportSelection* sel);

} // namespace mg
