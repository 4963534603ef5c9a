// SPDX-License-Identifier: GPL-2.0-or-later
// The growth flame graph's data (docs/memgrow-report.md, "The flame graph"):
// the report's native sites merged by stack into one tree from the outermost
// frame in (Python and native frames interleaved as in the log), each node
// weighed three ways — bytes gained after the warm-up, live bytes at
// teardown, leaked bytes — with the class of the largest site beneath it by
// each. Nodes below a small share of every total are left out (their bytes
// stay in their parent's width), so the page draws a few thousand nodes
// however many sites a report has.
#pragma once

#include "report/model.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>

namespace mg::report {

// The metrics, in the order of every node's values.
enum class FlameMetric { gained, live, leaked };

// {"names": [frame labels], "nodes": flat rows [parent (-1 for the root), name,
// gained, live, leaked, class by gained, by live, by leaked (0 stable ..
// 3 leaked)], a parent always before its children, "totals": [the root's
// three values], "left_out": nodes not kept}. A node is kept when one of its
// values is at least `min_share` of that total.
nlohmann::json flame_data(const Report& r, double min_share = 1e-4);

} // namespace mg::report
