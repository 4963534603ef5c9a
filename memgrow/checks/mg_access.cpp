// SPDX-License-Identifier: GPL-2.0-or-later
#include "checks/mg_access.hpp"
#include "checks/mg_abits.hpp"
#include "checks/mg_errors.hpp"
#include "checks/mg_sp_offsets.hpp"
#include "checks/mg_memevents.hpp"
#include "intercept/mg_heap_guard.hpp"
#include "mg_options.hpp"
#include "pages/mg_cow.hpp"
#include "records/mg_symbols.hpp"

namespace mg {

namespace {

constexpr UWord kWrite = 1u << 16;
// A read-modify-write instruction (`incq (%rax)`): one check for its load
// and its store, both reported when it fails, as memcheck reports them.
constexpr UWord kReadWrite = 1u << 17;

// Whether an access of n bytes at a is an error (memcheck's partial loads:
// a naturally aligned load of a word or a vector with at least one
// addressable byte is none; vectorised string code reads so).
bool access_bad(Addr a, SizeT n, bool write) {
    Addr bad;
    if (!abits_first_bad(a, n, &bad)) return false;
    if (!write && clo.partial_loads_ok && (n == 8 || n == 16 || n == 32) && (a & (n - 1)) == 0) {
        for (SizeT i = 0; i < n; ++i) {
            Addr b;
            if (!abits_first_bad(a + i, 1, &b)) return false;
        }
    }
    return true;
}

// The dynamic linker's own string functions (strlen, strcmp, memcpy, ... on
// the paths and names it keeps in heap blocks) read a word or a vector at a
// time, aligned or not: they start at the string's address rounded down to
// up to 64 bytes and test up to four vectors per iteration, so they read
// before a string's start and up to a loop's worth past its end. With its
// symbols the preload replaces them (mg_strmem.c); a stripped ld.so
// (Debian's, Ubuntu's) has none to redirect. So a load of 8, 16 or 32 bytes
// from the loader's code is no error when an addressable byte lies within
// four loads' size of it: the word-at-a-time pattern, as --partial-loads-ok
// treats aligned words. Writes, reads further from any addressable byte
// (inside a freed block, in unmapped memory) and other code's accesses stay
// errors; the program's own strlen is libc's, replaced byte by byte.
bool loader_word_read(Addr a, SizeT n) {
    if (!clo.partial_loads_ok || (n != 8 && n != 16 && n != 32)) return false;
    Addr bad;
    for (Addr b = a >= 4 * n ? a - 4 * n : 0; b < a + 5 * n; ++b)
        if (!abits_first_bad(b, 1, &bad)) return in_loader(VG_(get_IP)(VG_(get_running_tid)()));
    return false;
}

// The slow path: the exact check, the error.
void access_slow(Addr a, UWord how) {
    SizeT n = how & 0xffff;
    bool write = how & kWrite;
    if (how & kReadWrite) {
        if (access_bad(a, n, false)) report_access_error(VG_(get_running_tid)(), a, n, false);
        write = true;
    }
    if (!access_bad(a, n, write) || (!write && loader_word_read(a, n))) return;
    report_access_error(VG_(get_running_tid)(), a, n, write);
    if (write) heap_guard_write(a, n); // after the description, before the write
}

IRExpr* c64(ULong v) {
    return IRExpr_Const(IRConst_U64(v));
}

IRExpr* tmp(IRSB* sb, IRType ty, IRExpr* e) {
    IRTemp t = newIRTemp(sb->tyenv, ty);
    addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
    return IRExpr_RdTmp(t);
}

bool inline_size(UInt n) {
    return n == 1 || n == 2 || n == 4 || n == 8 || n == 16 || n == 32;
}

IRExpr* binop(IRSB* sb, IRType ty, IROp op, IRExpr* a, IRExpr* b) {
    return tmp(sb, ty, IRExpr_Binop(op, a, b));
}
IRExpr* u8(UInt v) {
    return IRExpr_Const(IRConst_U8(static_cast<UChar>(v)));
}

// The bitmap of a's chunk: the not-addressable secondary plus
// primary[(a >> 16) & mask] (an offset from it).
IRExpr* chunk_bitmap(IRSB* sb, IRExpr* a) {
    IRExpr* idx = binop(sb, Ity_I64, Iop_Shr64, a, u8(kAbitsChunkBits));
    idx = binop(sb, Ity_I64, Iop_And64, idx, c64((1ull << kAbitsPrimaryBits) - 1));
    IRExpr* slot = binop(sb, Ity_I64, Iop_Add64, c64(reinterpret_cast<ULong>(abits_primary())),
                         binop(sb, Ity_I64, Iop_Shl64, idx, u8(3)));
    IRExpr* offset = tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, slot));
    return binop(sb, Ity_I64, Iop_Add64, offset,
                 c64(reinterpret_cast<ULong>(abits_distinguished(false))));
}

