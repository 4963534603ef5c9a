// SPDX-License-Identifier: GPL-2.0-or-later
#include "intercept/mg_host_insns.hpp"
#include "python/mg_client_memory.hpp"
#include "mg_options.hpp"
#include "libvex_guest_offsets.h"

namespace mg {

namespace {

// Guest register offsets by the instruction encoding's register number.
constexpr Int kGpr[16] = {OFFSET_amd64_RAX, OFFSET_amd64_RCX, OFFSET_amd64_RDX, OFFSET_amd64_RBX,
                          OFFSET_amd64_RSP, OFFSET_amd64_RBP, OFFSET_amd64_RSI, OFFSET_amd64_RDI,
                          OFFSET_amd64_R8,  OFFSET_amd64_R9,  OFFSET_amd64_R10, OFFSET_amd64_R11,
                          OFFSET_amd64_R12, OFFSET_amd64_R13, OFFSET_amd64_R14, OFFSET_amd64_R15};

// The instructions memgrow can perform for the client, and what the host
// does with them (probed at start-up: running one the host lacks would kill
// Valgrind, not the client).
enum Insn : UInt { kRdtscp, kRdpid, kInsns };
const HChar* const kInsnName[kInsns] = {"RDTSCP", "RDPID"};
bool host_runs[kInsns];
bool announced[kInsns];

// Helpers called from generated code with the guest state. A 32-bit
// result is zero-extended into its 64-bit register, as on the host.
void emulate_rdtscp(UChar* gst) {
    UInt lo, hi, aux;
    __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
    *reinterpret_cast<ULong*>(gst + OFFSET_amd64_RAX) = lo;
    *reinterpret_cast<ULong*>(gst + OFFSET_amd64_RDX) = hi;
    *reinterpret_cast<ULong*>(gst + OFFSET_amd64_RCX) = aux;
}
void emulate_rdpid(UChar* gst, ULong reg_offset) {
    ULong v;
    __asm__ __volatile__(".byte 0xf3, 0x0f, 0xc7, 0xf8" : "=a"(v)); // rdpid %rax
    *reinterpret_cast<ULong*>(gst + reg_offset) = v;
}

// The undecodable instruction a thread ran last, until a SIGILL handler of
// the client runs: if none does, the SIGILL that follows kills the client.
FatalInsn fatal;
bool fatal_pending;
void note_undecodable(Addr addr) {
    fatal.addr = addr;
    fatal.n_bytes = 0;
    for (; fatal.n_bytes < sizeof fatal.bytes; ++fatal.n_bytes)
        if (!read_client(addr + fatal.n_bytes, &fatal.bytes[fatal.n_bytes])) break;
    fatal_pending = true;
}

VG_MINIMAL_JMP_BUF(probe_jmp);
void on_probe_fault(Int sig, Addr) {
    unmask_signal(sig);
    VG_MINIMAL_LONGJMP(probe_jmp);
}

bool host_executes(Insn insn) {
    alignas(16) UChar gst[512];
    volatile bool ok = false;
    fault_catcher_t prev = VG_(set_fault_catcher)(on_probe_fault);
    if (VG_MINIMAL_SETJMP(probe_jmp) == 0) {
        if (insn == kRdtscp)
            emulate_rdtscp(gst);
        else
            emulate_rdpid(gst, OFFSET_amd64_RAX);
        ok = true;
    }
    VG_(set_fault_catcher)(prev);
    return ok;
}

// Decodes what memgrow can perform at a: the instruction, its length and
// (RDPID) the register it writes. Bytes are read with checks: a block's
// code may sit in memory the client has since unmapped.
bool decode(Addr a, Insn* insn, UInt* len, UInt* reg) {
    UChar b[5] = {};
    for (UInt i = 0; i < 5; ++i)
        if (!read_client(a + i, &b[i])) break;
    if (b[0] == 0x0f && b[1] == 0x01 && b[2] == 0xf9) {
        *insn = kRdtscp, *len = 3, *reg = 0;
        return true;
    }
    // RDPID: F3, an optional REX (only its B bit matters), 0F C7, ModRM 11 111 rrr.
    if (b[0] != 0xf3) return false;
    UInt i = 1, rex_b = 0;
    if ((b[1] & 0xf0) == 0x40) rex_b = (b[1] & 1) << 3, i = 2;
    if (b[i] == 0x0f && b[i + 1] == 0xc7 && (b[i + 2] & 0xf8) == 0xf8) {
        *insn = kRdpid, *len = i + 3, *reg = rex_b | (b[i + 2] & 7);
        return true;
    }
    return false;
}

void announce(Insn insn, Addr a, const VexArchInfo* host, bool forced) {
    if (announced[insn]) return;
    announced[insn] = true;
    const HChar* why = "which Valgrind does not decode";
    if (forced)
        why = "as --emulate-insns=always asks";
    else if (insn == kRdtscp && !(host->hwcaps & VEX_HWCAPS_AMD64_RDTSCP))
        why = "which this host's CPUID does not advertise";
    VG_(umsg)
    ("memgrow: emulating %s, %s (first at %s)\n", kInsnName[insn], why,
     VG_(describe_IP)(VG_(current_DiEpoch)(), a, nullptr));
}

template <class F> void* entry(F* f) {
    return VG_(fnptr_to_fnentry)(reinterpret_cast<void*>(f));
}

// The helper call that performs insn and writes the registers it defines.
IRStmt* emulation(Insn insn, UInt reg) {
    IRDirty* d;
    if (insn == kRdtscp) {
        d = unsafeIRDirty_0_N(0, "emulate_rdtscp", entry(&emulate_rdtscp),
                              mkIRExprVec_1(IRExpr_GSPTR()));
        d->nFxState = 3;
        const Int out[3] = {OFFSET_amd64_RAX, OFFSET_amd64_RDX, OFFSET_amd64_RCX};
        for (Int i = 0; i < 3; ++i) {
            d->fxState[i].fx = Ifx_Write;
            d->fxState[i].offset = out[i];
            d->fxState[i].size = 8;
            d->fxState[i].nRepeats = 0;
            d->fxState[i].repeatLen = 0;
        }
    } else {
        d = unsafeIRDirty_0_N(0, "emulate_rdpid", entry(&emulate_rdpid),
                              mkIRExprVec_2(IRExpr_GSPTR(), IRExpr_Const(IRConst_U64(
                                                                static_cast<ULong>(kGpr[reg])))));
        d->nFxState = 1;
        d->fxState[0].fx = Ifx_Write;
        d->fxState[0].offset = kGpr[reg];
        d->fxState[0].size = 8;
        d->fxState[0].nRepeats = 0;
        d->fxState[0].repeatLen = 0;
    }
    return IRStmt_Dirty(d);
}

bool can_emulate(Insn insn) {
    return clo.emulate_insns != EmulateInsns::no && host_runs[insn];
}

// Whether the user chose the core's decode-failure diagnostics.
bool sigill_diagnostics_given() {
    for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_valgrind)); ++i) {
        const HChar* arg = *static_cast<HChar**>(VG_(indexXA)(VG_(args_for_valgrind), i));
        if (VG_(strncmp)(arg, "--sigill-diagnostics", 20) == 0) return true;
    }
    return false;
}

} // namespace

