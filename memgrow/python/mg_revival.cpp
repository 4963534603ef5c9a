// SPDX-License-Identifier: GPL-2.0-or-later
#include "python/mg_revival.hpp"
#include "checks/mg_access.hpp"
#include "mg_options.hpp"
#include "python/mg_client_memory.hpp"
#include "python/mg_python.hpp"
#include "records/mg_blocks.hpp"
#include "records/mg_timeline.hpp"

namespace mg {

namespace {

// The block allocated last (by the thread in last_tid): the object
// (re)initialised right after its malloc is a fresh one, at the block's
// start or past its GC header (3.12+: also past the pre-header of managed
// dicts). Generated code tests this itself and calls the helper only for
// the other stores, most of which are revivals. Where a revived object's
// reference count may lie (the start, past the GC header) a store of 1 is
// fresh once: the block may die, go onto a free list and be revived before
// the next malloc (CPython 3.14+'s ints: a rejected getrandbits result, an
// arithmetic temporary), and that store is a revival.
struct LastAlloc {
    Addr addr, end;
    ULong open_start, open_gc; // 1 until a store of 1 there was fresh
} last;
constexpr Addr kFreshReach = 32;
// Where a revived object's reference count may lie in its block: at the
// start, or past the GC header (lists, tuples, dicts). No object with a
// pre-header is kept on a free list.
constexpr Addr kGcHeader = 16;

struct Stats {
    ULong checks, revived, moved, numpy_moved;
} stats;

// ---- NumPy ------------------------------------------------------------------
// NumPy's caches of small data buffers and dimension arrays revive blocks
// without a store memgrow could key on; instead each new ndarray (a fresh
// object of type numpy.ndarray) is watched for the next few events of its
// thread until its dimensions and its own data are set, and a block it got
// that this thread did not malloc meanwhile came from a cache: it moves to
// the array object's site (the same Python line).
// PyArrayObject_fields, NumPy 1.x and 2.x.
constexpr Addr kArrayData = 16, kArrayNd = 24, kArrayDims = 32, kArrayFlags = 64;
constexpr SizeT kArrayBytes = 72; // up to the flags, in every NumPy
constexpr UInt kOwnData = 0x4;    // NPY_ARRAY_OWNDATA
constexpr UInt kWatchEvents = 16;
constexpr UInt kFreshMax = 4;
constexpr Addr kTpName = 24;

// Whether NumPy's core module is loaded: until then nothing is watched.
bool numpy_loaded, code_mapped;

struct Watch {
    Addr object; // a fresh object whose type is not yet known, or an array
    bool is_array, dims_done, data_done;
    UInt events;
    UInt n_fresh;
    Addr fresh[kFreshMax]; // blocks malloc'd by the thread since
};
Watch watch; // the interpreter's allocations come from one thread at a time
ThreadId watch_tid;

// Type objects seen, direct-mapped: whether each is numpy.ndarray.
struct TypeSlot {
    Addr type;
    bool ndarray;
};
TypeSlot type_slots[256];

bool is_ndarray_type(Addr type) {
    TypeSlot& slot = type_slots[(type >> 4) & 255];
    if (slot.type == type) return slot.ndarray;
    static const HChar kName[] = "numpy.ndarray";
    Addr name;
    bool match = read_client(type + kTpName, &name);
    for (UInt i = 0; match && i < sizeof kName; ++i) {
        HChar c;
        match = read_client(name + i, &c) && c == kName[i];
    }
    slot = {type, match};
    return match;
}

// Moves a block an array got from NumPy's cache to the array's site.
void adopt(Addr array, Addr p) {
    if (!p) return;
    for (UInt i = 0; i < watch.n_fresh; ++i)
        if (watch.fresh[i] == p) return; // malloc'd for it: charged right already
    Block* owner = block_find(Table::host, array);
    Block* b = block_find(Table::host, p);
    if (!owner || !b || b->site == owner->site) return;
    ++stats.numpy_moved;
    timeline_recharge(b->site, owner->site, b->size);
    b->site = owner->site;
    b->birth = clock_end();
}

// At each event of the watched thread: a fresh object's type is known by
// now; an array's fields are looked at until both are set.
void settle_watch(ThreadId tid) {
    if (!watch.object || tid != watch_tid) return;
    Addr a = watch.object;
    if (!watch.is_array) {
        // The block is live (freeing it ends the watch) and large enough.
        Addr type = *reinterpret_cast<const Addr*>(a + 8);
        if (!is_ndarray_type(type)) {
            watch.object = 0;
            return;
        }
        watch.is_array = true;
    }
    Addr dims, data;
    UInt flags;
    Int nd;
    if (!watch.dims_done && read_client(a + kArrayNd, &nd) && nd == 0) watch.dims_done = true;
    if (!watch.dims_done && read_client(a + kArrayDims, &dims) && dims) {
        adopt(a, dims);
        watch.dims_done = true;
    }
    if (!watch.data_done && read_client(a + kArrayFlags, &flags) && (flags & kOwnData) &&
        read_client(a + kArrayData, &data) && data) {
        adopt(a, data);
        watch.data_done = true;
    }
    if ((watch.dims_done && watch.data_done) || ++watch.events > kWatchEvents) watch.object = 0;
}

void watch_fresh(ThreadId tid, Addr a, SizeT size) {
    if (size < kArrayBytes) return;
    watch = {};
    watch.object = a;
    watch_tid = tid;
}

bool find_numpy() {
    code_mapped = false;
    for (const DebugInfo* di = VG_(next_DebugInfo)(nullptr); di; di = VG_(next_DebugInfo)(di)) {
        const HChar* name = VG_(DebugInfo_get_filename)(di);
        if (name && VG_(strstr)(name, "_multiarray_umath")) return true;
    }
    return false;
}

void recharge(ThreadId tid, Block* b) {
    ++stats.revived;
    Site* s = site_of_current_stack(tid, Space::host, 0, StackPurpose::revival);
    if (s == b->site) return;
    ++stats.moved;
    timeline_recharge(b->site, s, b->size);
    b->site = s;
    b->birth = clock_end();
}

// Stores of 1 found to be no object's initialisation (no block starts at
// the address or a GC header before it), direct-mapped by address: 3.13+
// store 1 into the same fields of the interpreter's frames at every call,
// and these would cost two failed block-table lookups each time. Exact:
// the entries of a block's start and of the address past its GC header are
// dropped when a block starts there.
constexpr UWord kMissSlots = 4096;
Addr not_an_object[kMissSlots];

UWord miss_slot(Addr a) {
    return (a >> 3 ^ a >> 15) & (kMissSlots - 1);
}

// Which of the two places a store's object may start is looked up first, by
// the store's instruction (hashed): each store initialises objects of one
// layout, so one block-table lookup mostly does. (At most one of the two is
// a block that holds the store: blocks do not overlap.)
UChar start_first[4096];

// Called after a store of the constant 1 in the interpreter that is not to
// the block allocated last, nor to an address known to start no object
// (unless a NumPy array is watched).
VG_REGPARM(2) void on_store_one(Addr a, Addr store_ip) {
    ++stats.checks;
    ThreadId tid = VG_(get_running_tid)();
    settle_watch(tid);
    Addr& known = not_an_object[miss_slot(a)];
    if (known == a) return;
    // A reference count and a type at least: a header-sized object, at the
    // block's start or past a GC header (lists, tuples, dicts).
    auto at = [a](Addr start, Addr min_size) -> Block* {
        Block* b = a >= start ? block_find(Table::host, a - start) : nullptr;
        return b && b->size >= min_size ? b : nullptr;
    };
    UChar& hint = start_first[(store_ip ^ store_ip >> 12) & 4095];
    Block* b = hint ? at(0, 16) : at(kGcHeader, kGcHeader + 16);
    if (!b) {
        b = hint ? at(kGcHeader, kGcHeader + 16) : at(0, 16);
        if (!b) {
            known = a;
            return;
        }
        hint = !hint;
    }
    // (A thread switch between a malloc and its object's initialisation
    // makes the object look revived: it is charged to the same thread's
    // stack.)
    recharge(tid, b);
}

IRExpr* load(IRSB* out, const void* at) {
    IRTemp t = newIRTemp(out->tyenv, Ity_I64);
    addStmtToIRSB(
        out, IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, Ity_I64,
                                         IRExpr_Const(IRConst_U64(reinterpret_cast<ULong>(at))))));
    return IRExpr_RdTmp(t);
}

