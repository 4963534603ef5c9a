// SPDX-License-Identifier: GPL-2.0-or-later
#include "records/mg_blocks.hpp"
#include "mg_options.hpp"
#include "records/mg_stack_tree.hpp"

namespace mg {

const HChar* alloc_kind_name(AllocKind k) {
    switch (k) {
    case AllocKind::new_scalar:
        return "new";
    case AllocKind::new_array:
        return "new[]";
    case AllocKind::device:
        return "device";
    case AllocKind::custom:
        return "VALGRIND_MALLOCLIKE_BLOCK";
    case AllocKind::pool:
        return "VALGRIND_MEMPOOL_ALLOC";
    case AllocKind::mapped:
        return "mmap";
    default:
        return "malloc";
    }
}

namespace {

VgHashTable* tables[5];
PoolAlloc* block_pool; // fixed-size nodes: cheaper than VG_(malloc) per block

// The freed-block queue, as memcheck's: two FIFO lists, blocks of at least
// --freelist-big-blocks bytes in list 0 (released first), the others in
// list 1; together at most --freelist-vol bytes.
struct FreedNode {
    FreedNode* next;
    FreedBlock f;
};
PoolAlloc* freed_pool;
FreedNode* freed_head[2];
FreedNode* freed_tail[2];
ULong freed_bytes;
ULong freed_count;

void release_oldest(void (*release)(const FreedBlock&)) {
    UInt l = freed_head[0] ? 0 : 1;
    FreedNode* n = freed_head[l];
    freed_head[l] = n->next;
    if (!n->next) freed_tail[l] = nullptr;
    freed_bytes -= n->f.size;
    --freed_count;
    release(n->f);
    VG_(freeEltPA)(freed_pool, n);
}

} // namespace

void blocks_init() {
    tables[0] = VG_(HT_construct)("mg.blocks.host");
    tables[1] = VG_(HT_construct)("mg.blocks.device");
    tables[2] = VG_(HT_construct)("mg.blocks.vmm");
    tables[3] = VG_(HT_construct)("mg.blocks.pool");
    tables[4] = VG_(HT_construct)("mg.blocks.mapped");
    block_pool = VG_(newPA)(sizeof(Block), 1000, VG_(malloc), "mg.blocks.pool", VG_(free));
    freed_pool = VG_(newPA)(sizeof(FreedNode), 1000, VG_(malloc), "mg.blocks.freed", VG_(free));
}

namespace {
void keep_node(void*) {} // the nodes go with their pool
} // namespace

void blocks_release_all() {
    for (VgHashTable*& t : tables)
        VG_(HT_destruct)(t, keep_node);
    VG_(deletePA)(block_pool);
    VG_(deletePA)(freed_pool);
    freed_head[0] = freed_head[1] = freed_tail[0] = freed_tail[1] = nullptr;
    freed_bytes = freed_count = 0;
    free_stacks_release(); // the quarantine's
    blocks_init();         // empty, and as valid as before
}

Block* block_new(Table t, Addr addr, SizeT size, Site* site, AllocKind kind) {
    Block* b = static_cast<Block*>(VG_(allocEltPA)(block_pool));
    b->addr = addr;
    b->size = size;
    b->site = site;
    b->kind = kind;
    b->api = 0;
    b->released = 0;
    b->align_log2p1 = 0;
    b->by_teardown = 0;
    b->slab = 0;
    b->maps = 0;
    b->birth = 0;
    VG_(HT_add_node)(tables[static_cast<UInt>(t)], b);
    return b;
}

Block* block_find(Table t, Addr addr) {
    return static_cast<Block*>(VG_(HT_lookup)(tables[static_cast<UInt>(t)], addr));
}

Block* block_remove(Table t, Addr addr) {
    return static_cast<Block*>(VG_(HT_remove)(tables[static_cast<UInt>(t)], addr));
}

namespace {
ULong n_disposed;
} // namespace

void block_dispose(Block* b) {
    ++n_disposed;
    VG_(freeEltPA)(block_pool, b);
}

ULong blocks_disposed() {
    return n_disposed;
}

namespace {
// Comparisons of nodes with the same key (VG_(HT_gen_lookup)): 0 when equal.
Word same_node(const void* x, const void* y) {
    return x != y;
}
Word same_pool(const void* x, const void* y) {
    return static_cast<const Block*>(x)->pool != static_cast<const Block*>(y)->pool;
}
} // namespace

void block_unlink(Table t, Block* b) {
    VG_(HT_gen_remove)(tables[static_cast<UInt>(t)], b, same_node);
}

void block_move(Table t, Block* b, Addr to) {
    block_unlink(t, b);
    b->addr = to;
    VG_(HT_add_node)(tables[static_cast<UInt>(t)], b);
}

Block* block_find_chunk(Addr addr, UInt pool) {
    Block key;
    key.addr = addr;
    key.pool = pool;
    return static_cast<Block*>(
        VG_(HT_gen_lookup)(tables[static_cast<UInt>(Table::pool)], &key, same_pool));
}

Block* block_bracketing(Table t, Addr a, SizeT rz) {
    VgHashTable* h = tables[static_cast<UInt>(t)];
    Block* near = nullptr;
    VG_(HT_ResetIter)(h);
    while (auto* b = static_cast<Block*>(VG_(HT_Next)(h))) {
        if (a >= b->addr && a < b->addr + b->size) return b;
        if (a + rz >= b->addr && a < b->addr + b->size + rz) near = b;
    }
    return near;
}

UInt blocks_count(Table t) {
    return VG_(HT_count_nodes)(tables[static_cast<UInt>(t)]);
}

Block** blocks_snapshot(Table t, UInt* n) {
    return reinterpret_cast<Block**>(VG_(HT_to_array)(tables[static_cast<UInt>(t)], n));
}

void quarantine_push(const FreedBlock& f) {
    auto* n = static_cast<FreedNode*>(VG_(allocEltPA)(freed_pool));
    n->f = f;
    n->next = nullptr;
    UInt l = f.size >= clo.freelist_big_blocks ? 0 : 1;
    if (!freed_tail[l]) {
        freed_head[l] = freed_tail[l] = n;
    } else if (f.size >= clo.freelist_vol) {
        // Released at once anyway: at the head, so it goes first.
        n->next = freed_head[l];
        freed_head[l] = n;
    } else {
        freed_tail[l]->next = n;
        freed_tail[l] = n;
    }
    freed_bytes += f.size;
    ++freed_count;
}

// As memcheck, at the next allocation, not at the free: a block larger than
// the whole queue is still caught until then.
void quarantine_trim(void (*release)(const FreedBlock&)) {
    while (freed_bytes > clo.freelist_vol)
        release_oldest(release);
    // The node of the next block to leave: fetched an allocation ahead.
    if (const FreedNode* n = freed_head[freed_head[0] ? 0 : 1]) __builtin_prefetch(n->next);
}

void quarantine_for_each(void (*f)(FreedBlock&)) {
    for (UInt l = 0; l < 2; ++l)
        for (FreedNode* n = freed_head[l]; n; n = n->next)
            f(n->f);
}

const FreedBlock* quarantine_oldest() {
    const FreedNode* n = freed_head[freed_head[0] ? 0 : 1];
    return n ? &n->f : nullptr;
}

const FreedBlock* quarantine_find(Addr addr) {
    for (UInt l = 0; l < 2; ++l)
        for (FreedNode* n = freed_head[l]; n; n = n->next)
            if (n->f.addr == addr) return &n->f;
    return nullptr;
}

const FreedBlock* quarantine_find_bracketing(Addr a, SizeT rz) {
    // Lists run oldest first: the last match is the newest (memory of a
    // released block can be freed again in a later block).
    const FreedBlock* inside = nullptr;
    const FreedBlock* near = nullptr;
    for (UInt l = 0; l < 2; ++l)
        for (FreedNode* n = freed_head[l]; n; n = n->next) {
            const FreedBlock& f = n->f;
            if (a >= f.addr && a < f.addr + f.size)
                inside = &f;
            else if (a + rz >= f.addr && a < f.addr + f.size + rz)
                near = &f;
        }
    return inside ? inside : near;
}

ULong quarantine_bytes() {
    return freed_bytes;
}

} // namespace mg
