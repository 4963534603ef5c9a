// SPDX-License-Identifier: GPL-2.0-or-later
// Client requests (include/memgrow.h): marks, on-demand reports, teardown
// and device-side allocations.
#pragma once

#include "output/mg_report.hpp"

namespace mg {
Bool handle_client_request(ThreadId tid, UWord* args, UWord* ret);
// What a report written now includes besides the JSON.
struct ReportHow {
    bool summary = false; // print the leak and growth summaries to the log
    bool at_exit = false; // count the class errors, list the used suppressions
    bool scan = true;     // scan for leaks first (with --leak-check); else the last scan's
    // The process ends after it (fini): what only lookups, the blocks'
    // checks and block_list need is freed before the Python sites and the
    // report's tables are built, which is when the tool's memory peaks.
    bool last = false;
    // A FIFO with no reader is waited for; else (snapshots) the report is skipped.
    bool may_wait = true;
};
// Classifies the current state and writes the report (at exit, on request
// mid-run, as a snapshot). `written`, when given, receives the file's name
// (VG_(free) it) when the report was written.
bool report_now(const HChar* path_pattern, const ReportHow& how, HChar** written = nullptr);
// Scans for leaks now (a request, a monitor command) and prints the loss
// records `which` and `kinds` (as --show-leak-kinds) select, at most `limit`
// of them when not 0, and the summary (its hints worded for a monitor
// command when by_monitor). Returns the definitely and indirectly lost
// bytes not suppressed.
ULong leak_check_now(LeakDelta which, bool full, UInt kinds, UInt limit = 0,
                     bool by_monitor = false);
// The LEAK SUMMARY of the last of those scans (memcheck's COUNT_LEAKS and
// COUNT_LEAK_BLOCKS): by leak kind less what suppressions silence, the
// suppressed at [kLeakKinds]; zeros before the first scan.
struct LeakCounts {
    ULong bytes[kLeakKinds + 1], blocks[kLeakKinds + 1];
};
const LeakCounts& last_leak_counts();
extern bool forked_child;
} // namespace mg
