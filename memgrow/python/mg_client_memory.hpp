// SPDX-License-Identifier: GPL-2.0-or-later
// Reading the client's memory from the tool without trusting it: the Python
// frame reader follows pointers found in client memory, and a garbage pointer
// must never crash the tool.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// Whether [a, a + n) lies in client memory the client may read, by the
// address space manager. The last few segments are cached until the address
// space changes (client_memory_changed), so a check costs a few compares.
bool client_readable(Addr a, SizeT n);

// Called when client mappings are removed or lose permissions.
void client_memory_changed();

// Reads a T at a, checked first; false when a is not readable.
template <class T> inline bool read_client(Addr a, T* out) {
    if (!client_readable(a, sizeof(T))) return false;
    *out = *reinterpret_cast<const volatile T*>(a);
    return true;
}

// A fault catcher runs in a signal handler: unmask the signal before jumping
// out of it, or the next fault kills the process.
void unmask_signal(Int sig);

} // namespace mg
