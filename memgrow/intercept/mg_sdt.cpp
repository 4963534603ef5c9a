// SPDX-License-Identifier: GPL-2.0-or-later
#include "intercept/mg_sdt.hpp"
#include "checks/mg_access.hpp"
#include "intercept/mg_reserve.hpp"
#include "core/sdt_note.hpp"
#include "mg_options.hpp"
#include "python/mg_client_memory.hpp"
#include <elf.h>
#include <libvex_guest_amd64.h>

namespace mg {

namespace {

// The probes memgrow has a use for. Another provider's (libstdc++'s
// `libstdcxx:throw`, CPython's `python:function__entry`) is a row here and a
// handler; nothing else changes. `allocator`: the probes announce the blocks
// of a device allocator, whose own device allocations are then its reserve.
struct Known {
    const HChar* provider;
    const HChar* name;
    UInt min_args;
    SdtHandler handler;
    bool allocator;
};
const Known kKnown[] = {
    // ptr, device, size, stream (c10/cuda/CUDACachingAllocator.cpp)
    {"pytorch", "malloc", 4, tensor_probe_malloc, true},
    // ptr (its deleters)
    {"pytorch", "free", 1, tensor_probe_free, true},
};
constexpr UInt kNoKnown = ~0u;

// Libraries that carry the probes in an SDT build: loaded without them, the
// log says so once (a build without SDT, or ROCm's).
const HChar* const kExpected[] = {"libc10_cuda.so", "libc10_hip.so"};

constexpr UInt kMaxLoads = 16;
constexpr SizeT kMaxSections = 1u << 16;
constexpr SizeT kMaxStrtab = 1u << 20;
constexpr SizeT kMaxNotes = 16u << 20;

struct Load {
    Addr vaddr, offset, filesz, memsz;
    bool exec;
};

// A probe as its object's note gives it (link-time addresses).
struct NoteProbe {
    Addr pc, base, sem;
    UInt known;
    UInt n_args;
    sdt::Operand args[sdt::kMaxArgs];
};

// An ELF file the client mapped, read once (by device and inode).
struct Object {
    ULong dev, ino;
    UInt n_loads;
    Load loads[kMaxLoads];
    Addr stapsdt_base; // the section's address, 0 when absent
    UInt n_probes;
    NoteProbe* probes;
};

// A loaded copy of an object with probes.
struct Instance {
    UInt obj; // index in objects
    Addr bias, code_lo, code_hi;
    bool allocator, live;
};

// A probe at its run-time address; ids (translations embed them) never change.
struct Probe {
    Addr pc, sem;
    const NoteProbe* note;
    bool live;
};

Object* objects;
UInt n_objects, cap_objects;
Instance* instances;
UInt n_instances, cap_instances;
Probe* probes;
UInt n_probes, cap_probes;
// Live probe ids by pc, and the range they span (most superblocks are
// outside it: one compare each).
UInt* by_pc;
UInt n_by_pc;
Addr pc_lo = ~Addr(0), pc_hi;

struct Stats {
    ULong hits, unreadable, semaphores, objects_read, bad_args;
} stats;

// Where the instrumentation leaves a probe's operands for the helper: the
// values of registers and immediates, the addresses of memory operands. The
// stores and the call come in one superblock: no thread switch in between.
ULong slots[sdt::kMaxArgs];

template <class T> void grow(T*& arr, UInt n, UInt* cap, const HChar* cc) {
    if (n < *cap) return;
    *cap = *cap ? *cap * 2 : 16;
    arr = static_cast<T*>(VG_(realloc)(cc, arr, *cap * sizeof(T)));
}

// The tool API has no pread: a seek, then a read of all n bytes.
bool pread_all(Int fd, void* buf, SizeT n, ULong off) {
    return VG_(lseek)(fd, static_cast<Off64T>(off), VKI_SEEK_SET) == static_cast<Off64T>(off) &&
           VG_(read)(fd, buf, static_cast<Int>(n)) == static_cast<Int>(n);
}

bool name_is(const HChar* s, const HChar* want) {
    return VG_(strcmp)(s, want) == 0;
}

UInt known_of(const sdt::Note& n) {
    for (UInt k = 0; k < sizeof kKnown / sizeof kKnown[0]; ++k)
        if (name_is(n.provider, kKnown[k].provider) && name_is(n.name, kKnown[k].name)) return k;
    return kNoKnown;
}

// The probes of a note section that memgrow uses and can read.
void read_notes(Object* o, const UChar* sec, SizeT n) {
    UInt cap = 0;
    sdt::for_each_note(sec, n, [&](const sdt::Note& note) {
        UInt k = known_of(note);
        if (k == kNoKnown) return;
        NoteProbe p{note.pc, note.base, note.semaphore, k, 0, {}};
        bool ok =
            sdt::parse_args(note.args, VG_(strlen)(note.args), p.args, sdt::kMaxArgs, &p.n_args) &&
            p.n_args >= kKnown[k].min_args;
        for (UInt i = 0; ok && i < p.n_args; ++i)
            ok = p.args[i].base != sdt::kRip; // relative to the next instruction: none here
        if (!ok) {
            if (stats.bad_args++ == 0) VG_(umsg)
            ("memgrow: probe %s:%s has arguments memgrow cannot read (\"%s\"): "
             "ignored\n",
             note.provider, note.name, note.args);
            return;
        }
        grow(o->probes, o->n_probes, &cap, "mg.sdt.notes");
        o->probes[o->n_probes++] = p;
    });
}

// Reads the program headers and the SDT notes of an ELF file; every offset
// and size is checked against what was read (the file may be anything).
void read_object(const HChar* path, Object* o) {
    SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
    if (sr_isError(r)) return;
    Int fd = static_cast<Int>(sr_Res(r));
    ++stats.objects_read;
    UChar* shdrs = nullptr;
    HChar* strtab = nullptr;
    UChar* notes = nullptr;
    do {
        Elf64_Ehdr eh;
        if (!pread_all(fd, &eh, sizeof eh, 0) || VG_(memcmp)(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
            eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
            eh.e_machine != EM_X86_64)
            break;
        if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_shentsize != sizeof(Elf64_Shdr)) break;
        for (UInt i = 0; i < eh.e_phnum && o->n_loads < kMaxLoads; ++i) {
            Elf64_Phdr ph;
            if (!pread_all(fd, &ph, sizeof ph, eh.e_phoff + i * sizeof ph)) break;
            if (ph.p_type != PT_LOAD || ph.p_filesz > ph.p_memsz) continue;
            o->loads[o->n_loads++] =
                Load{ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz, (ph.p_flags & PF_X) != 0};
        }
        if (eh.e_shnum == 0 || eh.e_shnum > kMaxSections || eh.e_shstrndx >= eh.e_shnum) break;
        SizeT sh_bytes = SizeT(eh.e_shnum) * sizeof(Elf64_Shdr);
        shdrs = static_cast<UChar*>(VG_(malloc)("mg.sdt.shdrs", sh_bytes));
        if (!pread_all(fd, shdrs, sh_bytes, eh.e_shoff)) break;
        auto sh = [&](UInt i) { return reinterpret_cast<const Elf64_Shdr*>(shdrs) + i; };
        const Elf64_Shdr* names = sh(eh.e_shstrndx);
        if (names->sh_size == 0 || names->sh_size > kMaxStrtab) break;
        strtab = static_cast<HChar*>(VG_(malloc)("mg.sdt.strtab", names->sh_size + 1));
        if (!pread_all(fd, strtab, names->sh_size, names->sh_offset)) break;
        strtab[names->sh_size] = 0;
        const Elf64_Shdr* note_sec = nullptr;
        for (UInt i = 0; i < eh.e_shnum; ++i) {
            if (sh(i)->sh_name >= names->sh_size) continue;
            const HChar* nm = strtab + sh(i)->sh_name;
            if (sh(i)->sh_type == SHT_NOTE && name_is(nm, ".note.stapsdt")) note_sec = sh(i);
            if (name_is(nm, ".stapsdt.base")) o->stapsdt_base = sh(i)->sh_addr;
        }
        if (!note_sec || note_sec->sh_size == 0 || note_sec->sh_size > kMaxNotes) break;
        notes = static_cast<UChar*>(VG_(malloc)("mg.sdt.notes", note_sec->sh_size));
        if (!pread_all(fd, notes, note_sec->sh_size, note_sec->sh_offset)) break;
        read_notes(o, notes, note_sec->sh_size);
    } while (false);
    if (notes) VG_(free)(notes);
    if (strtab) VG_(free)(strtab);
    if (shdrs) VG_(free)(shdrs);
    VG_(close)(fd);
}

const HChar* base_name(const HChar* path) {
    const HChar* slash = VG_(strrchr)(path, '/');
    return slash ? slash + 1 : path;
}

void say_no_probes(const HChar* path, const Object& o) {
    static bool said;
    if (said) return;
    bool allocator = false;
    for (UInt i = 0; i < o.n_probes; ++i)
        allocator |= kKnown[o.probes[i].known].allocator;
    if (allocator) return;
    for (const HChar* lib : kExpected)
        if (VG_(strncmp)(base_name(path), lib, VG_(strlen)(lib)) == 0) {
            said = true;
            VG_(umsg)
            ("memgrow: %s has no allocator probes (pytorch:malloc, pytorch:free; a "
             "build without SDT): its device memory is seen as the segments its "
             "allocator takes\n",
             path);
        }
}

UInt object_of(const NSegment& seg, const HChar* path) {
    for (UInt i = 0; i < n_objects; ++i)
        if (objects[i].dev == seg.dev && objects[i].ino == seg.ino) return i;
    grow(objects, n_objects, &cap_objects, "mg.sdt.objects");
    Object* o = &objects[n_objects];
    *o = Object{seg.dev, seg.ino, 0, {}, 0, 0, nullptr};
    read_object(path, o);
    say_no_probes(path, *o);
    return n_objects++;
}

void index_probes() {
    n_by_pc = 0;
    pc_lo = ~Addr(0), pc_hi = 0;
    by_pc = static_cast<UInt*>(VG_(realloc)("mg.sdt.bypc", by_pc, (n_probes + 1) * sizeof(UInt)));
    for (UInt id = 0; id < n_probes; ++id) {
        if (!probes[id].live) continue;
        UInt j = n_by_pc++;
        for (; j > 0 && probes[by_pc[j - 1]].pc > probes[id].pc; --j)
            by_pc[j] = by_pc[j - 1];
        by_pc[j] = id;
        if (probes[id].pc < pc_lo) pc_lo = probes[id].pc;
        if (probes[id].pc >= pc_hi) pc_hi = probes[id].pc + 1;
    }
}

UInt probe_at(Addr pc) {
    if (pc < pc_lo || pc >= pc_hi) return kNoKnown;
    UInt lo = 0, hi = n_by_pc;
    while (lo < hi) {
        UInt mid = (lo + hi) / 2;
        if (probes[by_pc[mid]].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n_by_pc && probes[by_pc[lo]].pc == pc ? by_pc[lo] : kNoKnown;
}

void add_instance(UInt oi, Addr bias) {
    for (UInt i = 0; i < n_instances; ++i)
        if (instances[i].live && instances[i].obj == oi && instances[i].bias == bias) return;
    const Object* o = &objects[oi];
    Instance in{oi, bias, ~Addr(0), 0, false, true};
    for (UInt i = 0; i < o->n_loads; ++i)
        if (o->loads[i].exec) {
            if (o->loads[i].vaddr + bias < in.code_lo) in.code_lo = o->loads[i].vaddr + bias;
            if (o->loads[i].vaddr + o->loads[i].memsz + bias > in.code_hi)
                in.code_hi = o->loads[i].vaddr + o->loads[i].memsz + bias;
        }
    grow(instances, n_instances, &cap_instances, "mg.sdt.instances");
    UInt id = n_instances++;
    for (UInt i = 0; i < o->n_probes; ++i) {
        const NoteProbe& np = o->probes[i];
        in.allocator |= kKnown[np.known].allocator;
        Addr pc = sdt::relocate(np.pc, np.base, o->stapsdt_base, bias);
        Addr sem = np.sem ? sdt::relocate(np.sem, np.base, o->stapsdt_base, bias) : 0;
        grow(probes, n_probes, &cap_probes, "mg.sdt.probes");
        probes[n_probes++] = Probe{pc, sem, &np, true};
    }
    instances[id] = in;
    index_probes();
}

// A semaphore counts the probe's users: the code between the probe's test
// and the probe runs only while it is non-zero. The loader maps the whole
// object first, then the data segment over it (MAP_FIXED): each file
// mapping that covers a semaphore brings the file's 0 back, so each writable
// one gets its increment.
void set_semaphores(Addr a, SizeT len) {
    for (UInt id = 0; id < n_probes; ++id) {
        Addr sem = probes[id].sem;
        if (!probes[id].live || !sem || sem < a || sem - a + sizeof(UShort) > len) continue;
        bool seen = false; // probes of one name share their semaphore
        for (UInt j = 0; j < id && !seen; ++j)
            seen = probes[j].live && probes[j].sem == sem;
        UShort v;
        if (seen || !read_client(sem, &v)) continue;
        *reinterpret_cast<volatile UShort*>(sem) = static_cast<UShort>(v + 1);
        ++stats.semaphores;
    }
}

constexpr Int kRegOffset[17] = {
    offsetof(VexGuestAMD64State, guest_RAX), offsetof(VexGuestAMD64State, guest_RCX),
    offsetof(VexGuestAMD64State, guest_RDX), offsetof(VexGuestAMD64State, guest_RBX),
    offsetof(VexGuestAMD64State, guest_RSP), offsetof(VexGuestAMD64State, guest_RBP),
    offsetof(VexGuestAMD64State, guest_RSI), offsetof(VexGuestAMD64State, guest_RDI),
    offsetof(VexGuestAMD64State, guest_R8),  offsetof(VexGuestAMD64State, guest_R9),
    offsetof(VexGuestAMD64State, guest_R10), offsetof(VexGuestAMD64State, guest_R11),
    offsetof(VexGuestAMD64State, guest_R12), offsetof(VexGuestAMD64State, guest_R13),
    offsetof(VexGuestAMD64State, guest_R14), offsetof(VexGuestAMD64State, guest_R15),
    offsetof(VexGuestAMD64State, guest_RIP)};

IRExpr* reg64(IRSB* out, UInt reg) {
    IRTemp t = newIRTemp(out->tyenv, Ity_I64);
    addStmtToIRSB(out, IRStmt_WrTmp(t, IRExpr_Get(kRegOffset[reg], Ity_I64)));
    return IRExpr_RdTmp(t);
}

IRExpr* binop(IRSB* out, IROp op, IRExpr* a, IRExpr* b) {
    IRTemp t = newIRTemp(out->tyenv, Ity_I64);
    addStmtToIRSB(out, IRStmt_WrTmp(t, IRExpr_Binop(op, a, b)));
    return IRExpr_RdTmp(t);
}

// The operand's slot value: a register's bits, an immediate, or the address
// of a memory operand.
IRExpr* operand_expr(IRSB* out, const sdt::Operand& op) {
    switch (op.kind) {
    case sdt::Operand::imm:
        return IRExpr_Const(IRConst_U64(static_cast<ULong>(op.disp)));
    case sdt::Operand::reg: {
        if (op.reg_bytes == 8) return reg64(out, op.base);
        static const IRType kTy[5] = {Ity_INVALID, Ity_I8, Ity_I16, Ity_INVALID, Ity_I32};
        static const IROp kWiden[5] = {Iop_INVALID, Iop_8Uto64, Iop_16Uto64, Iop_INVALID,
                                       Iop_32Uto64};
        IRTemp narrow = newIRTemp(out->tyenv, kTy[op.reg_bytes]);
        addStmtToIRSB(out, IRStmt_WrTmp(narrow, IRExpr_Get(kRegOffset[op.base] + op.reg_shift / 8,
                                                           kTy[op.reg_bytes])));
        IRTemp wide = newIRTemp(out->tyenv, Ity_I64);
        addStmtToIRSB(out,
                      IRStmt_WrTmp(wide, IRExpr_Unop(kWiden[op.reg_bytes], IRExpr_RdTmp(narrow))));
        return IRExpr_RdTmp(wide);
    }
    case sdt::Operand::mem: {
        IRExpr* addr = IRExpr_Const(IRConst_U64(static_cast<ULong>(op.disp)));
        if (op.base != sdt::kNoReg) addr = binop(out, Iop_Add64, addr, reg64(out, op.base));
        if (op.index != sdt::kNoReg)
            addr = binop(
                out, Iop_Add64, addr,
                binop(out, Iop_Mul64, reg64(out, op.index), IRExpr_Const(IRConst_U64(op.scale))));
        return addr;
    }
    }
    return IRExpr_Const(IRConst_U64(0));
}

ULong extend(ULong v, UInt size, bool is_signed) {
    if (size >= 8) return v;
    UInt bits = size * 8;
    v &= (ULong(1) << bits) - 1;
    if (is_signed && (v >> (bits - 1)) & 1) v |= ~((ULong(1) << bits) - 1);
    return v;
}

bool read_sized(Addr a, UInt size, ULong* out) {
    switch (size) {
    case 1: {
        UChar v;
        if (!read_client(a, &v)) return false;
        *out = v;
        return true;
    }
    case 2: {
        UShort v;
        if (!read_client(a, &v)) return false;
        *out = v;
        return true;
    }
    case 4: {
        UInt v;
        if (!read_client(a, &v)) return false;
        *out = v;
        return true;
    }
    default:
        return read_client(a, out);
    }
}

void on_probe(UWord id) {
    const Probe& p = probes[id];
    if (!p.live) return;
    const NoteProbe& np = *p.note;
    ULong v[sdt::kMaxArgs];
    for (UInt i = 0; i < np.n_args; ++i) {
        const sdt::Operand& op = np.args[i];
        v[i] = slots[i];
        if (op.kind == sdt::Operand::mem && !read_sized(slots[i], op.size, &v[i])) {
            ++stats.unreadable;
            return;
        }
        v[i] = extend(v[i], op.size, op.is_signed);
    }
    ++stats.hits;
    kKnown[np.known].handler(VG_(get_running_tid)(), v);
}

} // namespace

void sdt_mapped(Addr a, SizeT len, Bool ww) {
    if (!clo.cuda) return; // every probe memgrow reads now is a CUDA allocator's
    const NSegment* seg = VG_(am_find_nsegment)(a);
    // Regular files only: opening a device's file (/dev/nvidia*) is not
    // for memgrow to do.
    if (!seg || seg->kind != SkFileC || !VKI_S_ISREG(seg->mode)) return;
    const HChar* path = VG_(am_get_filename)(seg);
    if (!path) return;
    UInt oi = object_of(*seg, path);
    const Object* o = &objects[oi];
    if (!o->n_probes) return;
    // The bias: where this mapping's file offset was linked to.
    ULong off = seg->offset + (a - seg->start);
    for (UInt i = 0; i < o->n_loads; ++i) {
        const Load& l = o->loads[i];
        Addr page_off = l.offset & ~Addr(VKI_PAGE_SIZE - 1);
        if (off < page_off || off >= l.offset + l.filesz) continue;
        add_instance(oi, a - (l.vaddr - l.offset + off));
        break;
    }
    if (ww) set_semaphores(a, len);
}

void sdt_unmapped(Addr a, SizeT len) {
    bool changed = false;
    for (UInt id = 0; id < n_probes; ++id)
        if (probes[id].live && probes[id].pc >= a && probes[id].pc - a < len) {
            probes[id].live = false;
            changed = true;
        }
    for (UInt i = 0; i < n_instances; ++i)
        if (instances[i].live && instances[i].code_lo < a + len && a < instances[i].code_hi)
            instances[i].live = false;
    if (changed) index_probes();
}

IRSB* sdt_instrument(IRSB* bb, const VexGuestLayout* layout) {
    if (n_by_pc == 0) return bb;
    bool any = false;
    for (Int i = 0; i < bb->stmts_used && !any; ++i)
        any = bb->stmts[i]->tag == Ist_IMark && probe_at(bb->stmts[i]->Ist.IMark.addr) != kNoKnown;
    if (!any) return bb;
    IRSB* out = deepCopyIRSBExceptStmts(bb);
    for (Int i = 0; i < bb->stmts_used; ++i) {
        IRStmt* st = bb->stmts[i];
        addStmtToIRSB(out, st);
        if (st->tag != Ist_IMark) continue;
        Addr pc = st->Ist.IMark.addr;
        UInt id = probe_at(pc);
        if (id == kNoKnown) continue;
        // Before the probe's nop: its operands, then the call, with the
        // registers the unwinder starts from current (the stack of the
        // event is the block's stack).
        const NoteProbe& np = *probes[id].note;
        for (UInt k = 0; k < np.n_args; ++k)
            addStmtToIRSB(
                out,
                IRStmt_Store(Iend_LE, IRExpr_Const(IRConst_U64(reinterpret_cast<ULong>(&slots[k]))),
                             operand_expr(out, np.args[k])));
        addStmtToIRSB(out, IRStmt_Put(layout->offset_IP, IRExpr_Const(IRConst_U64(pc))));
        IRDirty* d = unsafeIRDirty_0_N(1, "mg_sdt_probe",
                                       VG_(fnptr_to_fnentry)(reinterpret_cast<void*>(&on_probe)),
                                       mkIRExprVec_1(IRExpr_Const(IRConst_U64(id))));
        access_annotate_unwind(d, layout);
        addStmtToIRSB(out, IRStmt_Dirty(d));
    }
    return out;
}

bool sdt_allocator_code(Addr ip) {
    for (UInt i = 0; i < n_instances; ++i)
        if (instances[i].live && instances[i].allocator && ip >= instances[i].code_lo &&
            ip < instances[i].code_hi)
            return true;
    return false;
}

void sdt_print_stats() {
    if (!stats.objects_read) return;
    VG_(umsg)
    ("memgrow: SDT probes: %'llu files read, %'u probes, %'llu semaphores set, %'llu hits, "
     "%'llu with unreadable arguments\n",
     stats.objects_read, n_probes, stats.semaphores, stats.hits, stats.unreadable);
}

} // namespace mg
