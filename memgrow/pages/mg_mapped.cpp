// SPDX-License-Identifier: GPL-2.0-or-later
#include "pages/mg_mapped.hpp"
#include "intercept/mg_device.hpp"
#include "records/mg_symbols.hpp"
#include "records/mg_timeline.hpp"
extern "C" {
#include "pub_tool_oset.h"
#include "pub_tool_vkiscnums.h"
}

namespace mg {

namespace {

constexpr UWord kMapAnonymous = 0x20; // amd64 Linux
// madvise advice that gives the pages back (amd64 Linux).
constexpr UWord kMadvDontneed = 4, kMadvFree = 8, kMadvRemove = 9;

// The mappings by address (the blocks are in Table::mapped by start too):
// mappings do not overlap, so "holds a" is an order.
struct Node {
    Addr start;
    Block* block;
};
OSet* nodes;
Addr brk_top; // the client's break as last seen (0 before its first brk)

Word node_cmp(const void* key, const void* elem) {
    Addr k = *static_cast<const Addr*>(key);
    const Block* b = static_cast<const Node*>(elem)->block;
    if (k < b->addr) return -1;
    return k - b->addr >= b->size ? 1 : 0;
}

void add_node(Block* b) {
    auto* n = static_cast<Node*>(VG_(OSetGen_AllocNode)(nodes, sizeof(Node)));
    *n = Node{b->addr, b};
    VG_(OSetGen_Insert)(nodes, n);
}

void remove_node(Addr start) {
    VG_(OSetGen_FreeNode)(nodes, VG_(OSetGen_Remove)(nodes, &start));
}

// Made by the dynamic loader (a library's bss, its own small allocations):
// static data, not a site of the program.
bool by_loader(ThreadId tid) {
    return in_loader(VG_(get_IP)(tid));
}

// The loader's own anonymous mappings (a few at start-up), remembered to
// name what they hold (mapped_by_loader); those past the table go unnamed.
struct Range {
    Addr lo, hi;
};
constexpr UInt kLoaderMaps = 32;
Range loader_maps[kLoaderMaps];
UInt n_loader_maps;

void forget_loader_maps(Addr lo, Addr hi) {
    UInt m = 0;
    for (UInt i = 0; i < n_loader_maps; ++i)
        if (loader_maps[i].hi <= lo || loader_maps[i].lo >= hi) loader_maps[m++] = loader_maps[i];
    n_loader_maps = m;
}

void map(ThreadId tid, Addr a, SizeT len) {
    if (!len) return;
    Site* s = site_of_current_stack(tid, Space::mapped, 0);
    Block* b = block_new(Table::mapped, a, len, s, AllocKind::mapped);
    b->birth = clock_end();
    timeline_alloc(s, len);
    add_node(b);
}

// Ends [lo, hi) of every tracked mapping: a mapping wholly inside goes, one
// cut at an end shrinks, one with a hole in its middle splits in two (the
// same site and birth).
void unmap(Addr lo, Addr hi) {
    while (lo < hi) {
        Node* n = static_cast<Node*>(VG_(OSetGen_Lookup)(nodes, &lo));
        if (!n) {
            VG_(OSetGen_ResetIterAt)(nodes, &lo);
            n = static_cast<Node*>(VG_(OSetGen_Next)(nodes));
            if (!n || n->start >= hi) return;
        }
        Block* b = n->block;
        Addr s = b->addr, e = b->addr + b->size;
        Addr cut_lo = lo > s ? lo : s, cut_hi = hi < e ? hi : e;
        remove_node(s);
        if (s >= cut_lo && cut_hi >= e) { // all of it
            block_remove(Table::mapped, s);
            timeline_free(b->site, b->size);
            block_dispose(b);
        } else if (s < cut_lo) { // the part below stays where it was
            timeline_resize(b->site, b->size, b->size - (cut_hi - cut_lo));
            b->size = cut_lo - s;
            add_node(b);
            if (cut_hi < e) {
                Block* right = block_new(Table::mapped, cut_hi, e - cut_hi, b->site, b->kind);
                right->birth = b->birth;
                timeline_split(b->site);
                add_node(right);
            }
        } else { // the part above stays
            timeline_resize(b->site, b->size, e - cut_hi);
            block_move(Table::mapped, b, cut_hi);
            b->size = e - cut_hi;
            add_node(b);
        }
        lo = cut_hi;
    }
}

// Whether a mapping made now by tid is a site of the program's: not the
// loader's, not the CUDA driver's inside a call the wrappers record.
bool client_site(ThreadId tid) {
    return !by_loader(tid) && !device_in_call(tid);
}

// mprotect gives access to [lo, hi): the anonymous parts no tracked mapping
// covers are committed (a reservation made PROT_NONE, used from now on).
void commit(ThreadId tid, Addr lo, Addr hi) {
    while (lo < hi) {
        const Block* m = mapped_at_or_after(lo);
        Addr gap_end = m && m->addr < hi ? m->addr : hi;
        while (lo < gap_end) {
            const NSegment* seg = VG_(am_find_nsegment)(lo);
            if (!seg) return;
            Addr end = seg->end + 1 < gap_end ? seg->end + 1 : gap_end;
            if (seg->kind == SkAnonC && !seg->isCH) map(tid, lo, end - lo);
            lo = end;
        }
        if (m && m->addr < hi) lo = m->addr + m->size;
    }
}

SizeT page_up(SizeT n) {
    return (n + VKI_PAGE_SIZE - 1) & ~SizeT(VKI_PAGE_SIZE - 1);
}

} // namespace

void mapped_init() {
    nodes = VG_(OSetGen_Create)(offsetof(Node, start), node_cmp, VG_(malloc), "mg.mapped.nodes",
                                VG_(free));
}

void mapped_release_all() {
    VG_(OSetGen_Destroy)(nodes);
    mapped_init();
}

const Block* mapped_at_or_after(Addr a) {
    if (const Node* n = static_cast<const Node*>(VG_(OSetGen_Lookup)(nodes, &a))) return n->block;
    VG_(OSetGen_ResetIterAt)(nodes, &a);
    const Node* n = static_cast<const Node*>(VG_(OSetGen_Next)(nodes));
    return n ? n->block : nullptr;
}

bool mapped_by_loader(Addr a) {
    for (UInt i = 0; i < n_loader_maps; ++i)
        if (a >= loader_maps[i].lo && a < loader_maps[i].hi) return true;
    return false;
}

void mapped_post_syscall(ThreadId tid, UInt sysno, const UWord* args, SysRes res) {
    if (sr_isError(res)) return;
    switch (sysno) {
    case __NR_mmap: {
        // A fixed mapping replaces what was there.
        Addr a = sr_Res(res);
        SizeT len = page_up(args[1]);
        unmap(a, a + len);
        forget_loader_maps(a, a + len);
        // A PROT_NONE mapping is address space reserved, not memory (yet).
        if ((args[3] & kMapAnonymous) && args[2] != VKI_PROT_NONE && client_site(tid))
            map(tid, a, len);
        else if ((args[3] & kMapAnonymous) && by_loader(tid) && n_loader_maps < kLoaderMaps)
            loader_maps[n_loader_maps++] = Range{a, a + len};
        break;
    }
    case __NR_mprotect: {
        Addr a = args[0], end = args[0] + page_up(args[1]);
        if (args[2] == VKI_PROT_NONE)
            unmap(a, end);
        else if (client_site(tid))
            commit(tid, a, end);
        break;
    }
    case __NR_munmap:
        unmap(args[0], args[0] + page_up(args[1]));
        forget_loader_maps(args[0], args[0] + page_up(args[1]));
        timeline_pages_released(page_up(args[1]));
        break;
    case __NR_madvise:
        if (args[2] == kMadvDontneed || args[2] == kMadvFree || args[2] == kMadvRemove)
            timeline_pages_released(page_up(args[1]));
        break;
    case __NR_mremap: {
        // As realloc: the old extent ends, the new one is the mremap's.
        Addr from = args[0], to = sr_Res(res);
        SizeT old_len = page_up(args[1]), new_len = page_up(args[2]);
        const Block* b = mapped_at_or_after(from);
        bool tracked = b && b->addr < from + old_len;
        if (old_len) unmap(from, from + old_len);
        unmap(to, to + new_len);
        if (tracked) map(tid, to, new_len);
        if (new_len < old_len) timeline_pages_released(old_len - new_len);
        break;
    }
    case __NR_brk: {
        // The break moves: what it gains is mapped at this stack, what it
        // gives back ends. The first brk only reads it.
        Addr top = sr_Res(res);
        if (brk_top && top > brk_top)
            map(tid, brk_top, top - brk_top);
        else if (brk_top && top < brk_top)
            unmap(top, brk_top), timeline_pages_released(brk_top - top);
        brk_top = top;
        break;
    }
    default:
        break;
    }
}

} // namespace mg
