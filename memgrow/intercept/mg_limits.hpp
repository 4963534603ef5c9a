// A program's own address-space limit (setrlimit/prlimit64 RLIMIT_AS),
// kept for the program: Valgrind's memory is not the program's to count.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// Around the system calls that set or read RLIMIT_AS.
void limits_pre_syscall(UInt sysno, UWord* args);
void limits_post_syscall(UInt sysno, UWord* args, SysRes res);
// Whether a heap block of `size` bytes more fits the program's limit
// (false: the allocation returns NULL, said once with the stack).
bool limits_allow(ThreadId tid, const HChar* call, SizeT size);
// The program's live heap bytes, which count against its limit.
void limits_heap_changed(Long bytes);

} // namespace mg
