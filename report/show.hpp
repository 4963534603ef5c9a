// SPDX-License-Identifier: GPL-2.0-or-later
// `memgrow-report show`: the summary a person reads first. Per class, the
// top sites with their frames, live bytes, growth rates and a sparkline of
// their series.
#pragma once

#include "report/model.hpp"

#include <string>
#include <vector>

namespace mg::report {

struct ShowOptions {
    std::vector<SiteClass> classes;     // only these classes (empty: all)
    std::vector<std::string> spaces;    // only these spaces (empty: all)
    std::vector<std::string> files;     // a frame's file is one of these (or ends in /NAME)
    std::vector<std::string> functions; // a frame's function contains one of these
    bool suppressed = false;            // list suppressed sites too
    std::size_t top = 5;                // sites per class
    std::size_t frames = 8;             // frames per site
    std::size_t width = 32;             // sparkline columns
    bool ascii = false;                 // sparkline without Unicode
};

// Whether the filters keep site `s` (suppression aside).
bool site_matches(const Site& s, const ShowOptions& o);

std::string show_report(const Report& r, const ShowOptions& o);

} // namespace mg::report
