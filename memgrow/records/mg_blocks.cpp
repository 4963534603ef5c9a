#include "records/mg_blocks.hpp"
#include "mg_options.hpp"

namespace mg {

const HChar* alloc_kind_name(AllocKind k) {
    switch (k) {
    case AllocKind::new_scalar:
        return "new";
    case AllocKind::new_array:
        return "new[]";
    case AllocKind::device:
        return "device";
    default:
        return "malloc";
    }
}

namespace {

VgHashTable* tables[3];
PoolAlloc* block_pool; // fixed-size nodes: cheaper than VG_(malloc) per block

// A ring of freed blocks, bounded by count and by bytes.
constexpr UInt kQuarantineSlots = 4096;
FreedBlock* ring;
UInt ring_head, ring_len;
ULong ring_bytes;

} // namespace

void blocks_init() {
    tables[0] = VG_(HT_construct)("mg.blocks.host");
    tables[1] = VG_(HT_construct)("mg.blocks.device");
    tables[2] = VG_(HT_construct)("mg.blocks.vmm");
    block_pool = VG_(newPA)(sizeof(Block), 1000, VG_(malloc), "mg.blocks.pool", VG_(free));
    ring = static_cast<FreedBlock*>(
        VG_(calloc)("mg.quarantine", kQuarantineSlots, sizeof(FreedBlock)));
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

void block_dispose(Block* b) {
    VG_(freeEltPA)(block_pool, b);
}

Block** blocks_snapshot(Table t, UInt* n) {
    return reinterpret_cast<Block**>(VG_(HT_to_array)(tables[static_cast<UInt>(t)], n));
}

void quarantine_push(const FreedBlock& f, void (*release)(const FreedBlock&)) {
    if (f.size > clo.quarantine_bytes) {
        release(f);
        return;
    }
    while (ring_len == kQuarantineSlots || ring_bytes + f.size > clo.quarantine_bytes) {
        release(ring[ring_head]);
        ring_bytes -= ring[ring_head].size;
        ring_head = (ring_head + 1) % kQuarantineSlots;
        ring_len--;
    }
    ring[(ring_head + ring_len) % kQuarantineSlots] = f;
    ring_len++;
    ring_bytes += f.size;
}

const FreedBlock* quarantine_find(Addr addr) {
    for (UInt i = 0; i < ring_len; ++i) {
        const FreedBlock& f = ring[(ring_head + i) % kQuarantineSlots];
        if (f.addr == addr) return &f;
    }
    return nullptr;
}

} // namespace mg