// bits = the bitmap bits of [addr, addr+n), from the chunk's secondary;
// the access takes the slow path when any is set or addr is above the
// primary's range. A chunk-crossing access reads the secondary's slack
// (all set).
IRExpr* bad_condition(IRSB* sb, IRExpr* addr, UInt n) {
    IRExpr* sec = chunk_bitmap(sb, addr);
    IRExpr* low = tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, addr, c64(kAbitsChunk - 1)));
    IRExpr* byte = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shr64, low, IRExpr_Const(IRConst_U8(3))));
    IRExpr* where = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, sec, byte));
    // Bits 0..7 of the first byte are offsets addr&7 ..: n + 7 bits at most.
    IRExpr* bits;
    if (n <= 8) {
        IRExpr* b16 = tmp(sb, Ity_I16, IRExpr_Load(Iend_LE, Ity_I16, where));
        bits = tmp(sb, Ity_I64, IRExpr_Unop(Iop_16Uto64, b16));
    } else if (n == 16) {
        IRExpr* b32 = tmp(sb, Ity_I32, IRExpr_Load(Iend_LE, Ity_I32, where));
        bits = tmp(sb, Ity_I64, IRExpr_Unop(Iop_32Uto64, b32));
    } else {
        bits = tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, where));
    }
    IRExpr* sh64 = tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, addr, c64(7)));
    IRExpr* sh = tmp(sb, Ity_I8, IRExpr_Unop(Iop_64to8, sh64));
    IRExpr* mask = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shl64, c64((1ull << n) - 1), sh));
    IRExpr* hit = tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, bits, mask));
    IRExpr* hi = tmp(sb, Ity_I64,
                     IRExpr_Binop(Iop_Shr64, addr,
                                  IRExpr_Const(IRConst_U8(kAbitsPrimaryBits + kAbitsChunkBits))));
    IRExpr* any = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Or64, hit, hi));
    return tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, any, c64(0)));
}

void add_check(IRSB* sb, const VexGuestLayout* layout, IRExpr* addr, UInt n, UWord how,
               IRExpr* guard) {
    if (n == 0) return;
    if (n > 0xffff) n = 0xffff;
    IRExpr* cond = guard;
    if (inline_size(n)) {
        IRExpr* bad = bad_condition(sb, addr, n);
        cond = guard ? tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, bad, guard)) : bad;
    }
    IRDirty* d = unsafeIRDirty_0_N(0, "mg_access_slow",
                                   VG_(fnptr_to_fnentry)(reinterpret_cast<void*>(&access_slow)),
                                   mkIRExprVec_2(addr, c64(n | how)));
    if (cond) d->guard = cond;
    access_annotate_unwind(d, layout);
    addStmtToIRSB(sb, IRStmt_Dirty(d));
}

UInt size_of(IRSB* sb, IRExpr* e) {
    return static_cast<UInt>(sizeofIRType(typeOfIRExpr(sb->tyenv, e)));
}

UInt loadg_size(IRLoadGOp op) {
    switch (op) {
    case ILGop_IdentV128:
        return 16;
    case ILGop_Ident64:
        return 8;
    case ILGop_Ident32:
        return 4;
    case ILGop_16Uto32:
    case ILGop_16Sto32:
        return 2;
    default:
        return 1;
    }
}

