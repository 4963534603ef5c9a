// SPDX-License-Identifier: GPL-2.0-or-later
// Memcheck's client requests about addressability (memcheck.h), answered
// as memcheck answers them, so that programs annotated for memcheck work
// under memgrow: MAKE_MEM_NOACCESS/UNDEFINED/DEFINED(_IF_ADDRESSABLE),
// CHECK_MEM_IS_ADDRESSABLE/DEFINED (without --addressability they change
// nothing and every check passes); CREATE_BLOCK and DISCARD (names for
// ranges, in error descriptions); DO_LEAK_CHECK and its variants,
// COUNT_LEAKS, COUNT_LEAK_BLOCKS.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// True when args[0] is one of those requests (answered in *ret).
bool mc_client_request(ThreadId tid, UWord* args, UWord* ret);

// An address inside a block named by VALGRIND_CREATE_BLOCK, described as
// memcheck describes it (its name, size and creation stack); false if none.
bool client_block_describe(Addr a, AddrInfo* ai);

} // namespace mg