IRExpr* op(IRSB* out, IRType ty, IROp o, IRExpr* a, IRExpr* b) {
    IRTemp t = newIRTemp(out->tyenv, ty);
    addStmtToIRSB(out, IRStmt_WrTmp(t, b ? IRExpr_Binop(o, a, b) : IRExpr_Unop(o, a)));
    return IRExpr_RdTmp(t);
}

IRExpr* u64(ULong v) {
    return IRExpr_Const(IRConst_U64(v));
}

// Whether the helper is wanted for a store of 1 to `addr`, as an I1: the
// store is not into the block allocated last,
//   !(addr - last.addr <= 32 && addr + 16 <= last.end),
// or it is at a place of a reference count there (the start, past the GC
// header) already initialised since the malloc (which it then closes),
// and it is not to an address known to start no object, unless a NumPy
// array is watched (the helper settles the watch at each store):
//   watch.object != 0 || not_an_object[miss_slot(addr)] != addr.
// Most stores of 1 in 3.13+ are to the interpreter's frames: tested here,
// they cost no helper call.
IRExpr* wanted(IRSB* out, IRExpr* addr) {
    IRExpr* start = load(out, &last.addr);
    IRExpr* end = load(out, &last.end);
    IRExpr* offset = op(out, Ity_I64, Iop_Sub64, addr, start);
    IRExpr* near = op(out, Ity_I1, Iop_CmpLE64U, offset, u64(kFreshReach));
    IRExpr* top = op(out, Ity_I64, Iop_Add64, addr, u64(16));
    IRExpr* inside = op(out, Ity_I1, Iop_CmpLE64U, top, end);
    IRExpr* in_block = op(out, Ity_I64, Iop_And64, op(out, Ity_I64, Iop_1Uto64, near, nullptr),
                          op(out, Ity_I64, Iop_1Uto64, inside, nullptr));
    // At the start or past the GC header, fresh only while still open;
    // a fresh store there closes it.
    IRExpr* at_start =
        op(out, Ity_I64, Iop_1Uto64, op(out, Ity_I1, Iop_CmpEQ64, offset, u64(0)), nullptr);
    IRExpr* at_gc =
        op(out, Ity_I64, Iop_1Uto64, op(out, Ity_I1, Iop_CmpEQ64, offset, u64(kGcHeader)), nullptr);
    IRExpr* open_start = load(out, &last.open_start);
    IRExpr* open_gc = load(out, &last.open_gc);
    IRExpr* at_open = op(out, Ity_I64, Iop_Or64, op(out, Ity_I64, Iop_And64, at_start, open_start),
                         op(out, Ity_I64, Iop_And64, at_gc, open_gc));
    IRExpr* elsewhere =
        op(out, Ity_I64, Iop_Xor64, op(out, Ity_I64, Iop_Or64, at_start, at_gc), u64(1));
    IRExpr* fresh =
        op(out, Ity_I64, Iop_And64, in_block, op(out, Ity_I64, Iop_Or64, at_open, elsewhere));
    IRExpr* closes = op(out, Ity_I64, Iop_Xor64, fresh, u64(1));
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, u64(reinterpret_cast<ULong>(&last.open_start)),
                                    op(out, Ity_I64, Iop_And64, open_start,
                                       op(out, Ity_I64, Iop_Or64, closes,
                                          op(out, Ity_I64, Iop_Xor64, at_start, u64(1))))));
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, u64(reinterpret_cast<ULong>(&last.open_gc)),
                                    op(out, Ity_I64, Iop_And64, open_gc,
                                       op(out, Ity_I64, Iop_Or64, closes,
                                          op(out, Ity_I64, Iop_Xor64, at_gc, u64(1))))));
    IRExpr* slot = op(out, Ity_I64, Iop_And64,
                      op(out, Ity_I64, Iop_Xor64,
                         op(out, Ity_I64, Iop_Shr64, addr, IRExpr_Const(IRConst_U8(3))),
                         op(out, Ity_I64, Iop_Shr64, addr, IRExpr_Const(IRConst_U8(15)))),
                      u64(kMissSlots - 1));
    IRExpr* entry = op(out, Ity_I64, Iop_Add64, u64(reinterpret_cast<ULong>(not_an_object)),
                       op(out, Ity_I64, Iop_Shl64, slot, IRExpr_Const(IRConst_U8(3))));
    IRTemp known = newIRTemp(out->tyenv, Ity_I64);
    addStmtToIRSB(out, IRStmt_WrTmp(known, IRExpr_Load(Iend_LE, Ity_I64, entry)));
    IRExpr* unknown = op(out, Ity_I1, Iop_CmpNE64, IRExpr_RdTmp(known), addr);
    IRExpr* watching = op(out, Ity_I1, Iop_CmpNE64, load(out, &watch.object), u64(0));
    IRExpr* maybe_object =
        op(out, Ity_I64, Iop_Or64, op(out, Ity_I64, Iop_1Uto64, unknown, nullptr),
           op(out, Ity_I64, Iop_1Uto64, watching, nullptr));
    IRExpr* want =
        op(out, Ity_I64, Iop_And64, maybe_object, op(out, Ity_I64, Iop_Xor64, fresh, u64(1)));
    return op(out, Ity_I1, Iop_CmpNE64, want, u64(0));
}

