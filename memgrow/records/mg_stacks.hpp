// SPDX-License-Identifier: GPL-2.0-or-later
// Stack capture with a per-thread cache of verified stacks.
//
// Unwinding with CFI is the biggest cost of an allocation. Most
// allocations come from a stack seen a moment ago, so each thread keeps its
// recent stacks keyed by the registers the unwinder starts from (IP, SP,
// FP). A hit is accepted only after checking that every return address of
// the cached stack is still in its slot on the client's stack: the unwinder
// would read exactly those words, so it would produce exactly that stack.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// What a cached stack stands for; each purpose has its own cache.
// Revivals of free-listed memory (mg_revival.cpp) have sets of their own, so
// that they do not push the allocations' stacks out.
enum class StackPurpose : UChar { allocation, deallocation, revival };

struct CapturedStack {
    const Addr* ips; // innermost first; ips[0] is the current IP
    const Addr* sps; // each frame's stack pointer
    UInt n;
    void** payload; // the caller's value for this stack (a Site*, an
                    // ExeContext*): non-null on a hit, to be filled on a miss
    ULong serial;   // names this cached stack until its entry is refilled or
                    // cleared (never reused); 0 for a stack that is not cached
};

// Captures up to max_frames frames of tid's stack. The result stays valid
// until the next capture.
CapturedStack capture_stack(ThreadId tid, StackPurpose purpose, UInt max_frames);

// Forgets the cached stacks of one purpose, with their payloads (when what
// callers derive from a stack changes).
void stack_cache_clear(StackPurpose purpose);

struct StackCacheStats {
    ULong hits, misses;
};
StackCacheStats stack_cache_stats();

} // namespace mg
