// SPDX-License-Identifier: GPL-2.0-or-later
// The leak scan: memcheck's reachability search over the live host blocks
// (core/reachability.hpp), from the roots memcheck uses, summed per site.
#pragma once

#include "mg_options.hpp"
#include "records/mg_blocks.hpp"
#include "records/mg_sites.hpp"
#include "core/reachability.hpp"
#include "core/sorted_ids.hpp"

namespace mg {

// The parts of a scan's blocks: the program's own, and those told apart
// from its losses (docs/leak-check.md): lost at start-up (allocated before
// the warm-up ended) and lost by teardown (reachable when it began; this
// wins over start-up). Only lost blocks are ever start-up's or teardown's.
enum LeakPart : UChar { kOwnPart = 0, kStartupPart, kTeardownPart, kLeakParts };

// A part's bit in --show-leak-kinds and --errors-for.
inline UInt leak_part_bit(UInt part) {
    return part == kStartupPart ? kStartupBit : part == kTeardownPart ? kTeardownBit : 0;
}

// Block counts are 32-bit, as a site's live blocks are (records/mg_sites.hpp).
struct PartLeak {
    ULong bytes[kLeakKinds];
    UInt blocks[kLeakKinds];
    // Bytes indirectly lost through this site's definitely lost blocks
    // (memcheck's "N (D direct, I indirect) bytes" in a loss record).
    ULong indirect_through;
};

struct SiteLeak : PartLeak {
    // The parts of the above that start-up and teardown lost (apart[p - 1]
    // for part p); the program's own part is what is left.
    PartLeak apart[kLeakParts - 1];
    PartLeak part(UInt p) const {
        if (p != kOwnPart) return apart[p - 1];
        PartLeak own = *this;
        for (const PartLeak& a : apart) {
            for (UInt k = 0; k < kLeakKinds; ++k)
                own.bytes[k] -= a.bytes[k], own.blocks[k] -= a.blocks[k];
            own.indirect_through -= a.indirect_through;
        }
        return own;
    }
};

// Definitely and indirectly lost bytes: what makes a site leaked. Without
// --errors-for=teardown (startup), what teardown (start-up) lost does not.
inline ULong leaked_bytes(const SiteLeak& l) {
    ULong b = l.bytes[kDefinite] + l.bytes[kIndirect];
    for (UInt p = kStartupPart; p < kLeakParts; ++p)
        if (!(clo.errors_for & leak_part_bit(p)))
            b -= l.apart[p - 1].bytes[kDefinite] + l.apart[p - 1].bytes[kIndirect];
    return b;
}

struct LeakScan {
    UInt number;  // 1 for the run's first scan
    UInt n_sites; // sites that existed when it ran
    // Sparse: most sites have no live block when a scan runs (1.3M sites
    // after `import torch` would be 160 bytes each). leaks[i] is site
    // ids[i]'s, in ascending id.
    UInt* ids;
    SiteLeak* leaks;
    UInt n_leaks;
    // What the scan found of a site's blocks (all zero for none).
    const SiteLeak& site(UInt id) const {
        static const SiteLeak none{};
        UInt k = find_sorted_id(ids, n_leaks, id);
        return k < n_leaks ? leaks[k] : none;
    }
    // memcheck's counts: the heap's blocks (memcheck counts no mapping)
    ULong bytes[kLeakKinds], blocks[kLeakKinds];
    // The client's own mappings (the mapped space), beside them
    ULong mapped_bytes[kLeakKinds], mapped_blocks[kLeakKinds];
    ULong heuristic_bytes[reach::kHeuristicCount], heuristic_blocks[reach::kHeuristicCount];
    ULong scanned_bytes; // root and block memory read
    // Of bytes and blocks, start-up's and teardown's (by part - 1); only the
    // heap's, as memcheck's counts.
    ULong part_bytes[kLeakParts - 1][kLeakKinds], part_blocks[kLeakParts - 1][kLeakKinds];
    bool teardown_scanned; // a teardown scan ran before this one
    // The run clock where start-up ended: blocks born before it are
    // start-up's (0: no start-up was announced).
    ULong startup_end;
    // The scan just before found no block: memcheck forgot its loss
    // records then, so this one's are all new (its summary still compares
    // with leak_scan_previous).
    bool after_empty;
};

// Whether the scan tells the part apart: start-up's when the run announced
// where its start-up ended, teardown's when a teardown scan ran.
inline bool leak_part_told(const LeakScan& s, UInt part) {
    return part == kStartupPart ? s.startup_end != 0 : s.teardown_scanned;
}

void leak_init();
// Scans now. The result stays until the next scan, which keeps it as the
// previous one (for what is new or increased).
const LeakScan* leak_scan();
const LeakScan* leak_scan_last(); // null before the first scan
// The scan when teardown begins (Py_FinalizeEx, exit()): marks the blocks
// reachable then, so that a later scan tells what teardown lost. It is not
// one of the run's scans (leak_scan_last is unchanged), but its blocks are
// kept (leak_scan_blocks) for the holders, until the next scan. tid's stack is read
// from caller_sp up (above the preload wrapper's frame that asked). Without
// for_leaks (--leak-check=no, --teardown-scan=no) it walks for the holders
// alone: no block is marked, and the leak report is as without it.
void leak_scan_teardown(ThreadId tid, Addr caller_sp, bool for_leaks);
// A walk for the holders alone, at the last report when no scan ran (a run
// with --leak-check=no that never began teardown): its blocks are kept as a
// scan's, and it is not one of the run's scans.
void leak_scan_for_holders();
// As teardown begins, zeroes tid's stack below its stack pointer: the frames
// teardown pushes there leave slots unwritten, which memcheck does not scan
// (stack memory is undefined until written) and memgrow would read as
// pointers.
void leak_forget_dead_stack(ThreadId tid);
// A block allocated after the teardown scan belongs to the teardown.
void block_born_in_teardown(Block* b);
// The scan before the last that found blocks: as memcheck, a scan that
// found none ("All heap blocks were freed") is no one's previous scan.
const LeakScan* leak_scan_previous();
// Whether the scan found no block at all.
bool leak_scan_empty(const LeakScan* s);

// What the last scan found for each block, by address, kept until the next
// scan for memcheck's block_list: the blocks of a loss record, and through
// which block each indirectly lost one was found.
struct ScannedBlock {
    Addr addr;
    SizeT size;
    // Reachable or possibly reachable: how it was first reached (breadth
    // first: the shortest way), a block's index or reach::kViaRoot | the root
    // word's address. Indirectly lost: the index of the block it was found
    // through. Definitely lost: kNotReached.
    ULong via;
    UInt site;       // site id
    UChar kind;      // kDefinite, kIndirect, kPossible, kReachable
    UChar heuristic; // the reach::Heuristic that accepted its pointer, if any
    UChar part;      // LeakPart: lost at start-up or by teardown, else the program's
};
constexpr ULong kNotReached = ~0ull;
// Null before the first scan; *obsolete when a block was freed since (the
// addresses may be reused: memcheck refuses the list then).
const ScannedBlock* leak_scan_blocks(UInt* n, bool* obsolete);
// Forgets them (block_list has nothing to list after), for the last report.
void leak_scan_forget_blocks();
// Each live thread's stack when the last scan ran, to name the frame that
// owns a root word on a stack (memgrow/holders/).
struct ScannedStack {
    static constexpr UInt kFrames = 48;
    ThreadId tid;
    Addr top;    // the stack's highest address
    Addr thread; // its thread pointer (FS): static TLS below it, the TCB above
    UInt n;
    Addr ips[kFrames], sps[kFrames];
};
const ScannedStack* leak_scan_stacks(UInt* n);
// The stack and frame of those that own a (the innermost frame whose stack
// pointer is at or below it), or false.
bool leak_scan_stack_frame(Addr a, const ScannedStack** stack, UInt* frame);
// The thread whose thread-local storage (its static TLS blocks below the
// thread pointer, its control block and pthread_setspecific slots above) a
// is in, or false.
bool leak_scan_thread_storage(Addr a, const ScannedStack** stack);
// Gives the pages of the client's anonymous memory (its heap, the arena and
// slabs memgrow's malloc carves, its stacks) back to the kernel: after the
// process's last scan nothing reads them, and the report that follows is
// the tool's biggest moment (the client heap of `import torch` is 170 MB).
// The mappings stay; a read would see zeros. The client-heap segments stay
// when the core walks the client arena after the tool (--stats=yes,
// --sanity-level=2 and up, --profile-heap=yes).
void client_memory_discard();
// memcheck's monitor who_points_at: every word of the roots and of the live
// blocks, and every register, that points into [a, a+len), described.
void leak_who_points_at(Addr a, SizeT len);

} // namespace mg