// An address as an atom of type I64 (flat IR's addresses already are).
IRExpr* atom(IRSB* sb, IRExpr* a) {
    return isIRAtom(a) ? a : tmp(sb, Ity_I64, a);
}

// A write of SP. A move of up to 64 bytes in steps of 8 (calls, returns,
// pushes, pops, most frames) with SP 8-aligned changes the low bits of one
// 64-bit bitmap word: updated inline when the chunk has a bitmap of its own
// and the bits stay inside it (else the word is a scratch one); any other
// move calls the helper with the old and new values.
alignas(8) ULong sp_scratch;

void add_sp_change(IRSB* sb, IRExpr* old_sp, IRExpr* new_sp) {
    constexpr ULong kRedZone = VG_STACK_REDZONE_SZB;
    IRExpr* d = binop(sb, Ity_I64, Iop_Sub64, old_sp, new_sp);
    IRExpr* pop = binop(sb, Ity_I1, Iop_CmpLT64S, d, c64(0)); // SP went up
    IRExpr* neg = binop(sb, Ity_I64, Iop_Sub64, c64(0), d);
    IRExpr* ad = tmp(sb, Ity_I64, IRExpr_ITE(pop, neg, d));
    // The bytes that change: [low - rz, low - rz + ad), low the lower SP.
    IRExpr* low_sp = tmp(sb, Ity_I64, IRExpr_ITE(pop, old_sp, new_sp));
    IRExpr* x = binop(sb, Ity_I64, Iop_Sub64, low_sp, c64(kRedZone));
    // Slow unless: ad in 8..64 in steps of 8, x 8-aligned and in the
    // primary's range, the bits inside x's chunk.
    IRExpr* ad_m1 = binop(sb, Ity_I64, Iop_Sub64, ad, c64(1));
    IRExpr* big = binop(sb, Ity_I64, Iop_Shr64, ad_m1, u8(6)); // ad - 1 >= 64 (or ad == 0)
    IRExpr* mis = binop(sb, Ity_I64, Iop_And64, binop(sb, Ity_I64, Iop_Or64, ad, x), c64(7));
    IRExpr* hi = binop(sb, Ity_I64, Iop_Shr64, x, u8(kAbitsPrimaryBits + kAbitsChunkBits));
    IRExpr* low = binop(sb, Ity_I64, Iop_And64, x, c64(kAbitsChunk - 1));
    IRExpr* over = binop(sb, Ity_I64, Iop_Shr64, binop(sb, Ity_I64, Iop_Add64, low, ad), u8(16));
    IRExpr* bad = binop(sb, Ity_I64, Iop_Or64, binop(sb, Ity_I64, Iop_Or64, big, mis),
                        binop(sb, Ity_I64, Iop_Or64, hi, over));
    IRExpr* shape = binop(sb, Ity_I1, Iop_CmpEQ64, bad, c64(0));
    IRExpr* sec = chunk_bitmap(sb, x);
    IRExpr* own1 = binop(sb, Ity_I1, Iop_CmpNE64, sec,
                         c64(reinterpret_cast<ULong>(abits_distinguished(false))));
    IRExpr* own2 = binop(sb, Ity_I1, Iop_CmpNE64, sec,
                         c64(reinterpret_cast<ULong>(abits_distinguished(true))));
    IRExpr* own = binop(sb, Ity_I1, Iop_And1, own1, own2);
    IRExpr* fast = binop(sb, Ity_I1, Iop_And1, shape, own);
    IRExpr* where = binop(sb, Ity_I64, Iop_Add64, sec, binop(sb, Ity_I64, Iop_Shr64, low, u8(3)));
    IRExpr* target =
        tmp(sb, Ity_I64, IRExpr_ITE(fast, where, c64(reinterpret_cast<ULong>(&sp_scratch))));
    // ad bits from bit 0 (x is 8-aligned): ~0 >> (64 - ad).
    IRExpr* shift =
        tmp(sb, Ity_I8, IRExpr_Unop(Iop_64to8, binop(sb, Ity_I64, Iop_Sub64, c64(64), ad)));
    IRExpr* mask = binop(sb, Ity_I64, Iop_Shr64, c64(~0ull), shift);
    IRExpr* word = tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, target));
    IRExpr* set = binop(sb, Ity_I64, Iop_Or64, word, mask);
    IRExpr* cleared =
        binop(sb, Ity_I64, Iop_And64, word, tmp(sb, Ity_I64, IRExpr_Unop(Iop_Not64, mask)));
    addStmtToIRSB(sb,
                  IRStmt_Store(Iend_LE, target, tmp(sb, Ity_I64, IRExpr_ITE(pop, set, cleared))));

    IRDirty* call = unsafeIRDirty_0_N(
        0, "mg_sp_changed", VG_(fnptr_to_fnentry)(reinterpret_cast<void*>(&memevents_sp_changed)),
        mkIRExprVec_2(old_sp, new_sp));
    IRExpr* moved = binop(sb, Ity_I1, Iop_CmpNE64, old_sp, new_sp);
    IRExpr* slow = tmp(sb, Ity_I1, IRExpr_Unop(Iop_Not1, fast));
    call->guard = binop(sb, Ity_I1, Iop_And1, moved, slow);
    addStmtToIRSB(sb, IRStmt_Dirty(call));
}

