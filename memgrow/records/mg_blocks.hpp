// SPDX-License-Identifier: GPL-2.0-or-later
// The block table: every live block, by address, with its size, site and
// birth time; and the quarantine of recently freed host blocks, which lets a
// double free be told from a free of a pointer never allocated.
#pragma once

#include "records/mg_sites.hpp"

namespace mg {

// How a block was allocated, to check that it is freed the matching way.
// custom: VALGRIND_MALLOCLIKE_BLOCK; pool: VALGRIND_MEMPOOL_ALLOC (mg_custom.cpp).
enum class AllocKind : UChar { malloc, new_scalar, new_array, device, custom, pool, mapped };

const HChar* alloc_kind_name(AllocKind k);

// A custom allocator's block: its memory is the program's.
inline bool custom_kind(AllocKind k) {
    return k == AllocKind::custom || k == AllocKind::pool;
}

struct Block {
    Block* next; // VgHashNode layout: next, key
    UWord addr;
    SizeT size;
    Site* site;
    ULong birth; // run clock at allocation
    AllocKind kind;
    UChar api; // device blocks: MemgrowDeviceApi of the allocating call
    // Virtual-memory blocks (keyed by handle): released by the program, but
    // alive while `maps` mappings use them.
    UChar released;
    // Host blocks: the alignment the program asked for (memalign, aligned
    // new) as log2 + 1, 0 for none; sized and aligned deallocations are
    // checked against it (mg_heap.cpp).
    UChar align_log2p1;
    // Host blocks: reachable when teardown began, or born after (mg_leak).
    UChar by_teardown;
    // Host blocks: carved from a slab (mg_client_slabs), not the core's arena.
    UChar slab;
    union {
        UInt maps; // virtual-memory blocks: the mappings that use them
        UInt pool; // mempool chunks: their pool's id (mg_custom.cpp)
    };
};

// The alignment the program asked for, 0 for none.
inline SizeT block_align(const Block& b) {
    return b.align_log2p1 ? SizeT(1) << (b.align_log2p1 - 1) : 0;
}

struct FreedBlock {
    Addr addr;
    SizeT size;
    Site* site;
    // Where it was freed: a node of the stack tree (records/mg_stack_tree.hpp),
    // made an ExeContext only for an error's message. ExeContexts are never
    // freed, and `import torch` frees from half a million distinct stacks.
    UInt freed_at;
    AllocKind kind;
    UChar slab; // Block::slab
};

// A recently freed device-side block (virtual-memory ones by handle); an
// empty quarantine slot has no site.
struct DeviceFreed {
    Addr addr;
    SizeT size;
    Site* site;
    ExeContext* freed_at;
    bool vmm;
};

// Host heap blocks and device-side blocks live in separate tables: a device
// address is never a host heap address. Virtual-memory physical allocations
// (cuMemCreate) are keyed by their handle, which is no address at all.
// Mempool chunks have their own table, as in memcheck: a pool's first chunk
// often starts where the malloc()ed block holding the pool does. The
// client's own mappings have theirs (pages/mg_mapped.hpp).
enum class Table : UChar { host, device, vmm, pool, mapped };

void blocks_init();
// Forgets every block and the quarantine at once: the tables are left empty.
// For the process's last report, which needs the sites, not the blocks.
void blocks_release_all();
Block* block_new(Table t, Addr addr, SizeT size, Site* site, AllocKind kind);
Block* block_find(Table t, Addr addr);
// Removes the block from its table; the caller releases it with block_dispose.
Block* block_remove(Table t, Addr addr);
void block_dispose(Block* b);
// Blocks disposed of so far (memcheck's count of frees: a block list of the
// last leak scan is obsolete once it moves).
ULong blocks_disposed();
// Removes b itself from its table, though others may share its start (the
// chunks of two mempools); the caller releases it with block_dispose.
void block_unlink(Table t, Block* b);
// Gives a block of table t a new start (a mempool chunk moved or trimmed).
void block_move(Table t, Block* b, Addr to);
// The chunk of the mempool with this id at addr, if any.
Block* block_find_chunk(Addr addr, UInt pool);
// A live block whose payload or redzones of rz bytes hold a (a linear
// search: for error descriptions only); null if none.
Block* block_bracketing(Table t, Addr a, SizeT rz);
UInt blocks_count(Table t);
// Every live block of a table, in no order (VG_(malloc)ed; null when none).
Block** blocks_snapshot(Table t, UInt* n);

// Holds a freed host block back from reuse (--freelist-vol bytes, the
// blocks of --freelist-big-blocks bytes or more released first, as memcheck).
void quarantine_push(const FreedBlock& f);
// Releases the oldest blocks, the big ones first, until the quarantine holds
// at most --freelist-vol bytes; called before each allocation (memcheck's
// moment), `release` for each block that leaves.
void quarantine_trim(void (*release)(const FreedBlock&));
// The block that leaves next, if any.
const FreedBlock* quarantine_oldest();
// The quarantined block at addr, if any (a double free).
const FreedBlock* quarantine_find(Addr addr);
// The quarantined block whose payload holds a, else one whose payload or
// redzones of rz bytes do (an address error's description); null if none.
const FreedBlock* quarantine_find_bracketing(Addr a, SizeT rz);
// Bytes held in the quarantine.
ULong quarantine_bytes();
// Each quarantined block, to update (its free stack's node).
void quarantine_for_each(void (*f)(FreedBlock&));

} // namespace mg
