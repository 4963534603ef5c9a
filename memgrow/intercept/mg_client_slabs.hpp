// SPDX-License-Identifier: GPL-2.0-or-later
// Small client heap blocks, carved from slabs by size class.
#pragma once
#include "mg_vg.hpp"

namespace mg {

// Whether a block of this size and alignment is carved from a slab (small
// blocks with the default alignment); the others come from the core's arena.
bool slab_fits(SizeT size, SizeT align);
// A block of `size` bytes (slab_fits) with the redzones the checks need
// around it; null when the client's memory is exhausted. Its bytes and
// A-bits are as the previous user left them (the caller sets both).
void* slab_alloc(SizeT size);
// Gives a slab block back to its class (after the quarantine).
void slab_free(Addr a, SizeT size);
// Forgets the slots given back (they are not handed out again): the last
// report, when nothing allocates any more, needs the tool memory.
void slabs_forget_free_slots();
// An address in a slab's memory that no block holds, described as the core
// describes the arena's free memory ("an unallocated block ... in arena
// client"); false when a is in no slab.
bool slab_describe(Addr a, AddrInfo* ai);

} // namespace mg
