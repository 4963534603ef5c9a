// SPDX-License-Identifier: GPL-2.0-or-later
#include "pages/mg_cow.hpp"
#include "checks/mg_access.hpp"
#include "checks/mg_sp_offsets.hpp"
#include "records/mg_blocks.hpp"
#include "records/mg_stack_tree.hpp"
#include "pub_tool_vkiscnums.h"

namespace mg {

bool cow_on = false;

namespace {

// One byte per 4 KiB page of the low 128 GiB, where Valgrind places the
// client: 1 while the page is shared with the parent. Higher addresses
// alias lower ones in the inline check and are not followed (the slow path
// ignores them). 32 MiB of the tool's bss: zero pages that only a forked
// child touches (a page of the map per 16 MiB of client pages), and below
// 2 GiB (the tool's image is), so that the inline check's load takes the
// map's address as a 32-bit displacement.
constexpr UInt kPageBits = 12;
constexpr UInt kMapBits = 25;
constexpr Addr kLimit = Addr(1) << (kPageBits + kMapBits);
alignas(4096) UChar shared[SizeT(1) << kMapBits];

Int parent_pid;
ULong inherited, copied;
Addr stack_lo, stack_hi; // the forking thread's stack

// The live host blocks at the fork, by address (custom allocators' blocks
// lie inside malloc()ed ones: their holder's site takes their pages).
cow::Span* spans;
UInt n_spans;

// Copied bytes by site id (sites made after the fork never held a page).
ULong* site_bytes;
UInt n_fork_sites;
ULong region_bytes[cow::kRegions];

// Bytes by the stack of the first write, a small open-addressed table.
CowWriter* writers;
UInt n_writers, writers_cap;

// The summary's sorted copies.
CowSiteBytes* sorted_sites;
CowWriter* sorted_writers;
CowSummary summary;

void add_writer(UInt stack, ULong bytes) {
    if ((n_writers + 1) * 2 > writers_cap) {
        UInt cap = writers_cap ? writers_cap * 2 : 256;
        auto* grown =
            static_cast<CowWriter*>(VG_(calloc)("mg.cow.writers", cap, sizeof(CowWriter)));
        for (UInt i = 0; i < writers_cap; ++i) {
            if (!writers[i].bytes) continue;
            UInt h = writers[i].stack * 2654435761u & (cap - 1);
            while (grown[h].bytes)
                h = (h + 1) & (cap - 1);
            grown[h] = writers[i];
        }
        if (writers) VG_(free)(writers);
        writers = grown, writers_cap = cap;
    }
    UInt h = stack * 2654435761u & (writers_cap - 1);
    while (writers[h].bytes && writers[h].stack != stack)
        h = (h + 1) & (writers_cap - 1);
    if (!writers[h].bytes) writers[h] = CowWriter{stack, VG_(current_DiEpoch)(), 0}, ++n_writers;
    writers[h].bytes += bytes;
}

bool in_bss(Addr a) {
    for (const DebugInfo* di = VG_(next_DebugInfo)(nullptr); di; di = VG_(next_DebugInfo)(di)) {
        Addr lo = VG_(DebugInfo_get_bss_avma)(di);
        if (a + cow::kPageBytes > lo && a < lo + VG_(DebugInfo_get_bss_size)(di)) return true;
    }
    return false;
}

cow::Region region_of(Addr page) {
    if (page < stack_hi && page + cow::kPageBytes > stack_lo) return cow::Region::stack;
    const NSegment* seg = VG_(am_find_nsegment)(page);
    if (seg && seg->kind == SkFileC) return cow::Region::static_data;
    if (seg && seg->isCH) return cow::Region::free_heap;
    return in_bss(page) ? cow::Region::static_data : cow::Region::mapped;
}

void charge_site(u32 site, u64 bytes) {
    if (site < n_fork_sites) site_bytes[site] += bytes;
}

// The first write to a shared page: the kernel copies it.
void copy_page(ThreadId tid, Addr page) {
    shared[page >> kPageBits] = 0;
    copied += cow::kPageBytes;
    if (!cow::share_page(spans, n_spans, page, charge_site))
        region_bytes[static_cast<UInt>(region_of(page))] += cow::kPageBytes;
    add_writer(current_stack_node(tid), cow::kPageBytes);
}

// The inline check found a shared page, or a store crossing into the next
// page: the slow path looks at each page. One helper per size that is a
// power of 2 up to 32: the size is no argument to pass at each store.
template <SizeT N> void store_slow_n(Addr a) {
    cow_write_slow(VG_(get_running_tid)(), a, N);
}
void store_slow(Addr a, SizeT n) {
    cow_write_slow(VG_(get_running_tid)(), a, n);
}
void* const kSlowBySize[] = {
    reinterpret_cast<void*>(&store_slow_n<1>),  reinterpret_cast<void*>(&store_slow_n<2>),
    reinterpret_cast<void*>(&store_slow_n<4>),  reinterpret_cast<void*>(&store_slow_n<8>),
    reinterpret_cast<void*>(&store_slow_n<16>), reinterpret_cast<void*>(&store_slow_n<32>)};

// Marks the resident pages of a private writable client segment shared
// (mincore: a page never touched is not copied, the kernel maps a fresh one).
void share_segment(const NSegment& seg) {
    if (!seg.hasW || seg.start >= kLimit) return;
    Addr end = seg.end + 1 < kLimit ? seg.end + 1 : kLimit;
    SizeT pages = (end - seg.start) >> kPageBits;
    auto* in_core = static_cast<UChar*>(VG_(malloc)("mg.cow.mincore", pages));
    SysRes r = vgc::VG_(do_syscall)(__NR_mincore, seg.start, end - seg.start,
                                    reinterpret_cast<UWord>(in_core), 0, 0, 0, 0, 0);
    for (SizeT i = 0; i < pages; ++i) {
        if (!sr_isError(r) && !(in_core[i] & 1)) continue;
        shared[(seg.start >> kPageBits) + i] = 1;
        inherited += cow::kPageBytes;
    }
    VG_(free)(in_core);
}

// A MAP_SHARED mapping, anonymous or of a file, is the parent's memory too:
// the child writes it in place, nothing is copied. Valgrind's segments do
// not say shared from private; /proc/self/maps does.
void unshare_shared_mappings() {
    SysRes r = VG_(open)("/proc/self/maps", VKI_O_RDONLY, 0);
    if (sr_isError(r)) return;
    Int fd = static_cast<Int>(sr_Res(r));
    constexpr Int kBuf = 16384; // a line is at most a path (4096) and its fields
    auto* buf = static_cast<HChar*>(VG_(malloc)("mg.cow.maps", kBuf + 1));
    Int have = 0;
    bool in_long_line = false; // the rest of a line longer than the buffer
    for (Int n; (n = VG_(read)(fd, buf + have, kBuf - have)) > 0;) {
        have += n;
        buf[have] = 0;
        HChar* line = buf;
        for (HChar* nl; (nl = VG_(strchr)(line, '\n')); line = nl + 1) {
            *nl = 0;
            u64 lo, hi;
            if (!in_long_line && cow::shared_mapping(line, &lo, &hi))
                for (Addr page = lo; page < hi && page < kLimit; page += cow::kPageBytes)
                    if (shared[page >> kPageBits]) {
                        shared[page >> kPageBits] = 0;
                        inherited -= cow::kPageBytes;
                    }
            in_long_line = false;
        }
        have -= static_cast<Int>(line - buf);
        VG_(memmove)(buf, line, have);
        if (have == kBuf) in_long_line = true, have = 0;
    }
    VG_(free)(buf);
    VG_(close)(fd);
}

Int by_address(const void* x, const void* y) {
    Addr a = (*static_cast<Block*const*>(x))->addr, b = (*static_cast<Block*const*>(y))->addr;
    return a < b ? -1 : a > b ? 1 : 0;
}

void snapshot_blocks() {
    UInt n = 0;
    Block** all = blocks_snapshot(Table::host, &n);
    if (!all) return;
    VG_(ssort)(all, n, sizeof(Block*), by_address);
    spans = static_cast<cow::Span*>(VG_(malloc)("mg.cow.spans", (n + 1) * sizeof(cow::Span)));
    for (UInt i = 0; i < n; ++i)
        if (!custom_kind(all[i]->kind) && all[i]->size)
            spans[n_spans++] = cow::Span{all[i]->addr, all[i]->size, all[i]->site->id};
    VG_(free)(all);
}

IRExpr* c64(ULong v) {
    return IRExpr_Const(IRConst_U64(v));
}
IRExpr* u8(UInt v) {
    return IRExpr_Const(IRConst_U8(static_cast<UChar>(v)));
}

IRExpr* tmp(IRSB* sb, IRType ty, IRExpr* e) {
    IRTemp t = newIRTemp(sb->tyenv, ty);
    addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
    return IRExpr_RdTmp(t);
}

// The byte of the map for the page of a: shared[(a >> 12) & mask].
IRExpr* page_byte(IRSB* sb, IRExpr* a) {
    IRExpr* idx = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shr64, a, u8(kPageBits)));
    idx = tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, idx, c64((1ull << kMapBits) - 1)));
    IRExpr* at =
        tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, idx, c64(reinterpret_cast<ULong>(&shared[0]))));
    return tmp(sb, Ity_I8, IRExpr_Load(Iend_LE, Ity_I8, at));
}

