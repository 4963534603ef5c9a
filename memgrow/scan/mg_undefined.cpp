// SPDX-License-Identifier: GPL-2.0-or-later
#include "scan/mg_undefined.hpp"
#include "python/mg_client_memory.hpp"
extern "C" {
#include "pub_tool_oset.h"
}

namespace mg {

namespace {

struct Word {
    Addr addr; // the key
    UWord value;
};

// By address, at most kMax (16 MiB of nodes): past that, words marked are
// not kept, and a pointer in them keeps its block reachable as before.
OSet* words;
constexpr UInt kMax = 1u << 20;

void remove(Addr a) {
    VG_(OSetGen_FreeNode)(words, VG_(OSetGen_Remove)(words, &a));
}

// Keeps the value of each non-zero word of [p, end), one page's worth.
void mark_words(Addr p, Addr end) {
    bool kept = undefined_any_in(p, end);
    for (; p + sizeof(UWord) <= end; p += sizeof(UWord)) {
        UWord value = *reinterpret_cast<const volatile UWord*>(p);
        auto* w = kept ? static_cast<Word*>(VG_(OSetGen_Lookup)(words, &p)) : nullptr;
        if (w && value)
            w->value = value;
        else if (w)
            remove(p);
        else if (value && VG_(OSetGen_Size)(words) < kMax) {
            w = static_cast<Word*>(VG_(OSetGen_AllocNode)(words, sizeof(Word)));
            *w = Word{p, value};
            VG_(OSetGen_Insert)(words, w);
        }
    }
}

// A page whose mapping changed behind the address space manager's back.
VG_MINIMAL_JMP_BUF(mark_jmp);
volatile Addr fault_addr;

void on_fault(Int sig, Addr a) {
    unmask_signal(sig);
    if (sig != VKI_SIGSEGV && sig != VKI_SIGBUS) return;
    fault_addr = a;
    VG_MINIMAL_LONGJMP(mark_jmp);
}

// At most this much readable memory read per request: a reservation of
// gigabytes marked inaccessible is not read word by word.
constexpr SizeT kBudget = SizeT(256) << 20;

} // namespace

void undefined_mark(Addr a, SizeT len) {
    if (!words) words = VG_(OSetGen_Create)(0, nullptr, VG_(malloc), "mg.undefined", VG_(free));
    const Addr end = a + len < a ? ~Addr(0) : a + len;
    volatile Addr p = (a + sizeof(UWord) - 1) & ~(sizeof(UWord) - 1);
    volatile SizeT budget = kBudget;
    fault_catcher_t prev = VG_(set_fault_catcher)(on_fault);
    if (VG_MINIMAL_SETJMP(mark_jmp) != 0) p = VG_PGROUNDDN(fault_addr) + VKI_PAGE_SIZE;
    // Segment by segment: unreadable ones (free, reserved, the tool's) at
    // once, readable ones page by page.
    while (p >= a && p < end && end - p >= sizeof(UWord) && budget) {
        const NSegment* seg = VG_(am_find_nsegment)(p);
        if (!seg) break;
        Addr stop = seg->end >= end - 1 ? end : seg->end + 1;
        if (!client_readable(p, sizeof(UWord))) {
            p = stop;
            continue;
        }
        while (p < stop && budget) {
            Addr page_end = VG_PGROUNDDN(p) + VKI_PAGE_SIZE;
            if (page_end > stop || page_end < p) page_end = stop;
            mark_words(p, page_end);
            budget = budget > page_end - p ? budget - (page_end - p) : 0;
            p = page_end;
        }
    }
    VG_(set_fault_catcher)(prev);
}

void undefined_forget(Addr a, SizeT len) {
    if (!words || !undefined_any_in(a, a + len)) return;
    Addr gone[64];
    for (;;) {
        UInt n = 0;
        VG_(OSetGen_ResetIterAt)(words, &a);
        while (n < 64) {
            auto* w = static_cast<const Word*>(VG_(OSetGen_Next)(words));
            if (!w || w->addr >= a + len) break;
            gone[n++] = w->addr;
        }
        for (UInt i = 0; i < n; ++i)
            remove(gone[i]);
        if (n < 64) return;
    }
}

bool undefined_any_in(Addr lo, Addr hi) {
    if (!words || VG_(OSetGen_Size)(words) == 0) return false;
    VG_(OSetGen_ResetIterAt)(words, &lo);
    auto* w = static_cast<const Word*>(VG_(OSetGen_Next)(words));
    return w && w->addr < hi;
}

bool undefined_word(Addr a, UWord value) {
    auto* w = static_cast<const Word*>(VG_(OSetGen_Lookup)(words, &a));
    return w && w->value == value;
}

} // namespace mg
