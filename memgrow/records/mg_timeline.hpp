// SPDX-License-Identifier: GPL-2.0-or-later
// The clocks of a run and the per-site histories they drive.
//
// The run clock (--time-unit) places every allocation and free in a bucket;
// the mark clock counts MEMGROW_MARK requests. When teardown begins (exit(),
// Py_FinalizeEx) both stop, and what the report classifies is frozen: frees
// made by exit handlers and finalizers only change the "now" counters.
#pragma once

#include "records/mg_sites.hpp"

namespace mg {

struct Timeline {
    BucketClock run;
    BucketClock marks;
    ULong bytes_allocated = 0; // the default clock
    ULong instructions = 0;    // --time-unit=i, bumped by instrumentation
    ULong start_ms = 0;
    ULong n_marks = 0;
    ULong first_mark_at = 0;       // run clock at the first mark
    ULong last_mark_at = 0;        // ... and at the latest
    HChar mark_label[32] = {};     // the marks' label when they all have the same, else ""
    bool warmup_ended = false;     // MEMGROW_WARMUP_END seen ...
    ULong warmup_end_at = 0;       // ... at this run clock
    bool warmup_announced = false; // by the program itself (not CPython's start)
    // The CUDA driver's start-up calls (timeline_device_startup): how deep,
    // when the outermost began, the clock they took since the last fold.
    UInt startup_depth = 0;
    ULong startup_began_at = 0, startup_units = 0;
    ULong startup_folded_at = 0; // where their end folded the clock (0: never)
    bool torn_down = false;
    ULong teardown_at = 0;
    UInt teardown_reason = 0;   // MemgrowTeardownReason, 0: the process ended
    SiteSeries totals[kSpaces]; // all sites of a space together
    // The client's resident bytes (pages/mg_resident.hpp), sampled when the
    // run clock leaves a bucket, and when teardown began.
    SiteSeries resident;
    ULong resident_at_teardown = 0;
};

extern Timeline tl;

void timeline_init();
ULong clock_now();
// The run clock at its last bucket end: teardown_at once torn down.
ULong clock_end();

// A site's per-mark series; null until the program marks and the site
// changes after that (its level at every mark is then its live bytes).
const SiteSeries* site_marks(const Site* s);

void timeline_alloc(Site* s, SizeT bytes);
void timeline_free(Site* s, SizeT bytes);
// A live block changes size in place (a custom allocator's resize): the
// bytes it gains are allocated at its site, those it loses freed.
void timeline_resize(Site* s, SizeT from, SizeT to);
// A live block becomes two, its bytes shared between them (a hole unmapped
// in the middle of a mapping).
void timeline_split(Site* s);
// A live block changes hands (memory revived from a free list): its bytes
// leave `from`'s series and join `to`'s at the current clock, which does not
// move (nothing was allocated from the heap).
void timeline_recharge(Site* from, Site* to, SizeT bytes);
// At teardown: a block that is a dead object parked on one of CPython's
// free lists (docs/holders.md) leaves its site's live bytes from its birth
// on, as if freed in that bucket (it stays in the heap until it is).
void timeline_park(UInt site, SizeT bytes, ULong birth);
// A mark; label: the program's name for its repetition ("step"), or null.
void timeline_mark(const HChar* label);
void timeline_warmup_end();
// The program announced its warm-up's end itself (MEMGROW_WARMUP_END).
void timeline_warmup_announced();
// The run clock where start-up ended: --warmup's units when given; else the
// latest of MEMGROW_WARMUP_END, CPython's warm-up end, the first mark and
// the CUDA driver's start-up fold; 0 when none (--warmup=P%, or nothing
// announced: a share of the clock is no start-up of the program's);
// *announced says whether one of them happened (it may end at clock 0).
ULong timeline_startup_end(bool* announced = nullptr);
// A start-up call of the CUDA driver (cuInit, a context's creation) begins
// or ends; the end of one folds the run clock when they took most of it.
void timeline_device_startup(bool begin);
// The client gave pages back to the kernel (munmap, madvise, a shrinking
// mremap or brk): a large release makes the next bucket's end sample the
// resident bytes however recent the last sample (docs/pages.md).
void timeline_pages_released(SizeT bytes);
// Freezes the classified state. Returns false if teardown had already begun.
bool timeline_teardown(UInt reason);
// Brings every series up to the clocks (before reading them for a report).
void timeline_sync_all();

// Words added to the run-clock counter per superblock for --time-unit=i.
ULong* instruction_counter();

} // namespace mg
