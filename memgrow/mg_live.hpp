// Reports of a running process: periodic snapshots (--report-every), so a
// service that is killed (OOM, SIGKILL, a deploy) leaves its latest picture
// behind. Requests and monitor commands for a report now are in
// mg_requests.cpp.
#pragma once

#include "mg_vg.hpp"

namespace mg {

void live_pre_init();    // registers the scheduler hook
void live_init();        // after options: the first deadline
void live_print_stats(); // -v: how many snapshots, and the pauses they cost

} // namespace mg