// Every move through the helper (after a client request made stack memory
// not addressable).
void add_sp_helper(IRSB* sb, IRExpr* old_sp, IRExpr* new_sp) {
    IRDirty* call = unsafeIRDirty_0_N(
        0, "mg_sp_changed", VG_(fnptr_to_fnentry)(reinterpret_cast<void*>(&memevents_sp_changed)),
        mkIRExprVec_2(old_sp, new_sp));
    call->guard = binop(sb, Ity_I1, Iop_CmpNE64, old_sp, new_sp);
    addStmtToIRSB(sb, IRStmt_Dirty(call));
}

// A move of SP by a constant known at translation (a call, a return, a
// push, a pop, a frame of up to 64 bytes): the bitmap bytes it changes get
// a constant, with no read. Writing 0 into the shared all-addressable
// bitmap, or 0xff into the shared not-addressable one, changes nothing,
// so only the other one sends the move to the helper.
bool add_sp_change_const(IRSB* sb, IRExpr* old_sp, IRExpr* new_sp, Long delta) {
    bool pop = delta > 0;
    ULong ad = static_cast<ULong>(pop ? delta : -delta);
    IRType ty;
    switch (ad) {
    case 8:
        ty = Ity_I8;
        break;
    case 16:
        ty = Ity_I16;
        break;
    case 32:
        ty = Ity_I32;
        break;
    case 64:
        ty = Ity_I64;
        break;
    default:
        return false;
    }
    constexpr ULong kRedZone = VG_STACK_REDZONE_SZB;
    IRExpr* x = binop(sb, Ity_I64, Iop_Sub64, pop ? old_sp : new_sp, c64(kRedZone));
    // Slow unless x is 8-aligned, in the primary's range, and the bytes
    // stay inside its chunk's bitmap (always so for one byte).
    ULong shape_bits = 7 | ~((1ull << (kAbitsPrimaryBits + kAbitsChunkBits)) - 1);
    IRExpr* bad = binop(sb, Ity_I64, Iop_And64, x, c64(shape_bits));
    IRExpr* low = binop(sb, Ity_I64, Iop_And64, x, c64(kAbitsChunk - 1));
    if (ad > 8) {
        IRExpr* over =
            binop(sb, Ity_I64, Iop_Shr64, binop(sb, Ity_I64, Iop_Add64, low, c64(ad)), u8(16));
        bad = binop(sb, Ity_I64, Iop_Or64, bad, over);
    }
    IRExpr* shape = binop(sb, Ity_I1, Iop_CmpEQ64, bad, c64(0));
    IRExpr* sec = chunk_bitmap(sb, x);
    IRExpr* own =
        binop(sb, Ity_I1, Iop_CmpNE64, sec, c64(reinterpret_cast<ULong>(abits_distinguished(pop))));
    IRExpr* fast = binop(sb, Ity_I1, Iop_And1, shape, own);
    IRExpr* where = binop(sb, Ity_I64, Iop_Add64, sec, binop(sb, Ity_I64, Iop_Shr64, low, u8(3)));
    IRExpr* target =
        tmp(sb, Ity_I64, IRExpr_ITE(fast, where, c64(reinterpret_cast<ULong>(&sp_scratch))));
    ULong value = pop ? ~0ull : 0;
    IRConst* con = ty == Ity_I8    ? IRConst_U8(static_cast<UChar>(value))
                   : ty == Ity_I16 ? IRConst_U16(static_cast<UShort>(value))
                   : ty == Ity_I32 ? IRConst_U32(static_cast<UInt>(value))
                                   : IRConst_U64(value);
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, target, IRExpr_Const(con)));
    IRDirty* call = unsafeIRDirty_0_N(
        0, "mg_sp_changed", VG_(fnptr_to_fnentry)(reinterpret_cast<void*>(&memevents_sp_changed)),
        mkIRExprVec_2(old_sp, new_sp));
    call->guard = tmp(sb, Ity_I1, IRExpr_Unop(Iop_Not1, fast));
    addStmtToIRSB(sb, IRStmt_Dirty(call));
    return true;
}

