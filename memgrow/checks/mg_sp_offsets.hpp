// SPDX-License-Identifier: GPL-2.0-or-later
// Which temporaries of a superblock point near the stack pointer, to leave
// out the checks of accesses there: the access checks (whose SP moves keep
// [SP - redzone, SP + kNearSp) addressable) and a forked child's page checks
// (which count the forking thread's stack as copied at the fork).
#pragma once

#include "mg_vg.hpp"

namespace mg {

// Most accesses of compiled code (calls, returns, pushes, pops, locals) fall
// near SP. Offsets are relative to SP at the superblock's start.
constexpr Long kNearSp = 16 * 1024;

struct SpOffsets {
    Long* off = nullptr; // per temporary; kUnknown when not SP-relative
    Int n = 0;
    Long sp = 0; // the current SP's offset
    bool sp_known = true;
    static constexpr Long kUnknown = Long(1) << 62;

    explicit SpOffsets(Int temps) : n(temps) {
        if (n == 0) return;
        off = static_cast<Long*>(VG_(malloc)("mg.access.sp", sizeof(Long) * n));
        for (Int i = 0; i < n; ++i)
            off[i] = kUnknown;
    }
    ~SpOffsets() {
        if (off) VG_(free)(off);
    }
    SpOffsets(const SpOffsets&) = delete;
    SpOffsets& operator=(const SpOffsets&) = delete;

    Long of(const IRExpr* e) const {
        if (e->tag != Iex_RdTmp || e->Iex.RdTmp.tmp >= static_cast<IRTemp>(n)) return kUnknown;
        return off[e->Iex.RdTmp.tmp];
    }
    // t = e: SP itself, or an SP-relative temporary plus or minus a constant.
    void define(IRTemp t, const IRExpr* e, Int offset_sp) {
        if (t >= static_cast<IRTemp>(n)) return;
        Long v = kUnknown;
        if (e->tag == Iex_Get && e->Iex.Get.offset == offset_sp && e->Iex.Get.ty == Ity_I64) {
            if (sp_known) v = sp;
        } else if (e->tag == Iex_Binop &&
                   (e->Iex.Binop.op == Iop_Add64 || e->Iex.Binop.op == Iop_Sub64) &&
                   e->Iex.Binop.arg2->tag == Iex_Const &&
                   e->Iex.Binop.arg2->Iex.Const.con->tag == Ico_U64) {
            Long base = of(e->Iex.Binop.arg1);
            auto c = static_cast<Long>(e->Iex.Binop.arg2->Iex.Const.con->Ico.U64);
            if (base != kUnknown && c > -kNearSp && c < kNearSp)
                v = e->Iex.Binop.op == Iop_Add64 ? base + c : base - c;
        } else if (e->tag == Iex_RdTmp) {
            v = of(e);
        }
        off[t] = v;
    }
    void sp_written(const IRExpr* e) {
        Long v = of(e);
        sp_known = v != kUnknown;
        sp = v;
    }
    // After statement st: what it defines or does to SP (a write of SP by
    // a known offset keeps it known; any other write of it, whole or in
    // part, by a Put, a PutI or a helper, makes it unknown).
    void after(const IRStmt* st, const IRTypeEnv* tyenv, Int offset_sp) {
        switch (st->tag) {
        case Ist_WrTmp:
            define(st->Ist.WrTmp.tmp, st->Ist.WrTmp.data, offset_sp);
            break;
        case Ist_Put: {
            Int at = st->Ist.Put.offset;
            Int size = sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Put.data));
            if (at == offset_sp && size == 8)
                sp_written(st->Ist.Put.data);
            else if (at < offset_sp + 8 && offset_sp < at + size)
                sp_known = false;
            break;
        }
        case Ist_PutI:
            sp_known = false; // an indexed write may land on SP
            break;
        case Ist_Dirty: {
            const IRDirty* d = st->Ist.Dirty.details;
            for (Int k = 0; k < d->nFxState; ++k)
                if (d->fxState[k].fx != Ifx_Read && d->fxState[k].offset <= offset_sp &&
                    offset_sp < d->fxState[k].offset + d->fxState[k].size)
                    sp_known = false;
            break;
        }
        default:
            break;
        }
    }
    // Whether [addr, addr + size) lies where the stack is addressable.
    bool near_sp(const IRExpr* addr, UInt size) const {
        Long v = of(addr);
        if (!sp_known || v == kUnknown) return false;
        Long d = v - sp;
        return d >= -Long(VG_STACK_REDZONE_SZB) && d + Long(size) <= kNearSp;
    }
};

} // namespace mg
