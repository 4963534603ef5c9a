// SPDX-License-Identifier: GPL-2.0-or-later
// The page's answer in one line (docs/memgrow-report.md, "The first
// screen"): what grows, how fast, what holds it and when it reaches the
// memory limit; else what leaks; else that nothing grows.
#pragma once

#include "report/model.hpp"

#include <string>

namespace mg::report {

// Plain text (escape it for markup), e.g. "Growing: handle (service.py:22)
// gained 8.9 MB after the warm-up (+0.088 B per byte allocated), held by
// journal; 3 growing sites gained 9.1 MB in all; the heap reaches the 2 GB
// limit (--limit) in 3.5 hours."
std::string verdict_text(const Report& r);

} // namespace mg::report
