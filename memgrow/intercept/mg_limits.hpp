// SPDX-License-Identifier: GPL-2.0-or-later
// A program's own address-space limit (setrlimit/prlimit64 RLIMIT_AS),
// kept for the program: Valgrind's memory is not the program's to count.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// Around the system calls that set or read RLIMIT_AS.
void limits_pre_syscall(UInt sysno, UWord* args);
void limits_post_syscall(UInt sysno, UWord* args, SysRes res);
extern bool limits_set;         // the program set a limit
extern ULong limits_heap_bytes; // its live heap blocks, which count against it

// Whether a heap block of `size` bytes more takes the program past its
// limit (the allocation then returns NULL, said once with the stack).
bool limits_refuse(ThreadId tid, const HChar* call, SizeT size);
inline bool limits_allow(ThreadId tid, const HChar* call, SizeT size) {
    return !limits_set || !limits_refuse(tid, call, size);
}
inline void limits_heap_changed(Long bytes) {
    limits_heap_bytes += static_cast<ULong>(bytes);
}

} // namespace mg