bool is_const_one(const IRExpr* e) {
    return e->tag == Iex_Const && e->Iex.Const.con->tag == Ico_U64 &&
           e->Iex.Const.con->Ico.U64 == 1;
}

} // namespace

IRSB* revival_instrument(IRSB* bb, const VexGuestLayout* layout, const VexGuestExtents* vge) {
    if (!clo.python_revival || !python_poll() || !python_in_interpreter(vge->base[0])) return bb;
    Int n = 0;
    for (Int i = 0; i < bb->stmts_used; ++i) {
        const IRStmt* st = bb->stmts[i];
        if (st->tag == Ist_Store && is_const_one(st->Ist.Store.data)) ++n;
    }
    if (n == 0) return bb;
    IRSB* out = deepCopyIRSBExceptStmts(bb);
    Addr ip = 0;
    for (Int i = 0; i < bb->stmts_used; ++i) {
        IRStmt* st = bb->stmts[i];
        addStmtToIRSB(out, st);
        if (st->tag == Ist_IMark) ip = st->Ist.IMark.addr;
        if (st->tag != Ist_Store || !is_const_one(st->Ist.Store.data)) continue;
        // After the store. The helper captures the stack, so the registers
        // the unwinder starts from must be up to date in the guest state (as
        // for memcheck's error helpers).
        IRDirty* d = unsafeIRDirty_0_N(
            2, "mg_revival_store", VG_(fnptr_to_fnentry)(reinterpret_cast<void*>(&on_store_one)),
            mkIRExprVec_2(st->Ist.Store.addr, IRExpr_Const(IRConst_U64(ip))));
        d->guard = wanted(out, st->Ist.Store.addr);
        access_annotate_unwind(d, layout);
        addStmtToIRSB(out, IRStmt_Dirty(d));
    }
    return out;
}

