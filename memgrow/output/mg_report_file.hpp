// SPDX-License-Identifier: GPL-2.0-or-later
// Where a JSON report goes (docs/robustness.md, "Where a report goes";
// core/output_path.hpp decides how): a new path or a regular file is
// replaced atomically, through symbolic links to their target; devices,
// FIFOs, Unix sockets and the process's own descriptors are written through.
// Every failure is said with the path the user gave and the system's reason.
#pragma once

#include "mg_vg.hpp"

namespace mg {

struct ReportFile {
    Int fd = -1;
    HChar* target = nullptr; // the file a temporary replaces; null when written through
    HChar* tmp = nullptr;
    bool locked = false; // a write lock shared paths take (docs/robustness.md)
    bool linger = false; // a FIFO kept open a moment for the run's other writers
};

// At start-up: the client's umask then gives every report's mode, whatever
// the client sets later.
void report_file_init();

// At start-up, for --json-file: whether the path can take a report, without
// waiting for a FIFO's reader or touching a device (a FIFO that has a reader
// is held open for the run's reports). Exits with the reason when it cannot;
// returns whether a regular file was there.
bool report_path_check(const HChar* option, const HChar* path);

// Whether path is written through (a descriptor, a device, FIFO or
// socket): every process of a run writes there as it is, where a regular
// file's name gets a child's pid.
bool report_path_written_through(const HChar* path);

// The last failure said, for vgdb's answer.
const HChar* report_file_last_failure();

// Opens the report's file; false after saying why. A path written through
// is locked against the run's other processes. A FIFO with no reader is
// waited for when may_wait (a stop signal ends the wait; a forked child
// waits 10 s at most), else skipped.
bool report_file_open(const HChar* path, ReportFile* f, bool may_wait);

// Ends it: write_error is the errno of a failed write (0: none). A
// replacement gets its mode and is renamed into place. False after saying
// why (and removing the temporary file).
bool report_file_finish(const HChar* path, ReportFile* f, Int write_error);

} // namespace mg
