// SPDX-License-Identifier: GPL-2.0-or-later
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

// The host heap's live bytes now.
ULong live_bytes_now();
// Live bytes added since the last checkpoint, and the site that added the
// most, named into `top` (empty when none grew); `checkpoint` starts a new
// one after answering (MEMGROW_GROWTH_SINCE, for test harnesses).
Long growth_since(HChar* top, SizeT size, bool checkpoint);

} // namespace mg
