// SPDX-License-Identifier: GPL-2.0-or-later
#include "intercept/mg_custom.hpp"
#include "checks/mg_abits.hpp"
#include "checks/mg_access.hpp"
#include "checks/mg_errors.hpp"
#include "intercept/mg_heap.hpp"
#include "records/mg_timeline.hpp"
#include "valgrind.h"

namespace mg {

namespace {

// A mempool, keyed by the program's handle (MOVE_MEMPOOL changes it); its
// chunks live in Table::pool and carry its id.
struct Pool {
    Pool* next; // VgHashNode layout: next, key
    UWord handle;
    UInt id;
    UInt rz;
    bool auto_free; // freeing a chunk frees the MALLOCLIKE blocks inside it
    UInt n_chunks;
};

VgHashTable* pools;
UInt next_pool_id = 1;

Pool* find_pool(ThreadId tid, Addr handle) {
    auto* p = static_cast<Pool*>(VG_(HT_lookup)(pools, handle));
    if (!p) report_illegal_mempool(tid, handle);
    return p;
}

void make_redzones(Addr a, SizeT size, SizeT rz) {
    request_make(a - rz, rz, false);
    request_make(a + size, rz, false);
}

// The live blocks of table t for which keep(b) holds (a snapshot: the
// caller may free them).
template <class F> Block** blocks_where(Table t, UInt* n, F keep) {
    Block** all = blocks_snapshot(t, n);
    UInt kept = 0;
    for (UInt i = 0; i < *n; ++i)
        if (keep(all[i])) all[kept++] = all[i];
    *n = kept;
    return all;
}

Block** chunks_of(const Pool& p, UInt* n) {
    return blocks_where(Table::pool, n, [&](const Block* b) { return b->pool == p.id; });
}

void resize(Block* b, SizeT size) {
    timeline_resize(b->site, b->size, size);
    b->size = size;
}

void malloclike(ThreadId tid, Addr a, SizeT size, SizeT rz) {
    heap_record_block(tid, Table::host, a, size, AllocKind::custom);
    request_make(a, size, true);
    make_redzones(a, size, rz);
}

// Memcheck rejects an unknown block, a wrong old size and a new size of 0
// as an invalid free.
void resize_in_place(ThreadId tid, Addr a, SizeT old_size, SizeT new_size, SizeT rz) {
    Block* b = block_find(Table::host, a);
    if (!b || b->size != old_size || new_size == 0) {
        report_invalid_free(tid, a, FreeCall::custom);
        return;
    }
    if (new_size == old_size) return;
    resize(b, new_size);
    if (new_size < old_size) {
        request_make(a + new_size, old_size - new_size + rz, false);
    } else {
        request_make(a + old_size, new_size - old_size, true);
        request_make(a + new_size, rz, false);
    }
}

void create_pool(Addr handle, UInt rz, UWord flags) {
    if (VG_(HT_lookup)(pools, handle)) {
        // Memcheck aborts the run here.
        VG_(umsg)("memgrow: VALGRIND_CREATE_MEMPOOL: pool %#lx already exists; ignored\n", handle);
        return;
    }
    bool auto_free = flags & VALGRIND_MEMPOOL_AUTO_FREE;
    if (auto_free && !(flags & VALGRIND_MEMPOOL_METAPOOL)) {
        VG_(umsg)
        ("memgrow: VALGRIND_CREATE_MEMPOOL_EXT: pool %#lx: an auto free pool must be a "
         "meta pool; not auto free\n",
         handle);
        auto_free = false;
    }
    auto* p = static_cast<Pool*>(VG_(malloc)("mg.custom.pool", sizeof(Pool)));
    *p = Pool{nullptr, handle, next_pool_id++, rz, auto_free, 0};
    VG_(HT_add_node)(pools, p);
}

// Memcheck forgets the chunks of a destroyed pool: no quarantine.
void destroy_pool(ThreadId tid, Addr handle) {
    auto* p = static_cast<Pool*>(VG_(HT_remove)(pools, handle));
    if (!p) {
        report_illegal_mempool(tid, handle);
        return;
    }
    UInt n = 0;
    Block** chunks = p->n_chunks ? chunks_of(*p, &n) : nullptr;
    for (UInt i = 0; i < n; ++i) {
        Block* b = chunks[i];
        block_unlink(Table::pool, b);
        timeline_free(b->site, b->size);
        request_make(b->addr - p->rz, b->size + 2 * p->rz, false);
        block_dispose(b);
    }
    if (chunks) VG_(free)(chunks);
    VG_(free)(p);
}

void pool_alloc(ThreadId tid, Addr handle, Addr a, SizeT size) {
    Pool* p = find_pool(tid, handle);
    if (!p) return;
    Block* b = heap_record_block(tid, Table::pool, a, size, AllocKind::pool);
    b->pool = p->id;
    p->n_chunks++;
    request_make(a, size, true);
    make_redzones(a, size, p->rz);
}

// The MALLOCLIKE blocks inside [lo, hi) of an auto-free pool's chunk.
void free_mallocs_inside(ThreadId tid, Addr lo, Addr hi, UInt rz) {
    UInt n = 0;
    Block** inside = blocks_where(Table::host, &n, [&](const Block* b) {
        return b->kind == AllocKind::custom && b->addr >= lo && b->addr + b->size <= hi;
    });
    for (UInt i = 0; i < n; ++i)
        heap_drop_block(tid, Table::host, inside[i]->addr, FreeCall::custom, rz);
    if (inside) VG_(free)(inside);
}

void free_chunk(ThreadId tid, Pool* p, Block* b) {
    if (p->auto_free) free_mallocs_inside(tid, b->addr, b->addr + b->size, p->rz);
    p->n_chunks--;
    heap_free_block(tid, Table::pool, b, FreeCall::custom, p->rz);
}

// The chunk of pool p at a, else an invalid free.
Block* chunk_at(ThreadId tid, const Pool& p, Addr a) {
    if (Block* b = block_find_chunk(a, p.id)) return b;
    report_invalid_free(tid, a, FreeCall::custom);
    return nullptr;
}

void pool_free(ThreadId tid, Addr handle, Addr a) {
    Pool* p = find_pool(tid, handle);
    if (!p) return;
    if (Block* b = chunk_at(tid, *p, a)) free_chunk(tid, p, b);
}

// Chunks outside [a, a+size) are freed, those across its ends cut to it.
void pool_trim(ThreadId tid, Addr handle, Addr a, SizeT size) {
    Pool* p = find_pool(tid, handle);
    if (!p || !p->n_chunks) return;
    UInt n = 0;
    Block** chunks = chunks_of(*p, &n);
    Addr end = a + size;
    for (UInt i = 0; i < n; ++i) {
        Block* b = chunks[i];
        Addr lo = b->addr, hi = b->addr + b->size;
        if (lo >= a && hi <= end) continue;
        if (hi <= a || lo >= end || b->size == 0) {
            free_chunk(tid, p, b);
            continue;
        }
        Addr new_lo = lo < a ? a : lo, new_hi = hi > end ? end : hi;
        request_make(lo, new_lo - lo, false);
        request_make(new_hi, hi - new_hi, false);
        resize(b, new_hi - new_lo);
        if (new_lo != lo) block_move(Table::pool, b, new_lo);
    }
    VG_(free)(chunks);
}

void move_pool(ThreadId tid, Addr from, Addr to) {
    auto* p = static_cast<Pool*>(VG_(HT_remove)(pools, from));
    if (!p) {
        report_illegal_mempool(tid, from);
        return;
    }
    p->handle = to;
    VG_(HT_add_node)(pools, p);
}

// The chunk at `from` now lies at `to` with `size` bytes (A-bits untouched,
// as memcheck).
void pool_change(ThreadId tid, Addr handle, Addr from, Addr to, SizeT size) {
    Pool* p = find_pool(tid, handle);
    if (!p) return;
    Block* b = chunk_at(tid, *p, from);
    if (!b) return;
    resize(b, size);
    block_move(Table::pool, b, to);
}

} // namespace

void custom_init() {
    pools = VG_(HT_construct)("mg.custom.pools");
}

bool custom_client_request(ThreadId tid, UWord* args, UWord* ret) {
    *ret = 0;
    switch (args[0]) {
    case VG_USERREQ__MALLOCLIKE_BLOCK:
        malloclike(tid, args[1], args[2], args[3]);
        return true;
    case VG_USERREQ__RESIZEINPLACE_BLOCK:
        resize_in_place(tid, args[1], args[2], args[3], args[4]);
        return true;
    case VG_USERREQ__FREELIKE_BLOCK:
        heap_drop_block(tid, Table::host, args[1], FreeCall::custom, args[2]);
        return true;
    case VG_USERREQ__CREATE_MEMPOOL:
        create_pool(args[1], static_cast<UInt>(args[2]), args[4]);
        return true;
    case VG_USERREQ__DESTROY_MEMPOOL:
        destroy_pool(tid, args[1]);
        return true;
    case VG_USERREQ__MEMPOOL_ALLOC:
        pool_alloc(tid, args[1], args[2], args[3]);
        return true;
    case VG_USERREQ__MEMPOOL_FREE:
        pool_free(tid, args[1], args[2]);
        return true;
    case VG_USERREQ__MEMPOOL_TRIM:
        pool_trim(tid, args[1], args[2], args[3]);
        return true;
    case VG_USERREQ__MOVE_MEMPOOL:
        move_pool(tid, args[1], args[2]);
        return true;
    case VG_USERREQ__MEMPOOL_CHANGE:
        pool_change(tid, args[1], args[2], args[3], args[4]);
        return true;
    case VG_USERREQ__MEMPOOL_EXISTS:
        *ret = VG_(HT_lookup)(pools, args[1]) ? 1 : 0;
        return true;
    default:
        return false;
    }
}

} // namespace mg
