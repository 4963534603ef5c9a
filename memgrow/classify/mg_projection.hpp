// SPDX-License-Identifier: GPL-2.0-or-later
// The projection to the memory limit (--limit, else the cgroup's limit):
// when the heap reaches it if the growing sites keep their rates, and which
// site takes most of the way there (docs/output-format.md, "projection").
#pragma once

#include "classify/mg_analysis.hpp"
#include "core/json_writer.hpp"
#include "core/projection.hpp"

namespace mg {

struct Projection {
    bool on = false;          // a limit is known
    const HChar* source = ""; // "option" or "cgroup"
    bool by_marks = false;    // rates and shares per mark, else per clock unit
    projection::Input in;
    projection::Result out;
    Int top_site = -1; // the growing site with the largest share
};

// After options: the cgroup's limit when --limit is not given.
void projection_init();
Projection projection_of(const Analysis& a);
// A growing site's share of the combined rate (0 for the others).
double projection_share(const Projection& p, const Analysis& a, UInt site_id);
void projection_print(const Projection& p, const Analysis& a);
void projection_write_json(JsonWriter& w, const Projection& p, const Analysis& a);

} // namespace mg
