// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report merge: the reports of several processes (fork children,
// --trace-children, DataLoader workers, GPU ranks) as one format-1 report
// that keeps each process's identity (docs/memgrow-report.md, "merge").
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mg::report {

struct MergeInput {
    std::string file; // as given: names the input in messages and in `processes[i].report`
    std::string text; // the report's JSON
};

// Checks every input as a report (a LoadError names the bad file), then
// merges them: processes parents first (by the pid/ppid tree, else in the
// order given), every site and error tagged with `pid` and `process`, the
// leak totals summed. An input that is itself a merged report contributes
// all its processes. Throws LoadError when one process is given twice.
nlohmann::json merge_reports(const std::vector<MergeInput>& inputs);

} // namespace mg::report
