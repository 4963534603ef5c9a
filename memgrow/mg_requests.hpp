// Client requests (include/memgrow.h): marks, on-demand reports, teardown
// and device-side allocations.
#pragma once

#include "mg_vg.hpp"

namespace mg {
Bool handle_client_request(ThreadId tid, UWord* args, UWord* ret);
// Classifies the current state and writes the report and summary (at exit,
// or on request mid-run); at exit also counts the class errors.
bool report_now(const HChar* path_pattern, bool summary, bool at_exit = false);
// Scans for leaks now (a request, a monitor command) and prints the loss
// records (all, or only those new or increased since the previous scan) and
// the summary. Returns the definitely and indirectly lost bytes not
// suppressed.
ULong leak_check_now(bool only_increased, bool full);
extern bool forked_child;
} // namespace mg