ULong checks_added, checks_near_sp, checks_merged;

// Set when a client request made memory of a thread's stack not
// addressable (memcheck's describe-block marks a local array NOACCESS):
// from then on near-SP accesses are checked too, and every SP move goes
// through the helper, which also gives a dead frame's red zone back.
bool stack_poisoned;

ULong sp_moves, sp_updates;

// SP moves by constants, not yet applied to the A-bits. Between two moves
// only near-SP accesses (never checked) read the stack, so a run of them
// (a prologue's pushes and frame, an epilogue's pops and return) is applied
// at once before anything that reads the A-bits or leaves the superblock:
// a check, a helper call, a side exit, the end. The moves covered every
// SP between the lowest and the highest of the run, so what they leave is
// what two moves leave: from the lowest SP up to the last (not
// addressable) and from the highest down to it (addressable), one of them
// for a run that only pushes or only pops.
struct PendingSp {
    IRExpr* from = nullptr; // SP before the run's first move; null: none pending
    IRExpr* to = nullptr;   // SP after the last move
    Long from_offset = 0;   // offsets (SpOffsets) of the first, lowest and highest SP
    Long low = 0, high = 0;

    // A move from the current SP (its offset sp.sp) to new_sp (offset now);
    // from holds the SP of the run's start.
    void move(const SpOffsets& sp, IRExpr* new_sp, Long now) {
        if (!to) from_offset = low = high = sp.sp;
        to = new_sp;
        if (now < low) low = now;
        if (now > high) high = now;
    }
    void flush(IRSB* out, const SpOffsets& sp) {
        if (!from) return;
        Long last = sp.sp;
        if (last > low) apply(out, at(out, low), last - low);
        if (last < high) apply(out, at(out, high), last - high);
        from = to = nullptr;
    }

  private:
    IRExpr* at(IRSB* out, Long offset) {
        if (offset == from_offset) return from;
        return tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, from, c64(ULong(offset - from_offset))));
    }
    void apply(IRSB* out, IRExpr* old_sp, Long delta) {
        ++sp_updates;
        if (!add_sp_change_const(out, old_sp, to, delta)) add_sp_change(out, old_sp, to);
    }
};

// Temporaries from this one on are an earlier pass's (pages/mg_cow.cpp's
// page-map loads): their accesses are the tool's, not the client's.
IRTemp tool_tmps;

void check(IRSB* out, const VexGuestLayout* layout, const SpOffsets& sp, PendingSp& pending,
           IRExpr* addr, UInt n, UWord how, IRExpr* guard) {
    if (addr->tag == Iex_RdTmp && addr->Iex.RdTmp.tmp >= tool_tmps) return;
    if (!stack_poisoned && sp.near_sp(addr, n)) {
        ++checks_near_sp;
        return;
    }
    ++checks_added;
    pending.flush(out, sp);
    add_check(out, layout, atom(out, addr), n, how, guard);
}

