// SPDX-License-Identifier: GPL-2.0-or-later
// The "mapped" space: anonymous memory the client maps itself (mmap,
// mremap, brk), one block per mapping in Table::mapped, charged to the
// stack that made it (docs/pages.md). The loader's mappings and Valgrind's
// own are no client sites.
#pragma once

#include "records/mg_blocks.hpp"

namespace mg {

void mapped_init();
// After each system call of the client (the core's post-syscall hook).
void mapped_post_syscall(ThreadId tid, UInt sysno, const UWord* args, SysRes res);
// Forgets every mapping (the blocks went with blocks_release_all).
void mapped_release_all();
// The tracked mapping that holds a, else the first one above it; null if
// none.
const Block* mapped_at_or_after(Addr a);
// Whether a lies in anonymous memory the dynamic loader mapped for itself
// (its allocations before the C library's malloc), not a library's .bss.
bool mapped_by_loader(Addr a);

} // namespace mg