// After a store of n bytes at addr: the slow path when the map byte of the
// page of its first byte is set, or when the store crosses into the next
// page (rare; its first byte's page may be copied and the next shared).
void add_check(IRSB* sb, const VexGuestLayout* layout, IRExpr* addr, UInt n, IRExpr* guard) {
    if (n == 0) return;
    if (!isIRAtom(addr)) addr = tmp(sb, Ity_I64, addr);
    IRExpr* cond = nullptr;
    if (n < cow::kPageBytes) {
        IRExpr* v = tmp(sb, Ity_I64, IRExpr_Unop(Iop_8Uto64, page_byte(sb, addr)));
        if (n > 1) { // 1 when the store crosses: ((addr & 4095) + n - 1) >> 12
            IRExpr* off = tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, addr, c64(cow::kPageBytes - 1)));
            IRExpr* end = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, off, c64(n - 1)));
            IRExpr* cross = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shr64, end, u8(kPageBits)));
            v = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Or64, v, cross));
        }
        cond = tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, v, c64(0)));
    }
    if (guard) cond = cond ? tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, cond, guard)) : guard;
    UInt log = 0;
    while (log < 6 && (1u << log) < n)
        ++log;
    IRDirty* d =
        log < 6 && (1u << log) == n
            ? unsafeIRDirty_0_N(0, "mg_cow_store", VG_(fnptr_to_fnentry)(kSlowBySize[log]),
                                mkIRExprVec_1(addr))
            : unsafeIRDirty_0_N(0, "mg_cow_store",
                                VG_(fnptr_to_fnentry)(reinterpret_cast<void*>(&store_slow)),
                                mkIRExprVec_2(addr, IRExpr_Const(IRConst_U64(n))));
    if (cond) d->guard = cond;
    access_annotate_unwind(d, layout); // the first write's stack is unwound
    addStmtToIRSB(sb, IRStmt_Dirty(d));
}

