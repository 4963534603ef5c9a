// SPDX-License-Identifier: GPL-2.0-or-later
// Copy-on-write in a forked child (docs/pages.md). At the fork, in the
// child, every resident private writable client page is shared with the
// parent; the first write to one (a store of the client, a system call
// writing into it, memgrow's allocator writing it) copies it. Each copied
// page is charged to what it held at the fork (core/cow.hpp) and to the
// stack of that first write. A process that never forked instruments
// nothing: the stores are checked only in a child, from its fork on.
#pragma once

#include "mg_vg.hpp"
#include "core/cow.hpp"

namespace mg {

// True in a forked child whose pages are followed (set at the fork).
extern bool cow_on;

// At the fork, in the child (VG_(atfork)'s child callback).
void cow_at_fork(ThreadId tid);
// Adds the inline page check before each store of a superblock (cow_on only).
IRSB* cow_instrument(IRSB* in, const VexGuestLayout* layout);
// Whether a helper call is cow_instrument's page check (it reads no A-bits).
bool cow_helper(const IRDirty* d);
// A mapping made or removed over inherited pages: they are shared no more.
void cow_unmapped(Addr a, SizeT len);
// mremap moved len bytes at `from` to `to` (VG_(track_copy_mem_remap)).
void cow_remapped(Addr from, Addr to, SizeT len);

// What the child copied, for the reports.
struct CowWriter {
    UInt stack; // a node of the stack tree, kEmptyStack for none
    DiEpoch ep;
    ULong bytes;
};
struct CowSiteBytes {
    UInt site;
    ULong bytes;
};
struct CowSummary {
    Int parent_pid;
    ULong inherited_bytes, copied_bytes;
    // Largest first; sites with copied bytes, then the regions of pages
    // that held no live block (bytes by cow::Region).
    const CowSiteBytes* sites;
    UInt n_sites;
    ULong region_bytes[cow::kRegions];
    const CowWriter* writers; // largest first
    UInt n_writers;
};
// Null in a process that did not fork (or could not follow its pages).
// Sorted at the call; valid until the next.
const CowSummary* cow_summary();
// Whether the report must list a site (it holds copied bytes).
bool cow_site_copied(UInt site);

// A write of client memory [a, a+n) outside the client's own stores: a
// system call's, or memgrow's (calloc's zeroing, realloc's copy, the
// arena's block headers) made for the running thread.
void cow_write_slow(ThreadId tid, Addr a, SizeT n);
inline void cow_tool_write(Addr a, SizeT n) {
    if (cow_on && n) cow_write_slow(VG_(get_running_tid)(), a, n);
}

} // namespace mg
