// SPDX-License-Identifier: GPL-2.0-or-later
#include "intercept/mg_sdt.hpp"
#include "scan/mg_leak.hpp"
#include "pages/mg_mapped.hpp"
#include "scan/mg_undefined.hpp"
#include "checks/mg_errors.hpp"
#include "records/mg_blocks.hpp"
#include "records/mg_symbols.hpp"
#include "records/mg_timeline.hpp"
#include "python/mg_client_memory.hpp"
#include "python/mg_python.hpp"
#include "python/mg_pylocals.hpp"
#include "python/mg_pyobject.hpp"

#include <libvex_guest_amd64.h>

namespace mg {

namespace {

constexpr usize kWord = reach::kWord;
constexpr usize kPage = reach::kPage;

VG_MINIMAL_JMP_BUF(scan_jmp);
VG_MINIMAL_JMP_BUF(read_jmp);
volatile Addr fault_addr;

void on_scan_fault(Int sig, Addr a) {
    unmask_signal(sig);
    if (sig != VKI_SIGSEGV && sig != VKI_SIGBUS) return;
    fault_addr = a;
    VG_MINIMAL_LONGJMP(scan_jmp);
}

void on_read_fault(Int sig, Addr) {
    unmask_signal(sig);
    if (sig == VKI_SIGSEGV || sig == VKI_SIGBUS) VG_MINIMAL_LONGJMP(read_jmp);
}

// Client memory as the scanner reads it: only pages the address space
// manager says the client can read, and a fault catcher for a page it is
// wrong about (a mapping changed behind its back).
struct ClientMemory {
    ULong scanned = 0;

    template <class F> void for_each_word(usize lo, usize hi, F f) {
        for_each_word_at(lo, hi, [&](usize, usize value) { f(value); });
    }

    // The same, with each word's address: f(address, value).
    template <class F> void for_each_word_at(usize lo, usize hi, F f) {
        usize begin = (lo + kWord - 1) & ~(kWord - 1);
        usize end = hi & ~(kWord - 1);
        if (begin >= end) return;
        volatile usize resume = begin;
        fault_catcher_t prev = VG_(set_fault_catcher)(on_scan_fault);
        if (VG_MINIMAL_SETJMP(scan_jmp) != 0) resume = (fault_addr & ~(kPage - 1)) + kPage;
        for (usize p = resume; p < end;) {
            usize page_end = (p & ~(kPage - 1)) + kPage;
            if (page_end > end) page_end = end;
            resume = p;
            if (VG_(am_is_valid_for_client)(p, kWord, VKI_PROT_READ)) {
                scanned += page_end - p;
                // Words the program marked undefined: no pointers, as memcheck.
                bool marked = undefined_any_in(p, page_end);
                for (; p < page_end; p += kWord) {
                    usize value = *reinterpret_cast<const volatile usize*>(p);
                    if (!marked || !undefined_word(p, value)) f(p, value);
                }
            }
            p = page_end;
        }
        VG_(set_fault_catcher)(prev);
    }

    bool read_word(usize a, usize* out) {
        if (a % kWord || !VG_(am_is_valid_for_client)(a, kWord, VKI_PROT_READ)) return false;
        fault_catcher_t prev = VG_(set_fault_catcher)(on_read_fault);
        if (VG_MINIMAL_SETJMP(read_jmp) != 0) {
            VG_(set_fault_catcher)(prev);
            return false;
        }
        *out = *reinterpret_cast<const volatile usize*>(a);
        VG_(set_fault_catcher)(prev);
        return true;
    }

    bool in_readable_file(usize a, usize* end) {
        const NSegment* seg = VG_(am_find_nsegment)(a);
        if (!seg || seg->kind != SkFileC || !seg->hasR) return false;
        *end = seg->end;
        return true;
    }

    bool in_code(usize a) {
        const NSegment* seg = VG_(am_find_nsegment)(a);
        return seg && seg->kind == SkFileC && seg->hasT;
    }

