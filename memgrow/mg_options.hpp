// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow's command-line options (Valgrind conventions: --name=value).
#pragma once

#include "mg_vg.hpp"

namespace mg {

enum class TimeUnit : UChar { bytes, instructions, millis };
enum class LeakCheck : UChar { no, summary, full };
enum class PythonFrames : UChar { hybrid, only, no };
enum class EmulateInsns : UChar { automatic, always, no };
// --json-sites: which sites the JSON report lists in full (output/mg_report_select.hpp)
enum class JsonSites : UChar { relevant, all };

// Leak kinds (--show-leak-kinds), memcheck's names and order.
enum LeakKind : UInt { kDefinite = 0, kIndirect, kPossible, kReachable, kLeakKinds };
constexpr UInt leak_kind_bit(LeakKind k) {
    return 1u << k;
}
// memgrow's words beside the kinds in --show-leak-kinds and --errors-for:
// losses of blocks that were reachable when teardown began, and of blocks
// allocated before the warm-up ended (start-up's).
constexpr UInt kTeardownBit = 1u << 4;
constexpr UInt kStartupBit = 1u << 5;
// --show-leak-kinds' words, by bit.
constexpr const HChar* kShowLeakKinds = "definite,indirect,possible,reachable,teardown,startup";

// --freelist-vol's defaults: memcheck's with --addressability=yes, where the
// queue is what catches a use after free; 256 KiB without, where it serves
// only double-free detection and a 20 MB queue made every release a cache
// miss (41% of bench/malloc_heavy.c's time, docs/design.md).
constexpr ULong kFreelistVolChecked = 20000000;
constexpr ULong kFreelistVolHunt = 262144;

struct Options {
    const HChar* json_file = "memgrow.out.%p.json";
    // The exit code of a run whose final report was lost (0: the client's).
    Int lost_report_exitcode = 1;
    TimeUnit time_unit = TimeUnit::bytes;
    Int depth = 32; // native frames kept per allocation stack
    // Frames per stack while a Python script's imports run: their sites are
    // start-up's, shown summed (check_options: --depth's when asked for).
    Int startup_depth = 4;
    bool startup_depth_given = false;
    UInt warmup_percent = 5;   // warm-up as a share of the clock ...
    ULong warmup_units = 0;    // ... or, when non-zero, in clock units
    bool warmup_given = false; // --warmup overrides the program's own boundaries
    UInt mark_warmup = 1;      // per-mark deltas ignored by the refleak rule
    Int top = 5;               // sites per class in the log summary
    // Freed bytes held back from reuse, to catch double frees and accesses
    // after free; blocks of freelist_big_blocks or more leave first (memcheck's).
    // Unless --freelist-vol (or --quarantine-bytes) is given, check_options
    // sets it from --addressability: memcheck's 20,000,000 with yes, a small
    // queue with no, where it only keeps double frees detectable.
    ULong freelist_vol = kFreelistVolChecked;
    bool freelist_vol_given = false;
    ULong freelist_big_blocks = 1000000;
    // --addressability: A-bits, redzones, every load and store checked
    Bool addressability = True;
    // --partial-loads-ok: an aligned load partly out of bounds is no error
    Bool partial_loads_ok = True;
    // --fork-pages: a forked child follows its copy-on-write pages
    Bool fork_pages = True;
    LeakCheck leak_check = LeakCheck::full;
    // Start-up's and teardown's records are summed up in a line each unless
    // asked for (docs/leak-check.md, "The log's size").
    UInt show_leak_kinds = leak_kind_bit(kDefinite) | leak_kind_bit(kPossible);
    UInt heuristics = 0x3e; // every reach::Heuristic (checked in mg_options.cpp)
    UInt errors_for = 0x8;  // bits of SiteClass: leaked (kTeardownBit, kStartupBit: theirs too)
    bool errors_for_given = false;
    // --teardown-scan: a reachability scan when teardown begins, so losses of
    // exit handlers and finalizers are told from the program's
    Bool teardown_scan = True;
    // yes/no options are Valgrind's Bool: VG_BOOL_CLO takes a Bool* since 3.21.
    Bool cuda = True; // the CUDA wrappers report (docs/cuda.md)
    // Stable sites under this peak are folded, not listed; 0: the default's
    // floor (--json-sites=relevant), or list all (--json-sites=all).
    ULong json_stable_min_bytes = 0;
    JsonSites json_sites = JsonSites::relevant;
    ULong json_format = 2; // --json-format: the report's layout (docs/output-format.md)
    PythonFrames python = PythonFrames::hybrid;
    Bool python_test_layout_mismatch = False;
    Bool python_test_future_version = False; // read debug offsets as 3.99's
    // Candidates (sites that ended) a compaction pass waits for; 0: none
    // (records/mg_site_store.cpp).
    UInt site_compaction = 1u << 16;
    // --python-malloc: the preload sets PYTHONMALLOC=malloc unless set
    Bool python_malloc = True;
    // --python-free-lists: memory revived from a free list is charged to the reviver
    Bool python_revival = True;
    // --pytorch-caching=no: the preload sets PYTORCH_NO_CUDA_MEMORY_CACHING=1
    Bool pytorch_caching = True;
    // --show-realloc-size-zero (memcheck's, Valgrind 3.21+): realloc(p, 0) is an error
    Bool show_realloc_size_zero = True;
    // --emulate-insns: instructions the host runs but VEX refuses
    EmulateInsns emulate_insns = EmulateInsns::automatic;
    // --follow-launchers: a shell or env client's execs are followed
    Bool follow_launchers = True;
    // --report-every: a snapshot every so many ms of wall time, or whenever
    // the clock grew by this percentage (0: none)
    ULong report_every_ms = 0;
    UInt report_every_percent = 0;
    // --limit (bytes; 0: the cgroup's) and --mark-rate (marks per hour; 0:
    // not given) for the projection to the limit
    ULong limit_bytes = 0;
    double mark_rate_per_h = 0;
    // --mark-at (repeatable): Python functions whose calls are marks, as
    // "MODULE:QUALNAME" or "torch", comma-separated; "" for none
    const HChar* mark_at = "";
};

extern Options clo;
// Whether the --json-file name existed when the run started (to tell our
// own report from another process's: see report_file_name).
extern bool json_file_existed_at_start;

const HChar* time_unit_name(TimeUnit u); // "B", "i" or "ms"
const HChar* leak_kind_name(UInt k);     // "definite", "indirect", "possible", "reachable"
Bool process_option(const HChar* arg);
void print_usage();
void print_debug_usage();
// Checks what can only be checked once all options are known (output
// paths); exits with an error message like a bad option does.
void check_options();

} // namespace mg
