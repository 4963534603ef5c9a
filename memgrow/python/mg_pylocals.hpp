// SPDX-License-Identifier: GPL-2.0-or-later
// The local variables of the live Python frames, for the leak scan and the
// holder paths: a frame's slots are the program's way to what its locals
// hold (`handle.<locals>.batch`), where the rest of a frame chunk (dead
// frames' leftovers) is not. Read once per scan, while the program is
// stopped; every read of client memory is checked first.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// Reads where every thread's live frames keep their locals now (before a
// scan); forgets them when Python frames are off.
void pylocals_snapshot();

// Whether a is a local variable's slot of a frame of the last snapshot.
bool pylocals_slot(Addr a);

// The slot's name, "handle.<locals>.batch" (the code's qualified name and
// the variable's); false when a is not a slot of the last snapshot.
bool pylocals_name(Addr a, HChar* out, SizeT n);

} // namespace mg