bool same_atom(const IRExpr* a, const IRExpr* b) {
    if (a->tag != b->tag) return false;
    if (a->tag == Iex_RdTmp) return a->Iex.RdTmp.tmp == b->Iex.RdTmp.tmp;
    return a->tag == Iex_Const && a->Iex.Const.con->tag == Ico_U64 &&
           b->Iex.Const.con->tag == Ico_U64 &&
           a->Iex.Const.con->Ico.U64 == b->Iex.Const.con->Ico.U64;
}

// The store of the same instruction to the same address and size as the
// load at i (a read-modify-write), or -1. Nothing between them can change
// the A-bits: no helper call, no write of SP.
Int rmw_store(const IRSB* in, Int i, Int offset_sp) {
    const IRExpr* ld = in->stmts[i]->Ist.WrTmp.data;
    for (Int j = i + 1; j < in->stmts_used; ++j) {
        const IRStmt* st = in->stmts[j];
        switch (st->tag) {
        case Ist_Store:
            if (same_atom(st->Ist.Store.addr, ld->Iex.Load.addr) &&
                typeOfIRExpr(in->tyenv, st->Ist.Store.data) == ld->Iex.Load.ty)
                return j;
            return -1;
        case Ist_WrTmp:
        case Ist_NoOp:
            break;
        case Ist_Put:
            if (st->Ist.Put.offset == offset_sp) return -1;
            break;
        default: // IMark, Exit, Dirty, CAS, guarded accesses, ...
            return -1;
        }
    }
    return -1;
}

} // namespace

void access_annotate_unwind(IRDirty* d, const VexGuestLayout* layout) {
    d->nFxState = 3;
    const Int offs[3] = {layout->offset_IP, layout->offset_SP, layout->offset_FP};
    const Int sizes[3] = {layout->sizeof_IP, layout->sizeof_SP, layout->sizeof_FP};
    for (Int i = 0; i < 3; ++i) {
        d->fxState[i].fx = Ifx_Read;
        d->fxState[i].offset = offs[i];
        d->fxState[i].size = sizes[i];
        d->fxState[i].nRepeats = 0;
        d->fxState[i].repeatLen = 0;
    }
}

void request_make(Addr a, SizeT len, bool addressable) {
    abits_make(a, len, addressable);
    if (addressable || stack_poisoned || !abits_on || len == 0) return;
    ThreadId tid = VG_(get_running_tid)();
    Addr hi = VG_(thread_get_stack_max)(tid);
    Addr lo = hi - VG_(thread_get_stack_size)(tid);
    if (a + len <= lo || a > hi) return;
    stack_poisoned = true;
    // The code translated so far left near-SP accesses unchecked.
    VG_(discard_translations_safely)(0, SizeT(1) << 47, "memgrow: stack made not addressable");
}

void access_print_stats() {
    VG_(umsg)
    ("memgrow: access checks: %'llu generated, %'llu left out (near SP), %'llu stores "
     "checked with their load; %'llu SP moves in %'llu updates\n",
     checks_added, checks_near_sp, checks_merged, sp_moves, sp_updates);
}