void revival_block_allocated(ThreadId tid, Addr a, SizeT size) {
    last = {a, a + size, 1, 1};
    if (!numpy_loaded) {
        if (!code_mapped || !clo.python_revival || !(numpy_loaded = find_numpy())) return;
    }
    if (watch.object && tid == watch_tid) {
        if (watch.n_fresh < kFreshMax) watch.fresh[watch.n_fresh++] = a;
        settle_watch(tid);
    }
    // An array whose dimensions are settled got its data by now, or gets it
    // from this malloc: each new block may be an ndarray, its type known at
    // the next event.
    if (watch.object && watch.is_array && watch.dims_done) watch.object = 0;
    if (!watch.object) watch_fresh(tid, a, size);
}

void revival_block_started(Addr a) {
    const Addr starts[2] = {a, a + kGcHeader};
    for (Addr x : starts) {
        Addr& known = not_an_object[miss_slot(x)];
        if (known == x) known = 0;
    }
}

void revival_code_mapped() {
    code_mapped = true;
}

void revival_block_freed(Addr a) {
    if (watch.object == a) watch.object = 0;
}

void revival_print_stats() {
    if (!stats.checks) return;
    VG_(umsg)
    ("memgrow: free-list revival: %'llu stores of 1 checked, %'llu revivals, %'llu moved to "
     "another site\n",
     stats.checks, stats.revived, stats.moved);
    if (stats.numpy_moved) VG_(umsg)
    ("memgrow: NumPy cache revivals: %'llu blocks moved to their array's site\n",
     stats.numpy_moved);
}

} // namespace mg