UInt size_of(IRSB* sb, IRExpr* e) {
    return static_cast<UInt>(sizeofIRType(typeOfIRExpr(sb->tyenv, e)));
}

Int by_bytes_desc(ULong a, ULong b) {
    return a > b ? -1 : a < b ? 1 : 0;
}
Int sites_desc(const void* x, const void* y) {
    auto* a = static_cast<const CowSiteBytes*>(x);
    auto* b = static_cast<const CowSiteBytes*>(y);
    Int c = by_bytes_desc(a->bytes, b->bytes);
    return c ? c : a->site < b->site ? -1 : 1;
}
Int writers_desc(const void* x, const void* y) {
    auto* a = static_cast<const CowWriter*>(x);
    auto* b = static_cast<const CowWriter*>(y);
    Int c = by_bytes_desc(a->bytes, b->bytes);
    return c ? c : a->stack < b->stack ? -1 : a->stack > b->stack ? 1 : 0;
}

} // namespace

// A child of a forked child starts over: what its parent tracked of its own
// fork is not this process's.
void forget_parents_fork() {
    if (cow_on) vgc::discard_pages(reinterpret_cast<Addr>(shared), sizeof shared);
    if (spans) VG_(free)(spans);
    if (writers) VG_(free)(writers);
    if (sorted_sites) VG_(free)(sorted_sites);
    if (sorted_writers) VG_(free)(sorted_writers);
    spans = nullptr, writers = nullptr, sorted_sites = nullptr, sorted_writers = nullptr;
    n_spans = n_writers = writers_cap = 0;
    inherited = copied = 0;
    for (ULong& r : region_bytes)
        r = 0;
    summary = CowSummary();
    if (site_bytes) // its pages given back; the child makes its own (there may be more sites)
        vgc::discard_pages(reinterpret_cast<Addr>(site_bytes), (n_fork_sites + 1) * sizeof(ULong));
    site_bytes = nullptr, n_fork_sites = 0;
    cow_on = false;
}

