// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report sarif: leaked and growing sites as SARIF 2.1.0 results, for
// code-scanning UIs (docs/memgrow-report.md, "sarif").
#pragma once

#include "report/model.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mg::report {

struct SarifOptions {
    std::string source_root;  // make paths relative to it (uriBaseId SRCROOT); empty: as written
    std::string version = ""; // the tool's version, for tool.driver.version
};

// A path as a URI reference: unreserved characters and sub-delimiters kept,
// everything else (space, '%', '#', '?', non-ASCII bytes) percent-encoded.
std::string uri_encode(const std::string& path);

// One run, tool memgrow, rules memgrow/leaked and memgrow/growing, one result
// per unsuppressed leaked or growing site of every report; then one result
// per error of errors[], its rule the error's kind.
nlohmann::json sarif_log(const std::vector<Report>& reports, const SarifOptions& o);

} // namespace mg::report
