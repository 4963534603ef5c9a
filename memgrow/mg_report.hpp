// The outputs: the JSON report (format in docs/output-format.md) and the
// summary in the log.
#pragma once

#include "mg_analysis.hpp"

namespace mg {

// Writes the report atomically (a temporary file renamed into place).
// Returns false, after saying why in the log, when it cannot be written.
bool write_json_report(const HChar* path, const Analysis& a);

void print_summary(const Analysis& a);

// The report file name for this process. Without %p in the pattern, a
// forked child, or a process finding the --json-file name written by another
// process of the run (--trace-children), gets its pid inserted, so that
// every process writes its own report.
HChar* report_file_name(const HChar* pattern, bool forked_child);

} // namespace mg