void cow_at_fork(ThreadId tid) {
    forget_parents_fork();
    parent_pid = VG_(getppid)();
    stack_hi = VG_(thread_get_stack_max)(tid);
    stack_lo = stack_hi - VG_(thread_get_stack_size)(tid);
    // The start of each client segment (a first guess, then the count asked).
    Int cap = 1024, n;
    Addr* starts;
    for (;;) {
        starts = static_cast<Addr*>(VG_(malloc)("mg.cow.segs", cap * sizeof(Addr)));
        n = VG_(am_get_segment_starts)(SkAnonC | SkFileC, starts, cap);
        if (n >= 0) break;
        VG_(free)(starts);
        cap = -n;
    }
    for (Int i = 0; i < n; ++i)
        if (const NSegment* seg = VG_(am_find_nsegment)(starts[i])) share_segment(*seg);
    VG_(free)(starts);
    unshare_shared_mappings();
    snapshot_blocks();
    n_fork_sites = site_count();
    site_bytes = static_cast<ULong*>(vgc::fresh_pages((n_fork_sites + 1) * sizeof(ULong)));
    if (!site_bytes) n_fork_sites = 0;
    // The forking thread's stack is written at once (every call and return
    // does) and its stores near SP are not checked: its pages are copied
    // at the fork, written by the fork's stack.
    for (Addr page = cow::first_page(stack_lo); page < stack_hi && page < kLimit;
         page += cow::kPageBytes)
        if (shared[page >> kPageBits]) copy_page(tid, page);
    cow_on = true;
    // Every translation so far was made without the checks.
    vgc::discard_all_translations("memgrow: forked child");
}

void cow_write_slow(ThreadId tid, Addr a, SizeT n) {
    Addr last = cow::last_page(a, n);
    for (Addr page = cow::first_page(a); page <= last && page < kLimit; page += cow::kPageBytes)
        if (shared[page >> kPageBits]) copy_page(tid, page);
}

bool cow_helper(const IRDirty* d) {
    if (d->cee->addr == VG_(fnptr_to_fnentry)(reinterpret_cast<void*>(&store_slow))) return true;
    for (void* f : kSlowBySize)
        if (d->cee->addr == VG_(fnptr_to_fnentry)(f)) return true;
    return false;
}

void cow_unmapped(Addr a, SizeT len) {
    if (!cow_on || !len) return;
    Addr last = cow::last_page(a, len);
    for (Addr page = cow::first_page(a); page <= last && page < kLimit; page += cow::kPageBytes)
        if (shared[page >> kPageBits]) shared[page >> kPageBits] = 0;
}

