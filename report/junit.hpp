// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report junit: leaked and growing sites as JUnit XML test failures,
// for CI test-report UIs (docs/memgrow-report.md, "junit").
#pragma once

#include "report/model.hpp"

#include <string>
#include <vector>

namespace mg::report {

// <testsuites> with one <testsuite> per process (per report; per entry of
// `processes` for a merged one): a failing testcase per unsuppressed leaked or
// growing site and per error of errors[] (its kind and where), a skipped one
// per suppressed site, and a passing testcase "no leaked or growing sites"
// when it has no failing one.
std::string junit_xml(const std::vector<Report>& reports);

} // namespace mg::report
