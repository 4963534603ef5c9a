// SPDX-License-Identifier: GPL-2.0-or-later
// SystemTap SDT ("USDT") probes of the objects the client maps (docs/cuda.md,
// "Probes"): each mapped ELF object's `.note.stapsdt` is read from its file,
// the probes memgrow has a use for are instrumented at their addresses and
// their semaphores set in the client's memory; at each hit the probe's
// arguments, read as its note says, go to the probe's handler.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// A probe's argument values, sign- or zero-extended as its note says.
using SdtHandler = void (*)(ThreadId tid, const ULong* args);

// Client mappings come and go (Valgrind's mmap tracking).
void sdt_mapped(Addr a, SizeT len, Bool ww);
void sdt_unmapped(Addr a, SizeT len);
// Adds the calls at the probe addresses of this superblock, if any.
IRSB* sdt_instrument(IRSB* bb, const VexGuestLayout* layout);
// Whether ip is the code of an object whose device allocator announces its
// blocks through probes memgrow reads (its device allocations are the
// allocator's reserve, intercept/mg_reserve.hpp).
bool sdt_allocator_code(Addr ip);
void sdt_print_stats();

} // namespace mg
