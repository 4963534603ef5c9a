// SPDX-License-Identifier: GPL-2.0-or-later
// --addressability=yes: every load and store of the client checked against
// the A-bits (mg_abits.hpp), with memcheck's errors.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// Adds the checks to a superblock: before each load, store, guarded load
// or store, CAS and dirty helper's memory effect, an inline look-up of the
// access's bitmap bits, and a call to the slow path only where one is set.
// Accesses just above the stack pointer (a few bytes below: its redzone)
// are addressable by construction and left unchecked. Accesses through
// temporaries numbered tool_tmps or above are an earlier pass's own.
IRSB* access_instrument(IRSB* in, const VexGuestLayout* layout, IRTemp tool_tmps);
// A client request's change of the A-bits (MAKE_MEM_NOACCESS, a custom
// allocator's redzones): when it makes stack memory not addressable, the
// near-SP shortcuts stop (translations are redone).
void request_make(Addr a, SizeT len, bool addressable);
// A helper that names the instruction or unwinds the stack: the guest's IP,
// SP and FP are declared read, so they are current when it runs.
void access_annotate_unwind(IRDirty* d, const VexGuestLayout* layout);
// -v: checks generated and left out as sure to pass.
void access_print_stats();

} // namespace mg
