// SPDX-License-Identifier: GPL-2.0-or-later
// Forked children's copy-on-write in one line (docs/pages.md), for show and
// html: a child's own, or the sum over a merged report's processes or over
// several reports.
#pragma once

#include "report/model.hpp"

#include <string>
#include <vector>

namespace mg::report {

// "2 workers copied 44.8 MiB of inherited pages; 90% holds objects from
// load (app.py:14)", or for one child "this process (forked from 4242)
// copied 16.3 MiB of the 32.9 MiB it inherited; ..."; "" when no report
// has a forked child's copy.
std::string fork_line(const std::vector<const Report*>& reports);

} // namespace mg::report
