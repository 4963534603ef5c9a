// SPDX-License-Identifier: GPL-2.0-or-later
// One finding per holder (docs/holders.md): a holder's series is the sum of
// the series of the sites it holds, each in the share of its bytes the
// holder keeps, classified by the sites' rules. So a list that keeps the
// memory of six growing Python sites is one growing finding, and growth
// spread thin over many sites that each stayed small (10,000 code objects'
// bytearrays in one list) is the growth of the one holder that keeps it.
#pragma once

#include "classify/mg_analysis.hpp"

namespace mg {

struct HolderSite {
    UInt id; // a Python site's id where the site has Python frames, else a site's
    bool python;
    ULong bytes; // of it the holder keeps
};

constexpr UInt kTopSites = 5;
struct HolderFinding {
    Growth growth;             // of the holder's series
    ULong live_bytes;          // its share of its sites' live bytes at teardown
    UInt n_sites;              // the sites (Python sites where there are) it keeps bytes of
    HolderSite top[kTopSites]; // the largest of them, those the log and show print (n_top)
    UInt n_top;
    UInt count; // the holders that read the same, folded into this finding
};

// After holders_apply: classifies every holder's series.
void holder_findings_build(const Analysis& a);
// By holder index (holders_all); null when not built. Holders that read the
// same (one path, root and type: the elements of one list) share one.
const HolderFinding* holder_finding(UInt holder);
// The holders whose series grows, largest growth first; into a buffer valid
// until the next build.
UInt holder_findings_growing(const UInt** order);
// The holders whose series is a plateau (a bounded holder's too), most live
// bytes first.
UInt holder_findings_plateau(const UInt** order);
void holder_findings_release();

} // namespace mg