    // CPython's GC links and type pointers are followed last (holders), and
    // so are the interpreter's own C frames and memgrow's preload's (its
    // malloc and free): what they keep in registers spilled to the stack is
    // their scratch, not the program's way.
    u8 weak_edge(usize at, usize ptr, const reach::Block& target, usize parent) {
        const ScannedStack* st;
        UInt frame;
        if (!parent && leak_scan_stack_frame(at, &st, &frame) &&
            (python_in_interpreter(st->ips[frame]) || ip_in_preload(st->ips[frame])))
            return reach::kWeak;
        // A native object's static data (an extension's registries, its
        // .bss tail included): a Python way to the block wins (docs/holders.md).
        if (!parent && pyobj_on() && !python_static_data(at) && static_data_object(at))
            return reach::kWeakest;
        return pyobj_weak_edge(at, ptr, target.addr, target.size, parent) ? reach::kWeak
                                                                          : reach::kStrong;
    }
};

using Scanner = reach::Scanner<ClientMemory>;

// Stack pointers: of live threads (from their registers, at each scan) and
// of threads that have exited (their stacks may stay mapped, for reuse).
Addr* dead_sp; // by thread id, 0 when none
UInt n_dead_slots;

void on_thread_exit(ThreadId tid) {
    if (!dead_sp) {
        n_dead_slots = VG_N_THREADS;
        dead_sp = static_cast<Addr*>(VG_(calloc)("mg.leak.dead_sp", n_dead_slots, sizeof(Addr)));
    }
    if (tid < n_dead_slots) dead_sp[tid] = VG_(get_SP)(tid);
}

void on_thread_create(ThreadId, ThreadId child) {
    if (dead_sp && child < n_dead_slots) dead_sp[child] = 0;
}

// The registers of every thread memcheck scans (live ones, and those told
// to die by a thread that called exit), gathered before the memory roots
// as memcheck does, and the stack pointers among them.
struct Registers {
    UWord* values;
    UInt n, cap;
    Addr* sps;
    UInt n_sps;
};
Registers* regs_sink;
// During the teardown scan: the thread that asked, and the stack pointer
// its scan starts from (its caller's, above the preload wrapper's frame).
ThreadId sp_override_tid = VG_INVALID_THREADID;
Addr sp_override;

// The registers of every thread now (release them with release_registers).
Registers collect_registers();
void release_registers(Registers& r);

void collect_register(ThreadId tid, const HChar* name, UWord value) {
    Registers* r = regs_sink;
    if (r->n < r->cap) r->values[r->n++] = value;
    if (VG_STREQ(name, "RSP") && r->n_sps < VG_N_THREADS)
        r->sps[r->n_sps++] = tid == sp_override_tid ? sp_override : value;
}

// Where a root segment's scan starts: a thread stack's memory below its
// stack pointer is dead frames, which memcheck marks inaccessible (and the
// ABI's red zone just below it undefined, so it does not scan that either);
// the lowest stack pointer inside the segment wins.
Addr scan_floor(const NSegment* seg, const Registers& r) {
    Addr floor = seg->start;
    bool live_here = false;
    for (UInt i = 0; i < r.n_sps; ++i) {
        Addr sp = r.sps[i];
        if (sp < seg->start || sp > seg->end) continue;
        if (!live_here || sp < floor) floor = sp;
        live_here = true;
    }
    if (live_here) return floor;
    for (UInt t = 0; dead_sp && t < n_dead_slots; ++t) {
        Addr sp = dead_sp[t];
        if (!sp || sp < seg->start || sp > seg->end) continue;
        if (floor == seg->start || sp < floor) floor = sp;
    }
    return floor;
}

// Non-heap client memory memcheck treats as roots: readable and writable
// mappings that are not the client heap, except device files (reading one
// can hang) other than /dev/zero.
bool is_root_segment(const NSegment* seg) {
    if (!seg->hasR || !seg->hasW || seg->isCH) return false;
    if (seg->kind == SkFileC && (VKI_S_ISCHR(seg->mode) || VKI_S_ISBLK(seg->mode))) {
        const HChar* name = VG_(am_get_filename)(seg);
        return name && VG_STREQ(name, "/dev/zero");
    }
    return true;
}

// The CUDA driver and runtime (libcuda.so*, libcudart.so*): their static
// data and the host blocks they allocate are their bookkeeping, which holds
// every live device pointer, so it must not keep device blocks alive
// (reach::kForeign). So is a device allocator with probes (intercept/mg_sdt.hpp):
// its blocks are reached through the program's objects or lost. Other
// libraries above them (cuBLAS, NCCL) are the program's.
struct CudaObjects {
    static constexpr UInt kMax = 8;
    const HChar* file[kMax];
    Addr text_lo[kMax], text_hi[kMax], bss_lo[kMax], bss_hi[kMax];
    UInt n = 0;

