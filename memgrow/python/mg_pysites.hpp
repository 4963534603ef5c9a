// SPDX-License-Identifier: GPL-2.0-or-later
// Python sites (docs/python.md): the sites whose Python frames are equal
// (the whole Python stack, innermost first) form one, with the sum of their
// series, classified on that sum by the same rules, leaked when any of its
// native sub-sites is. They lead the log and the report of a process with
// Python frames.
#pragma once

#include "classify/mg_growth_table.hpp"
#include "records/mg_sites.hpp"
#include "core/classify.hpp"

namespace mg {

struct Analysis;

struct PySite {
    UInt stack;  // the Python frames, innermost first: a node of the stack tree
    Space space; // a Python site is one memory space's, as its sub-sites are
    UChar device;
    UInt first; // first native sub-site (site id); PySites::next chains the rest
    UInt n_members;
    ULong live_bytes, live_blocks, peak_bytes, allocated_bytes, allocated_blocks;
    ULong at_exit_bytes, at_exit_blocks;
    bool suppressed;   // every sub-site with a class that is not stable is suppressed
    SiteClass history; // the class of the summed series alone
    SiteClass cls;     // the Python site's class (PySites::growth has the evidence)
    i64* series;       // summed live bytes, one per bucket
    i64* marks;        // summed per-mark levels; null when the program did not mark
};

struct PySites {
    UInt n;
    PySite** sites; // by Python site id, in order of their first sub-site
    UInt* of_site;  // by site id: its Python site id, or kNoPySite
    UInt* next;     // by site id: the next sub-site of the same Python site
    // By Python site id: the evidence of its class (most are alike, and
    // held once).
    GrowthTable growth;
    ULong in_class[4];
};
constexpr UInt kNoPySite = ~0u;

// Groups the classified sites of `a` into Python sites and classifies them
// with p. Leaves a->py null when no site has Python frames.
void python_sites_build(Analysis* a, const ClassifyParams& p);
void python_sites_release(Analysis* a);

// The innermost Python frame of the site in the user's code, else the
// innermost Python frame: its function, file and line.
void python_site_headline(const PySite* ps, const HChar** function, const HChar** file, Int* line);

} // namespace mg
