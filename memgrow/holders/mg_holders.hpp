// Who holds a site's memory (docs/holders.md). The leak scan records, for
// each block it reaches, the shortest way it was first reached (a root word
// or another block: core/reachability.hpp walks breadth first). A block's
// holder is its nearest ancestor of another site, or the root itself: a
// linked list's nodes collapse to what holds the list's head. For the
// growing, plateau and leaked sites of an analysis, the holders are grouped
// by that ancestor and their bytes summed; each is named in the program's
// terms: a global by its symbol, a stack slot by the frame that owns it, a
// register, mapped memory, or a heap block by its site, down from the root.
#pragma once

#include "classify/mg_analysis.hpp"

namespace mg {

enum class RootKind : UChar { global, stack, register_, mapped, heap };
const HChar* root_kind_name(RootKind k);

struct HeldBy {
    ULong key; // the scan's via of the holder: a block index or kViaRoot | address
    ULong bytes;
    UInt blocks;
};
constexpr UInt kMaxHeldBy = 3;

// From the last scan's blocks, for the sites `a` classifies growing, plateau
// or leaked. Call after analyse() and before the scan's blocks are forgotten.
void holders_compute(const Analysis& a);
// A site's holders, largest first; 0 when none (or not computed). Valid
// until holders_release.
UInt holders_of(UInt site, const HeldBy** out);
// The bytes of the site's blocks the scan reached or lost (the shares' whole).
ULong holders_site_bytes(UInt site);
// The holder's path ("journal", "main (server.c:88) → block from
// make_ring (ring.c:12)") and its root's kind.
void holders_path(ULong key, HChar* buf, SizeT size, RootKind* root);
void holders_release();

} // namespace mg