IRSB* access_instrument(IRSB* in, const VexGuestLayout* layout, IRTemp tool_tmps_from) {
    tool_tmps = tool_tmps_from;
    static bool first = true;
    if (first) {
        // Before the client's first instruction: its SP is the initial one.
        first = false;
        memevents_initial_stack(VG_(get_SP)(1));
    }
    IRSB* out = deepCopyIRSBExceptStmts(in);
    SpOffsets sp(in->tyenv->types_used);
    PendingSp pending;
    Int merged_store = -1;
    for (Int i = 0; i < in->stmts_used; ++i) {
        IRStmt* st = in->stmts[i];
        // What may read the A-bits or leave the superblock sees them current
        // (an earlier pass's page check reads neither: it keeps a prologue's
        // pushes one update).
        switch (st->tag) {
        case Ist_Dirty:
            if (cow_helper(st->Ist.Dirty.details)) break;
            pending.flush(out, sp);
            break;
        case Ist_Exit:
        case Ist_PutI:
        case Ist_MBE:
            pending.flush(out, sp);
            break;
        default:
            break;
        }
        switch (st->tag) {
        case Ist_WrTmp: {
            IRExpr* data = st->Ist.WrTmp.data;
            if (data->tag == Iex_Load) {
                merged_store = rmw_store(in, i, layout->offset_SP);
                check(out, layout, sp, pending, data->Iex.Load.addr,
                      static_cast<UInt>(sizeofIRType(data->Iex.Load.ty)),
                      merged_store >= 0 ? kReadWrite : 0, nullptr);
            }
            sp.after(st, in->tyenv, layout->offset_SP);
            break;
        }
        case Ist_Store:
            if (i == merged_store)
                ++checks_merged;
            else
                check(out, layout, sp, pending, st->Ist.Store.addr, size_of(in, st->Ist.Store.data),
                      kWrite, nullptr);
            break;
        case Ist_StoreG: {
            IRStoreG* g = st->Ist.StoreG.details;
            check(out, layout, sp, pending, g->addr, size_of(in, g->data), kWrite, g->guard);
            break;
        }
        case Ist_LoadG: {
            IRLoadG* g = st->Ist.LoadG.details;
            check(out, layout, sp, pending, g->addr, loadg_size(g->cvt), 0, g->guard);
            break;
        }
        case Ist_CAS: {
            IRCAS* c = st->Ist.CAS.details;
            UInt n = size_of(in, c->expdLo) * (c->expdHi ? 2 : 1);
            check(out, layout, sp, pending, c->addr, n, kWrite, nullptr);
            break;
        }
        case Ist_LLSC:
            if (st->Ist.LLSC.storedata)
                check(out, layout, sp, pending, st->Ist.LLSC.addr,
                      size_of(in, st->Ist.LLSC.storedata), true, nullptr);
            else
                check(out, layout, sp, pending, st->Ist.LLSC.addr,
                      static_cast<UInt>(sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result))),
                      0, nullptr);
            break;
        case Ist_Dirty: {
            IRDirty* d = st->Ist.Dirty.details;
            if (d->mFx != Ifx_None && d->mAddr)
                check(out, layout, sp, pending, d->mAddr, static_cast<UInt>(d->mSize),
                      d->mFx != Ifx_Read ? kWrite : 0,
                      isIRAtom(d->guard) && d->guard->tag == Iex_Const &&
                              d->guard->Iex.Const.con->Ico.U1
                          ? nullptr
                          : d->guard);
            sp.after(st, in->tyenv, layout->offset_SP); // a helper may write SP
            break;
        }
        case Ist_PutI:
            sp.after(st, in->tyenv, layout->offset_SP);
            break;
        case Ist_Put:
            if (st->Ist.Put.offset == layout->offset_SP &&
                typeOfIRExpr(in->tyenv, st->Ist.Put.data) == Ity_I64) {
                ++sp_moves;
                IRExpr* new_sp = atom(out, st->Ist.Put.data);
                Long now = sp.of(st->Ist.Put.data);
                if (!stack_poisoned && sp.sp_known && now != SpOffsets::kUnknown) {
                    if (!pending.from)
                        pending.from = tmp(out, Ity_I64, IRExpr_Get(layout->offset_SP, Ity_I64));
                    pending.move(sp, new_sp, now);
                    addStmtToIRSB(out, st);
                    sp.after(st, in->tyenv, layout->offset_SP);
                    continue;
                }
                pending.flush(out, sp);
                ++sp_updates;
                IRExpr* old_sp = tmp(out, Ity_I64, IRExpr_Get(layout->offset_SP, Ity_I64));
                addStmtToIRSB(out, st);
                if (stack_poisoned)
                    add_sp_helper(out, old_sp, new_sp);
                else
                    add_sp_change(out, old_sp, new_sp);
                sp.after(st, in->tyenv, layout->offset_SP);
                continue;
            }
            if (st->Ist.Put.offset < layout->offset_SP + 8 &&
                layout->offset_SP <
                    st->Ist.Put.offset +
                        Int(sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Put.data)))) {
                pending.flush(out, sp);
                sp.after(st, in->tyenv, layout->offset_SP);
            }
            break;
        default:
            break;
        }
        addStmtToIRSB(out, st);
    }
    pending.flush(out, sp);
    return out;
}

} // namespace mg
