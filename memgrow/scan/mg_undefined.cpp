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

} // namespace

void undefined_mark(Addr a, SizeT len) {
    if (!words) words = VG_(OSetGen_Create)(0, nullptr, VG_(malloc), "mg.undefined", VG_(free));
    constexpr SizeT kWord = sizeof(UWord);
    Addr end = a + len < a ? ~Addr(0) : a + len;
    for (Addr p = (a + kWord - 1) & ~(kWord - 1); p + kWord <= end && p >= a;) {
        Addr page_end = VG_PGROUNDDN(p) + VKI_PAGE_SIZE;
        if (page_end > end || page_end < p) page_end = end;
        bool readable = client_readable(p, page_end - p);
        bool kept = undefined_any_in(p, page_end);
        for (; p + kWord <= page_end; p += kWord) {
            UWord value = readable ? *reinterpret_cast<const volatile UWord*>(p) : 0;
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
