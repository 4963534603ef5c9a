// SPDX-License-Identifier: GPL-2.0-or-later
// The outputs: the JSON report (format in docs/output-format.md) and the
// summary in the log.
#pragma once

#include "classify/mg_analysis.hpp"
#include "records/mg_symbols.hpp"

namespace mg {

// Writes the report (mg_report_file.hpp: a regular file atomically, a
// device, FIFO or socket through; may_wait: for a FIFO's reader). Returns
// false, after saying why in the log, when it cannot be written.
bool write_json_report(const HChar* path, const Analysis& a, bool may_wait);

void print_summary(const Analysis& a);
// One frame in Valgrind's style ("at"/"by"); first_frame points at a bool,
// true before the first frame of a stack.
void print_frame(const Frame& f, void* first_frame);
// Which loss records a scan lists, as memcheck's leak_check keywords: all,
// without deltas (any, and at exit); or, with deltas against the previous
// scan, those that increased, changed, or are new (Valgrind 3.21's "new").
enum class LeakDelta : UChar { any, increased, changed, fresh };
// Loss records (--leak-check=full, --show-leak-kinds) and the LEAK SUMMARY;
// with a limit, only that many of the records it would print, the largest
// (memcheck's "limited N").
void print_leaks(const Analysis& a, LeakDelta which, UInt limit = 0, bool by_monitor = false);
// memcheck's block_list: the blocks of the last scan's loss records from..to
// (0-based, to clamped to the last), at most max_blocks of them, only those
// a heuristic in `heuristics` (bits by reach::Heuristic, 0: all) accepted;
// each with the blocks lost through it. False when there is no such record
// (after saying why when the list cannot be had).
bool print_block_list(UInt from, UInt to, UInt max_blocks, UInt heuristics);
// Forgets the loss records print_leaks kept for block_list (the last report).
void forget_loss_records();
// Lost bytes and blocks of the sites whose loss records are suppressed, by
// leak kind, and their sum at [kLeakKinds]: all of them, or only those lost
// at start-up or by teardown (part kStartupPart, kTeardownPart).
void suppressed_totals(const LeakScan* scan, const Analysis& a, ULong* bytes, ULong* blocks,
                       UInt part = kLeakParts);

// The report file name for this process. Without %p in the pattern, a
// forked child, or a process finding the --json-file name written by another
// process of the run (--trace-children), gets its pid inserted, so that
// every process writes its own report.
HChar* report_file_name(const HChar* pattern, bool forked_child);

} // namespace mg
