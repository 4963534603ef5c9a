// Client requests (include/memgrow.h): marks, on-demand reports, teardown
// and device-side allocations.
#pragma once

#include "mg_vg.hpp"

namespace mg {
Bool handle_client_request(ThreadId tid, UWord* args, UWord* ret);
// Classifies the current state and writes the report and summary (at exit,
// or on request mid-run).
bool report_now(const HChar* path_pattern, bool summary);
extern bool forked_child;
} // namespace mg
