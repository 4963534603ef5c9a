// SPDX-License-Identifier: GPL-2.0-or-later
// Memory revived from a free list is charged to the stack that revives it.
//
// CPython hands freed lists, tuples, floats, dicts and dict keys (more per
// version) out again without malloc. Every object it (re)initialises gets
// its reference count set to 1 (`_Py_NewReference`, inlined or not; a dict
// keys object's dk_refcnt), so the tool instruments the interpreter's stores
// of the constant 1 (8 bytes): one that lands on the start of a heap block,
// or just past a GC header, of a block that this thread did not just
// malloc, moves that block to the site of the current stack, from this
// clock on. NumPy's small data and dimension caches revive blocks that no
// such store touches: a new ndarray's dimension and data blocks are charged
// to the array object's site instead (docs/python.md).
#pragma once

#include "mg_vg.hpp"

namespace mg {

// Adds the revival checks to a superblock of the interpreter's code; the
// superblock is returned unchanged elsewhere, or when they are off.
IRSB* revival_instrument(IRSB* bb, const VexGuestLayout* layout, const VexGuestExtents* vge);

// A host block was just allocated by tid (its own fresh object is no
// revival).
void revival_block_allocated(ThreadId tid, Addr a, SizeT size);

// A host block now starts at a (any allocation path, custom allocators'
// too): stores near it may be revivals again.
void revival_block_started(Addr a);

// New executable code was mapped (NumPy may have been loaded).
void revival_code_mapped();

// A host block is being freed (a pending NumPy array is settled or dropped).
void revival_block_freed(Addr a);

void revival_print_stats();

} // namespace mg
