// SPDX-License-Identifier: GPL-2.0-or-later
// The client arena's bookkeeping (block sizes, free-list links, superblock
// headers) lies next to the blocks it hands out, in memory the program may
// not touch. Memcheck reports a write there and lets it through; the arena
// then fails an assertion at a later free ("the 'impossible' happened") and
// the run ends without its report. memgrow reports the write too, but first
// saves the bookkeeping bytes it will overwrite, and puts them back before
// the arena is used again (an allocation, an address's description): a
// write past a block, of any size, corrupts only memory that is no block's.
#pragma once

#include "mg_vg.hpp"

namespace mg {

extern UInt guard_saved; // bookkeeping writes not yet undone

// Before a write of n bytes at a that touches memory not addressable, after
// its error (whose description puts back what earlier writes overwrote).
void heap_guard_write(Addr a, SizeT n);
void heap_guard_restore_now();
// Puts back the bookkeeping the program overwrote since the last call.
inline void heap_guard_restore() {
    if (__builtin_expect(guard_saved != 0, 0)) heap_guard_restore_now();
}

} // namespace mg