void host_insns_init() {
    if (clo.emulate_insns == EmulateInsns::no) return;
    for (UInt i = 0; i < kInsns; ++i)
        host_runs[i] = host_executes(static_cast<Insn>(i));
    // VEX prints several lines at each translation of an instruction it
    // refuses, emulated or not; memgrow says one line per emulated kind and
    // one for an instruction that kills the client instead.
    VexArch arch;
    VexArchInfo info;
    VG_(machine_get_VexArchInfo)(&arch, &info);
    bool refused =
        host_runs[kRdpid] || (host_runs[kRdtscp] && !(info.hwcaps & VEX_HWCAPS_AMD64_RDTSCP));
    if (refused && !sigill_diagnostics_given()) VG_(clo_sigill_diag) = False;
}

IRSB* host_insns_instrument(IRSB* bb, const VexArchInfo* host) {
    const bool force = clo.emulate_insns == EmulateInsns::always && host_runs[kRdtscp];
    if (bb->jumpkind != Ijk_NoDecode && !force) return bb;

    IRSB* out = deepCopyIRSBExceptStmts(bb);
    for (Int i = 0; i < bb->stmts_used; ++i) {
        IRStmt* st = bb->stmts[i];
        Insn insn;
        UInt len, reg;
        if (st->tag != Ist_IMark) {
            addStmtToIRSB(out, st);
            continue;
        }
        Addr a = static_cast<Addr>(st->Ist.IMark.addr);
        // The decode failure is the last instruction: an IMark of length 0.
        bool failed = bb->jumpkind == Ijk_NoDecode && st->Ist.IMark.len == 0;
        if (failed && decode(a, &insn, &len, &reg) && can_emulate(insn)) {
            announce(insn, a, host, false);
            addStmtToIRSB(out, IRStmt_IMark(a, len, 0));
            addStmtToIRSB(out, emulation(insn, reg));
            out->next = IRExpr_Const(IRConst_U64(a + len));
            out->jumpkind = Ijk_Boring;
            return out;
        }
        if (failed) {
            // Left to the core, which raises SIGILL; remember where.
            addStmtToIRSB(out, st);
            IRDirty* d = unsafeIRDirty_0_N(0, "note_undecodable", entry(&note_undecodable),
                                           mkIRExprVec_1(IRExpr_Const(IRConst_U64(a))));
            addStmtToIRSB(out, IRStmt_Dirty(d));
            continue;
        }
        if (force && st->Ist.IMark.len == 3 && decode(a, &insn, &len, &reg) && insn == kRdtscp) {
            // Replace VEX's own translation: keep only its RIP updates.
            announce(insn, a, host, true);
            addStmtToIRSB(out, st);
            addStmtToIRSB(out, emulation(insn, reg));
            for (; i + 1 < bb->stmts_used && bb->stmts[i + 1]->tag != Ist_IMark; ++i) {
                IRStmt* s = bb->stmts[i + 1];
                if (s->tag == Ist_Put && s->Ist.Put.offset == OFFSET_amd64_RIP)
                    addStmtToIRSB(out, s);
            }
            continue;
        }
        addStmtToIRSB(out, st);
    }
    return out;
}

void host_insns_signal_delivered(Int sig) {
    if (sig == VKI_SIGILL) fatal_pending = false;
}

const FatalInsn* host_insns_fatal() {
    return fatal_pending ? &fatal : nullptr;
}

void format_bytes(const FatalInsn& f, HChar* out) {
    for (UInt i = 0; i < f.n_bytes; ++i)
        out += VG_(sprintf)(out, i ? " %02x" : "%02x", f.bytes[i]);
}

void host_insns_report_fatal() {
    if (!fatal_pending) return;
    HChar bytes[3 * sizeof fatal.bytes + 1] = {};
    format_bytes(fatal, bytes);
    const HChar* where = VG_(describe_IP)(VG_(current_DiEpoch)(), fatal.addr, nullptr);
    VG_(umsg)
    ("memgrow: the client died of SIGILL at an instruction Valgrind cannot decode: "
     "%s (bytes %s ...)\n",
     where, bytes);
}

} // namespace mg