    CudaObjects() {
        for (const DebugInfo* di = VG_(next_DebugInfo)(nullptr); di && n < kMax;
             di = VG_(next_DebugInfo)(di)) {
            const HChar* so = VG_(DebugInfo_get_soname)(di);
            bool driver = so && (VG_(strncmp)(so, "libcuda.so", 10) == 0 ||
                                 VG_(strncmp)(so, "libcudart.so", 12) == 0);
            // A device allocator that announces its blocks through probes
            // (PyTorch's) keeps each one in its own tables too.
            if (!driver && !sdt_allocator_code(VG_(DebugInfo_get_text_avma)(di))) continue;
            file[n] = VG_(DebugInfo_get_filename)(di);
            text_lo[n] = VG_(DebugInfo_get_text_avma)(di);
            text_hi[n] = text_lo[n] + VG_(DebugInfo_get_text_size)(di);
            bss_lo[n] = VG_(DebugInfo_get_bss_avma)(di);
            bss_hi[n] = bss_lo[n] + VG_(DebugInfo_get_bss_size)(di);
            n++;
        }
    }
    bool owns_segment(const NSegment* seg) const {
        const HChar* name = seg->kind == SkFileC ? VG_(am_get_filename)(seg) : nullptr;
        for (UInt i = 0; i < n; ++i) {
            if (name && file[i] && VG_STREQ(name, file[i])) return true;
            if (bss_lo[i] < bss_hi[i] && seg->start < bss_hi[i] && bss_lo[i] <= seg->end)
                return true;
        }
        return false;
    }
    // Allocated by their code: the innermost frame (memgrow's are left out).
    bool allocated(const Site* s) const {
        StackWord top = site_top_word(s);
        if (!s->n_frames || (top & kPythonFrameTag)) return false;
        for (UInt i = 0; i < n; ++i)
            if (top >= text_lo[i] && top < text_hi[i]) return true;
        return false;
    }
};

// A thread's stack (pthread maps them): a root from its stack pointer up,
// not a block.
bool holds_stack(const Block* m, const Registers& r) {
    auto in = [m](Addr sp) { return sp >= m->addr && sp - m->addr < m->size; };
    for (UInt i = 0; i < r.n_sps; ++i)
        if (in(r.sps[i])) return true;
    for (UInt t = 0; dead_sp && t < n_dead_slots; ++t)
        if (dead_sp[t] && in(dead_sp[t])) return true;
    return false;
}

// The memory roots: f(lo, hi, segment) for each root segment, from its scan
// floor up.
template <class F> void for_each_root_range(const Registers& regs, F f) {
    Int n_starts = 0;
    Addr* starts = VG_(get_segment_starts)(SkFileC | SkAnonC | SkShmC, &n_starts);
    for (Int i = 0; i < n_starts; ++i) {
        const NSegment* seg = VG_(am_find_nsegment)(starts[i]);
        if (!seg || !is_root_segment(seg)) continue;
        Addr floor = scan_floor(seg, regs);
        if (VG_(clo_verbosity) > 2) VG_(dmsg)
        ("memgrow: scanning root segment %#lx..%#lx from %#lx\n", seg->start, seg->end, floor);
        // The client's own mappings are roots too, as memcheck scans them
        // (its heap counts stay memcheck's); each is also a block, reached
        // or lost by the pointers to it (reach::kRoots).
        f(floor, seg->end + 1, seg);
    }
    VG_(free)(starts);
}

} // namespace

void client_memory_discard() {
    Int n_starts = 0;
    Addr* starts = VG_(get_segment_starts)(SkAnonC, &n_starts);
    for (Int i = 0; i < n_starts; ++i) {
        const NSegment* seg = VG_(am_find_nsegment)(starts[i]);
        if (!seg || seg->kind != SkAnonC) continue;
        // The arena's headers and free lists are in its client-heap
        // segments: zeroed, they fail the core's checks at exit.
        if (seg->isCH && vgc::core_walks_client_arena_at_exit()) continue;
        vgc::discard_pages(seg->start, seg->end + 1 - seg->start);
    }
    VG_(free)(starts);
}

namespace {

// with_registers: the registers' values are roots too (memcheck's scan).
// The scan when teardown begins leaves them out: at exit()'s or
// Py_FinalizeEx's entry they hold the caller's scratch values (a pointer a
// memset just returned), which the scan at exit no longer sees, and a block
// only they reach was already lost by the program.
void scan_roots(Scanner& scanner, const Registers& regs, const CudaObjects& cuda,
                bool with_registers) {
    for_each_root_range(regs, [&](Addr lo, Addr hi, const NSegment* seg) {
        scanner.scan_root_range(lo, hi, cuda.owns_segment(seg));
    });
    for (UInt i = 0; with_registers && i < regs.n; ++i)
        scanner.root_word(regs.values[i]);
}

// By address; at one address the larger block first, then a malloc()ed one
// before a custom allocator's, so that a block holding others precedes them.
Int by_address(const void* x, const void* y) {
    const Block* a = *static_cast<Block* const*>(x);
    const Block* b = *static_cast<Block* const*>(y);
    if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
    if (a->size != b->size) return a->size > b->size ? -1 : 1;
    return Int(custom_kind(a->kind)) - Int(custom_kind(b->kind));
}

LeakScan* scans[2]; // the last scan, the one before
UInt n_scans;
bool teardown_scan_done; // the scan when teardown began (not one of `scans`)

void release(LeakScan* s) {
    if (!s) return;
    VG_(free)(s->ids);
    VG_(free)(s->leaks);
    VG_(free)(s);
}

// The part a lost block belongs to: teardown's when it was reachable as
// teardown began (or born in it), else start-up's when born before
// start-up ended, else the program's.
UChar part_of(const Block* b, UInt kind, ULong startup_end) {
    if (kind == kReachable) return kOwnPart;
    if (b->by_teardown) return kTeardownPart;
    return b->birth < startup_end ? kStartupPart : kOwnPart;
}

// Sums the walk's marks per site and per kind, memcheck's way: an
// unreached block is definitely lost, and carries the bytes its clique lost.
void tally(LeakScan* out, Block** blocks, const reach::Mark* marks, UInt n) {
    // slot[id]: 1 + the index of the site's entry (0: none), numbered in
    // ascending id; only while tallying.
    UInt* slot = static_cast<UInt*>(VG_(calloc)("mg.leak.slot", out->n_sites + 1, sizeof(UInt)));
    for (UInt i = 0; i < n; ++i)
        slot[blocks[i]->site->id] = 1;
    for (UInt id = 0; id < out->n_sites; ++id)
        out->n_leaks += slot[id];
    out->ids = static_cast<UInt*>(VG_(malloc)("mg.leak.ids", (out->n_leaks + 1) * sizeof(UInt)));
    for (UInt id = 0, k = 0; id < out->n_sites; ++id)
        if (slot[id]) out->ids[k] = id, slot[id] = ++k;
    out->leaks =
        static_cast<SiteLeak*>(VG_(calloc)("mg.leak.sites", out->n_leaks + 1, sizeof(SiteLeak)));
    for (UInt i = 0; i < n; ++i) {
        const reach::Mark& m = marks[i];
        UInt k = m.state == reach::State::unreached  ? kDefinite
                 : m.state == reach::State::indirect ? kIndirect
                 : m.state == reach::State::possible ? kPossible
                                                     : kReachable;
        SizeT size = blocks[i]->size;
        SiteLeak& s = out->leaks[slot[blocks[i]->site->id] - 1];
        s.bytes[k] += size, s.blocks[k]++;
        UChar part = part_of(blocks[i], k, out->startup_end);
        PartLeak* p = part != kOwnPart ? &s.apart[part - 1] : nullptr;
        // A mapping's part keeps its site from being leaked, as a block's;
        // the scan's totals are memcheck's, of the heap alone.
        if (p) p->bytes[k] += size, p->blocks[k]++;
        if (blocks[i]->kind == AllocKind::mapped) { // beside memcheck's counts
            out->mapped_bytes[k] += size, out->mapped_blocks[k]++;
            continue;
        }
        out->bytes[k] += size, out->blocks[k]++;
        if (k == kDefinite) s.indirect_through += m.indirect;
        if (p) {
            out->part_bytes[part - 1][k] += size, out->part_blocks[part - 1][k]++;
            if (k == kDefinite) p->indirect_through += m.indirect;
        }
        if (k == kReachable && m.heuristic)
            out->heuristic_bytes[m.heuristic] += size, out->heuristic_blocks[m.heuristic]++;
    }
    VG_(free)(slot);
}

} // namespace

void leak_init() {
    VG_(track_pre_thread_ll_exit)(on_thread_exit);
    VG_(track_pre_thread_ll_create)(on_thread_create);
}

namespace {

void append(Block** all, UInt* n, Table t) {
    UInt k = 0;
    Block** some = blocks_snapshot(t, &k);
    for (UInt i = 0; i < k; ++i)
        all[(*n)++] = some[i];
    if (some) VG_(free)(some);
}

// Host, mempool, device-side and mapped blocks, by address: device pointers
// kept in host memory keep device blocks alive (virtual-memory handles are no
// addresses and stay out of the scan). As memcheck, a block that holds a
// custom allocator's block (the malloc()ed arena of a MALLOCLIKE block or a
// mempool chunk) is left out: its parts are what the program uses; so is a
// mapping that holds a thread's stack (a root).
Block** scan_blocks(UInt* n, const Registers& regs) {
    const Table tables[] = {Table::host, Table::pool, Table::device, Table::mapped};
    UInt cap = 0;
    for (Table t : tables)
        cap += blocks_count(t);
    *n = 0;
    if (!cap) return nullptr;
    auto** all = static_cast<Block**>(VG_(malloc)("mg.leak.blocks", cap * sizeof(Block*)));
    for (Table t : tables)
        append(all, n, t);
    VG_(ssort)(all, *n, sizeof(Block*), by_address);
    UInt kept = 0;
    for (UInt i = 0; i < *n; ++i) {
        const Block* b = all[i];
        const Block* next = i + 1 < *n ? all[i + 1] : nullptr;
        Addr end = b->addr + b->size;
        if (next && custom_kind(next->kind) && next->addr < end && next->addr + next->size <= end)
            continue;
        if (b->kind == AllocKind::mapped && holds_stack(b, regs)) continue;
        all[kept++] = all[i];
    }
    *n = kept;
    return all;
}

} // namespace

namespace {

// One reachability walk over every live block: the blocks by address and the
// walk's mark for each.
struct Walk {
    Block** blocks;
    reach::Mark* marks;
    UInt n;
    ULong scanned; // root and block memory read
};

Walk walk(bool with_registers) {
    Walk w;
    Registers regs = collect_registers();
    w.blocks = scan_blocks(&w.n, regs);
    UInt n = w.n;
    CudaObjects cuda;

    auto* view =
        static_cast<reach::Block*>(VG_(malloc)("mg.leak.view", (n + 1) * sizeof(reach::Block)));
    w.marks =
        static_cast<reach::Mark*>(VG_(malloc)("mg.leak.marks", (n + 1) * sizeof(reach::Mark)));
    auto* stack = static_cast<u32*>(VG_(malloc)("mg.leak.stack", (n + 1) * sizeof(u32)));
    // Without an interpreter there is no weak edge to put off.
    if (pyobj_on()) pylocals_snapshot();
    u32* deferred = pyobj_on()
                        ? static_cast<u32*>(VG_(malloc)("mg.leak.deferred", (n + 1) * sizeof(u32)))
                        : nullptr;
    for (UInt i = 0; i < n; ++i) {
        const Block* b = w.blocks[i];
        u8 flags = b->kind == AllocKind::device        ? reach::kOpaque
                   : b->kind == AllocKind::mapped      ? reach::kRoots
                   : cuda.n && cuda.allocated(b->site) ? reach::kForeign
                                                       : 0;
        view[i] = reach::Block{b->addr, b->size, flags};
    }

    ClientMemory mem;
    Scanner scanner(view, n, w.marks, stack, clo.heuristics, mem, deferred);
    scan_roots(scanner, regs, cuda, with_registers);
    // CPython 3.12 leaves its immortal objects (interned strings above all)
    // allocated at exit by design: they are roots, not leaks.
    if (clo.heuristics & reach::heuristic_bit(reach::kCPython))
        for (UInt i = 0; i < n; ++i)
            if (w.blocks[i]->kind != AllocKind::device && w.blocks[i]->kind != AllocKind::mapped &&
                python_immortal_object(w.blocks[i]->addr, w.blocks[i]->size))
                scanner.root_word(w.blocks[i]->addr);
    scanner.finish();
    w.scanned = mem.scanned;

    release_registers(regs);
    VG_(free)(stack);
    VG_(free)(deferred);
    VG_(free)(view);
    return w;
}

Registers collect_registers() {
    Registers regs;
    regs.cap = VG_N_THREADS * 32;
    regs.values = static_cast<UWord*>(VG_(malloc)("mg.leak.regs", regs.cap * sizeof(UWord)));
    regs.sps = static_cast<Addr*>(VG_(malloc)("mg.leak.sps", VG_N_THREADS * sizeof(Addr)));
    regs.n = regs.n_sps = 0;
    regs_sink = &regs;
    VG_(apply_to_GP_regs)(collect_register);
    return regs;
}

void release_registers(Registers& r) {
    VG_(free)(r.values);
    VG_(free)(r.sps);
}

Addr searched;
SizeT searched_len;

// A word holding a pointer into the searched range, as memcheck prints it.
void report_pointer(Addr at, Addr value) {
    if (value < searched || value >= searched + searched_len) return;
    if (value == searched)
        VG_(umsg)("*%#lx points at %#lx\n", at, searched);
    else
        VG_(umsg)
    ("*%#lx interior points at %lu bytes inside %#lx\n", at, value - searched, searched);
    pp_describe_address(at);
}

void report_register(ThreadId tid, const HChar* name, UWord value) {
    if (value < searched || value >= searched + searched_len) return;
    if (value == searched)
        VG_(umsg)("tid %u register %s pointing at %#lx\n", tid, name, searched);
    else
        VG_(umsg)
    ("tid %u register %s interior pointing %lu bytes inside %#lx\n", tid, name, value - searched,
     searched);
}

} // namespace

void leak_who_points_at(Addr a, SizeT len) {
    if (len == 1)
        VG_(umsg)("Searching for pointers to %#lx\n", a);
    else
        VG_(umsg)("Searching for pointers pointing in %lu bytes from %#lx\n", len, a);
    searched = a;
    searched_len = len;
    ClientMemory mem;
    Registers regs = collect_registers();
    for_each_root_range(regs, [&](Addr lo, Addr hi, const NSegment*) {
        mem.for_each_word_at(lo, hi, report_pointer);
    });
    // The blocks the leak scan reads (device memory is not host memory).
    UInt n = 0;
    Block** blocks = scan_blocks(&n, regs);
    release_registers(regs);
    for (UInt i = 0; i < n; ++i)
        if (blocks[i]->kind != AllocKind::device)
            mem.for_each_word_at(blocks[i]->addr, blocks[i]->addr + blocks[i]->size,
                                 report_pointer);
    if (blocks) VG_(free)(blocks);
    VG_(apply_to_GP_regs)(report_register);
}

namespace {

void release(Walk& w) {
    VG_(free)(w.marks);
    if (w.blocks) VG_(free)(w.blocks);
}

} // namespace

namespace {

// The last scan's blocks (leak_scan_blocks), and blocks_disposed() then.
ScannedBlock* kept_blocks;
UInt n_kept_blocks;
ULong kept_disposed;

void keep_blocks(const Walk& w, ULong startup_end) {
    n_kept_blocks = w.n;
    kept_disposed = blocks_disposed();
    kept_blocks =
        static_cast<ScannedBlock*>(VG_(malloc)("mg.leak.kept", (w.n + 1) * sizeof(ScannedBlock)));
    for (UInt i = 0; i < w.n; ++i) {
        const reach::Mark& m = w.marks[i];
        const Block* b = w.blocks[i];
        UChar k = m.state == reach::State::unreached  ? kDefinite
                  : m.state == reach::State::indirect ? kIndirect
                  : m.state == reach::State::possible ? kPossible
                                                      : kReachable;
        ULong via = k == kDefinite ? kNotReached : m.indirect;
        kept_blocks[i] = ScannedBlock{
            b->addr, b->size, via, b->site->id, k, m.heuristic, part_of(b, k, startup_end)};
    }
}

} // namespace

namespace {

ScannedStack* kept_stacks;
UInt n_kept_stacks;

// The live threads' stacks now. The scan at the process's end finds no live
// thread: the stacks saved when teardown began (exit()'s entry, where main's
// frame is still what the program left) name its stack roots then.
void keep_stacks() {
    if (!kept_stacks)
        kept_stacks = static_cast<ScannedStack*>(
            VG_(malloc)("mg.leak.stacks", VG_N_THREADS * sizeof(ScannedStack)));
    ThreadId tid;
    Addr lo, hi;
    VG_(thread_stack_reset_iter)(&tid);
    UInt n = 0;
    while (VG_(thread_stack_next)(&tid, &lo, &hi) && n < VG_N_THREADS) {
        if (!n) n_kept_stacks = 0; // live threads: they replace the last ones
        ScannedStack& s = kept_stacks[n++];
        n_kept_stacks = n;
        s.tid = tid;
        s.top = hi;
        s.n = VG_(get_StackTrace)(tid, s.ips, ScannedStack::kFrames, s.sps, nullptr, 0);
        s.thread = vgc::guest_register(tid, offsetof(VexGuestAMD64State, guest_FS_CONST));
    }
}

} // namespace

const ScannedStack* leak_scan_stacks(UInt* n) {
    *n = n_kept_stacks;
    return kept_stacks;
}

bool leak_scan_thread_storage(Addr a, const ScannedStack** stack) {
    // x86-64 (TLS variant II): the static TLS blocks end at the thread
    // pointer; glibc's struct pthread (the TCB, with the first 32
    // pthread_setspecific values) begins there. Both bounds are generous.
    constexpr Addr kStaticTls = 16 << 10, kControlBlock = 4 << 10;
    for (UInt s = 0; s < n_kept_stacks; ++s) {
        Addr tp = kept_stacks[s].thread;
        if (tp > kStaticTls && a >= tp - kStaticTls && a < tp + kControlBlock &&
            VG_(am_find_nsegment)(a) == VG_(am_find_nsegment)(tp)) {
            *stack = &kept_stacks[s];
            return true;
        }
    }
    return false;
}

bool leak_scan_stack_frame(Addr a, const ScannedStack** stack, UInt* frame) {
    for (UInt s = 0; s < n_kept_stacks; ++s) {
        const ScannedStack& st = kept_stacks[s];
        if (!st.n || a < st.sps[0] || a > st.top) continue;
        UInt f = 0;
        while (f + 1 < st.n && st.sps[f + 1] <= a)
            ++f;
        *stack = &st, *frame = f;
        return true;
    }
    return false;
}

const ScannedBlock* leak_scan_blocks(UInt* n, bool* obsolete) {
    *n = n_kept_blocks;
    *obsolete = kept_disposed != blocks_disposed();
    return kept_blocks;
}

void leak_scan_forget_blocks() {
    if (kept_blocks) VG_(free)(kept_blocks);
    kept_blocks = nullptr;
    n_kept_blocks = 0;
}

const LeakScan* leak_scan() {
    // The previous scan's blocks go first: never two scans' blocks at once.
    leak_scan_forget_blocks();
    keep_stacks(); // the walk asks which frame owns a root word
    Walk w = walk(true);
    auto* out = static_cast<LeakScan*>(VG_(calloc)("mg.leak.scan", 1, sizeof(LeakScan)));
    out->number = ++n_scans;
    out->n_sites = site_count();
    out->startup_end = timeline_startup_end();
    tally(out, w.blocks, w.marks, w.n);
    out->scanned_bytes = w.scanned;
    out->teardown_scanned = teardown_scan_done;
    keep_blocks(w, out->startup_end);
    release(w);
    if (scans[0] && leak_scan_empty(scans[0])) {
        out->after_empty = true;
        release(scans[0]);
    } else {
        release(scans[1]);
        scans[1] = scans[0];
    }
    scans[0] = out;
    return out;
}

void leak_scan_teardown(ThreadId tid, Addr caller_sp, bool for_leaks) {
    if (teardown_scan_done) return;
    teardown_scan_done = for_leaks;
    if (caller_sp > VG_(get_SP)(tid)) sp_override_tid = tid, sp_override = caller_sp;
    keep_stacks();
    Walk w = walk(false);
    sp_override_tid = VG_INVALID_THREADID;
    for (UInt i = 0; for_leaks && i < w.n; ++i)
        if (w.marks[i].state == reach::State::reachable) w.blocks[i]->by_teardown = 1;
    // For the holders, while the program's structures are still whole.
    leak_scan_forget_blocks();
    keep_blocks(w, timeline_startup_end());
    release(w);
}

void leak_scan_for_holders() {
    leak_scan_forget_blocks();
    keep_stacks();
    Walk w = walk(true);
    keep_blocks(w, timeline_startup_end());
    release(w);
}

void leak_forget_dead_stack(ThreadId tid) {
    Addr sp = VG_(get_SP)(tid), highest = VG_(thread_get_stack_max)(tid);
    Addr lowest = highest + 1 - VG_(thread_get_stack_size)(tid);
    const NSegment* seg = VG_(am_find_nsegment)(sp);
    // Only the thread's own stack, as the core knows it (not an alternate
    // signal stack or a coroutine's, which may share a mapping with other
    // data), and only the mapped part of it (the main thread's grows down
    // on demand).
    if (sp <= lowest || sp > highest) return;
    if (!seg || seg->kind != SkAnonC || !seg->hasW || seg->isCH) return;
    Addr lo = seg->start > lowest ? seg->start : lowest;
    if (sp <= lo) return;
    Addr page = VG_PGROUNDDN(sp);
    if (page > lo) vgc::discard_pages(VG_PGROUNDUP(lo), page - VG_PGROUNDUP(lo));
    Addr from = page > lo ? page : lo;
    VG_(memset)(reinterpret_cast<void*>(from), 0, sp - from);
}

void block_born_in_teardown(Block* b) {
    if (teardown_scan_done) b->by_teardown = 1;
}

const LeakScan* leak_scan_last() {
    return scans[0];
}

const LeakScan* leak_scan_previous() {
    return scans[1];
}

bool leak_scan_empty(const LeakScan* s) {
    ULong blocks = 0;
    for (UInt k = 0; k < kLeakKinds; ++k)
        blocks += s->blocks[k];
    return blocks == 0;
}

} // namespace mg
