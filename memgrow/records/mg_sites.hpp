// SPDX-License-Identifier: GPL-2.0-or-later
// Allocation sites: one per distinct allocation stack and memory space.
#pragma once

#include "mg_vg.hpp"
#include "core/timeline.hpp"
#include "records/mg_stacks.hpp"

namespace mg {

// One word of an allocation stack: a native code address (a return address,
// innermost first), or, with the high bit set, a Python frame token interned
// by the Python attribution stage. Sites compare and hash these words only,
// so a Python frame and a native frame are interchangeable in the key.
using StackWord = Addr;
constexpr StackWord kPythonFrameTag = 1ull << 63;

// Values match MemgrowSpace in include/memgrow.h; mapped (the client's own
// anonymous mappings, pages/mg_mapped.hpp) is no request's.
enum class Space : UChar { host = 0, device = 1, managed = 2, pinned = 3, mapped = 4 };
constexpr UInt kSpaces = 5;
// Whether the space's sites say which device (the CUDA ones).
inline bool space_on_device(Space s) {
    return s != Space::host && s != Space::mapped;
}
const HChar* space_name(Space s);

struct Site {
    UInt id;    // dense, in order of creation
    UInt stack; // its innermost node in the stack tree (records/mg_stack_tree.hpp)
    UShort n_frames;
    Space space;
    UChar device;
    DiEpoch epoch; // the debug info the frames must be symbolised with
    // The state now (what is still allocated at exit). Live blocks are
    // counted in 32 bits: 4 billion of them would be 64 GiB of headers.
    ULong live_bytes_now;
    UInt live_blocks_now;
    // The state the report classifies: updated until teardown begins, then
    // frozen together with the series (which has the live and allocated bytes).
    UInt live_blocks;
    ULong peak_bytes, allocated_blocks;
    SparseSeries clock; // per bucket of the run clock (sparse until it changes often)
    // Per bucket of marks: records/mg_timeline.hpp's site_marks().
};
// A million distinct stacks (`import torch`) are a million sites.
static_assert(sizeof(Site) <= 88, "keep the site record small");

// A site's stack words, innermost first, into out (at most max); their
// count. kMaxSiteFrames words always fit.
constexpr UInt kMaxSiteFrames = 256; // --depth's bound
UInt site_frames(const Site* s, StackWord* out, UInt max = kMaxSiteFrames);
// Its innermost word; 0 for a site without frames.
StackWord site_top_word(const Site* s);

// The site of the current stack of `tid` in `space`. Frames inside memgrow's
// preload (the malloc replacements, the CUDA wrappers) are left out.
Site* site_of_current_stack(ThreadId tid, Space space, UInt device,
                            StackPurpose purpose = StackPurpose::allocation);

// Whether ip is in memgrow's preload (its malloc replacements, its wrappers).
bool ip_in_preload(Addr ip);

// The hybrid stack (Python frames among native ones) of tid now, with the
// preload's frames kept (an error inside a replaced strlen shows it), into
// w; 0 when no interpreter runs (the native stack is the whole story).
UInt current_hybrid_stack(ThreadId tid, StackWord* w, UInt max);
// The stack of tid now as a node of the stack tree: the hybrid stack when an
// interpreter runs, else the native one without the preload's frames
// (kEmptyStack when it has none). Uncached: for rare events (the first
// write to a page a forked child inherited).
UInt current_stack_node(ThreadId tid);
// Frees the index that finds a stack's site (the sites stay, and the keys
// are theirs): the last report needs none. A later lookup rebuilds it.
void sites_drop_index();
// Hybrid stacks found merged already (the memo in mg_sites.cpp).
ULong hybrid_memo_hits();

} // namespace mg

#include "records/mg_site_store.hpp" // site_at, site_count, SiteView
