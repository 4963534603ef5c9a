// The leak scan: memcheck's reachability search over the live host blocks
// (core/reachability.hpp), from the roots memcheck uses, summed per site.
#pragma once

#include "mg_options.hpp"
#include "records/mg_sites.hpp"
#include "core/reachability.hpp"

namespace mg {

struct SiteLeak {
    ULong bytes[kLeakKinds], blocks[kLeakKinds];
    // Bytes indirectly lost through this site's definitely lost blocks
    // (memcheck's "N (D direct, I indirect) bytes" in a loss record).
    ULong indirect_through;
};

struct LeakScan {
    UInt number;     // 1 for the run's first scan
    UInt n_sites;    // sites that existed when it ran
    SiteLeak* sites; // by site id
    ULong bytes[kLeakKinds], blocks[kLeakKinds];
    ULong heuristic_bytes[reach::kHeuristicCount], heuristic_blocks[reach::kHeuristicCount];
    ULong scanned_bytes; // root and block memory read
};

void leak_init();
// Scans now. The result stays until the next scan, which keeps it as the
// previous one (for what is new or increased).
const LeakScan* leak_scan();
const LeakScan* leak_scan_last();     // null before the first scan
const LeakScan* leak_scan_previous(); // null before the second

} // namespace mg
