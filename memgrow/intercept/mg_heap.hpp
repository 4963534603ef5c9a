// SPDX-License-Identifier: GPL-2.0-or-later
// The malloc-family replacement (intercept stage for the host heap).
#pragma once

#include "checks/mg_errors.hpp"
#include "records/mg_blocks.hpp"

namespace mg {
// Registers the replacement functions with the core (pre_clo_init).
void heap_init();
// Gives the client arena its redzones when accesses are checked (post_clo_init).
void heap_post_options();
// Memcheck's checks of an aligned allocation or a sized or aligned
// deallocation, which the preload asks for from Valgrind 3.22 (the
// VERIFY_ALIGNMENT request; arg: its client-memory argument).
void heap_verify_alignment(ThreadId tid, UWord arg);

// A new block of table t at the current stack's site: recorded in the table
// and its site's timeline (its memory is the caller's business).
Block* heap_record_block(ThreadId tid, Table t, Addr a, SizeT size, AllocKind kind);
// Frees the block at a of table t; false (and an error) if there is none.
// Its memory and rz bytes of redzone each side become not addressable, and
// it goes to the quarantine.
bool heap_drop_block(ThreadId tid, Table t, Addr a, FreeCall call, SizeT rz);
// The same for a block found by the caller.
void heap_free_block(ThreadId tid, Table t, Block* b, FreeCall call, SizeT rz);
// -v: the free stacks' tree and its compactions.
void heap_print_stats();
} // namespace mg
