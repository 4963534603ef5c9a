// SPDX-License-Identifier: GPL-2.0-or-later
// --addressability=yes: the core's memory events (mappings, the brk, the
// stack pointer, signal frames) keep the A-bits; the memory arguments of
// system calls are checked against them (errors of kind Param).
#pragma once

#include "mg_vg.hpp"

namespace mg {

// Registers the trackers (after the options: none when the map is off).
void memevents_init();
// The core's mapping events, which mg_main.cpp also uses for itself.
void memevents_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx);
// Marks the main stack below its initial SP (the first translation).
void memevents_initial_stack(Addr sp);
// SP moved: what it uncovers is addressable, what it leaves not.
void memevents_sp_changed(Addr old_sp, Addr new_sp);
void memevents_munmap(Addr a, SizeT len);
void memevents_remap(Addr from, Addr to, SizeT len);
void memevents_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx);

} // namespace mg