// mremap moved [from, from+len) to `to` (its old extent is unmapped next):
// the pages keep their state, shared with the parent until written.
void cow_remapped(Addr from, Addr to, SizeT len) {
    if (!cow_on) return;
    for (SizeT off = 0; off < len; off += cow::kPageBytes)
        if (to + off < kLimit)
            shared[(to + off) >> kPageBits] =
                from + off < kLimit ? shared[(from + off) >> kPageBits] : 0;
}

// The check follows the store (the page is copied all the same, and the
// instruction's IP is still current): the access checks then still see a
// read-modify-write's load and store side by side and check them once.
// Stores near SP (calls, pushes, spills, locals: most of a function's) are
// not checked: the forking thread's stack was copied at the fork.
IRSB* cow_instrument(IRSB* in, const VexGuestLayout* layout) {
    IRSB* out = deepCopyIRSBExceptStmts(in);
    SpOffsets sp(in->tyenv->types_used);
    auto check = [&](IRExpr* addr, UInt n, IRExpr* guard) {
        if (!sp.near_sp(addr, n)) add_check(out, layout, addr, n, guard);
    };
    for (Int i = 0; i < in->stmts_used; ++i) {
        IRStmt* st = in->stmts[i];
        addStmtToIRSB(out, st);
        switch (st->tag) {
        case Ist_Store:
            check(st->Ist.Store.addr, size_of(in, st->Ist.Store.data), nullptr);
            break;
        case Ist_StoreG: {
            IRStoreG* g = st->Ist.StoreG.details;
            check(g->addr, size_of(in, g->data), g->guard);
            break;
        }
        case Ist_CAS: {
            IRCAS* c = st->Ist.CAS.details;
            check(c->addr, size_of(in, c->expdLo) * (c->expdHi ? 2 : 1), nullptr);
            break;
        }
        case Ist_LLSC:
            if (st->Ist.LLSC.storedata)
                check(st->Ist.LLSC.addr, size_of(in, st->Ist.LLSC.storedata), nullptr);
            break;
        case Ist_Dirty: {
            IRDirty* d = st->Ist.Dirty.details;
            if (d->mAddr && (d->mFx == Ifx_Write || d->mFx == Ifx_Modify))
                check(d->mAddr, static_cast<UInt>(d->mSize), d->guard);
            break;
        }
        default:
            break;
        }
        sp.after(st, in->tyenv, layout->offset_SP);
    }
    return out;
}

const CowSummary* cow_summary() {
    if (!cow_on) return nullptr;
    if (sorted_sites) VG_(free)(sorted_sites);
    if (sorted_writers) VG_(free)(sorted_writers);
    UInt n = 0;
    for (UInt id = 0; id < n_fork_sites; ++id)
        n += site_bytes[id] != 0;
    sorted_sites =
        static_cast<CowSiteBytes*>(VG_(malloc)("mg.cow.summary", (n + 1) * sizeof(CowSiteBytes)));
    n = 0;
    for (UInt id = 0; id < n_fork_sites; ++id)
        if (site_bytes[id]) sorted_sites[n++] = CowSiteBytes{id, site_bytes[id]};
    VG_(ssort)(sorted_sites, n, sizeof(CowSiteBytes), sites_desc);
    sorted_writers =
        static_cast<CowWriter*>(VG_(malloc)("mg.cow.summary", (n_writers + 1) * sizeof(CowWriter)));
    UInt w = 0;
    for (UInt i = 0; i < writers_cap; ++i)
        if (writers[i].bytes) sorted_writers[w++] = writers[i];
    VG_(ssort)(sorted_writers, w, sizeof(CowWriter), writers_desc);
    summary = CowSummary{parent_pid, inherited, copied, sorted_sites, n, {}, sorted_writers, w};
    for (UInt r = 0; r < cow::kRegions; ++r)
        summary.region_bytes[r] = region_bytes[r];
    return &summary;
}

bool cow_site_copied(UInt site) {
    return cow_on && site < n_fork_sites && site_bytes[site];
}

} // namespace mg
