// SPDX-License-Identifier: GPL-2.0-or-later
// Who holds a site's memory (docs/holders.md). The leak scan records, for
// each block it reaches, the shortest way it was first reached (a root word
// or another block: core/reachability.hpp walks breadth first, CPython's GC
// links and type pointers last). A block's holder is its nearest ancestor
// that is not part of a growing structure (a block of a site that is not
// growing, plateau or leaked; under CPython, an object), or the root
// itself: a linked list's nodes, a dict's table and keys, a record's fields
// collapse to what holds the list, the dict, the container of records. For
// every site the holders' bytes are summed; each holder is named in the
// program's terms (a global, a frame, a module global, an attribute, a dict
// key), with its type, length and bound when its type says so.
#pragma once

#include "classify/mg_analysis.hpp"

namespace mg {

enum class RootKind : UChar { global, stack, register_, mapped, heap, thread };
const HChar* root_kind_name(RootKind k);

// A holder, named while the client's memory could still be read.
struct Holder {
    HChar* path; // "service.TOKEN_STATS", "main (server.c:88) → block from …"
    RootKind root;
    const HChar* type; // "dict", "collections.deque"; null for native memory
    Long length;       // items (a native array: the blocks it points at); -1 unknown
    Long bound;        // the most it may hold; -1 when nothing bounds it
    ULong bytes;       // of every site, at the scan
    UInt blocks;
    UInt n_sites; // sites it holds bytes of
    bool lost;    // a definitely lost block: what it holds is leaked
};

// Whether a holder is a container with no bound: it has items, and nothing
// bounds them.
inline bool unbounded_container(const Holder& h) {
    return h.type && h.length >= 0 && h.bound < 0;
}

// Whether two holders read the same: the elements of one list, the values
// of one dict (`__main__.BATCHES[*]`) are one line, not a thousand.
bool holders_read_the_same(const Holder& x, const Holder& y);

struct HeldBy {
    UInt holder; // index into holders_all(): the largest of those folded
    ULong bytes;
    UInt blocks;
    UInt count; // holders folded into this one: the same path and type
};
// A site's holders: largest first, at most kMaxHeldBy, into a buffer valid
// until the next call.
constexpr UInt kMaxHeldBy = 3;

// From the last walk's blocks (leak_scan_blocks), for every site: call after
// analyse() and while the client's memory is whole (the teardown scan's, at
// teardown: at_teardown keeps them for the reports after it).
// also_name: sites whose holders are named too, whatever their class, as
// parts of what is held (by site id; may be null).
void holders_compute(const Analysis& a, bool at_teardown, const UChar* also_name = nullptr);
bool holders_from_teardown();
// Applies the bounded-holder rule to a's classes (docs/classification.md) and
// sums the holders of a's Python sites.
void holders_apply(Analysis* a);
// Whether the site's blocks grew (core/holder_rule.hpp's blocks_grew): a
// bound on their number is none on their bytes.
bool site_blocks_grew(UInt site);
// A site's holders, largest first; 0 when none (or not computed). Valid
// until holders_release.
UInt holders_of(UInt site, const HeldBy** out);
// The same for a Python site (its sub-sites' holders summed).
UInt holders_of_python_site(UInt py_site, const HeldBy** out);
// The bytes of the site's blocks the scan reached or lost (the shares' whole).
ULong holders_site_bytes(UInt site);
ULong holders_python_site_bytes(UInt py_site);
// Each (site, holder) pair of the scan with the site's bytes the holder
// holds; whole: the site's bytes the scan found.
using HeldVisit = void (*)(void* ctx, UInt site, UInt holder, ULong bytes, ULong whole);
void holders_for_each(HeldVisit f, void* ctx);
// What a holder is, for a line (its type escaped as the log escapes names):
// "dict, 12,000 items, no bound",
// "collections.deque, 2,000 of 6,000 items", or its root's kind.
void holder_text(const Holder& x, HChar* buf, SizeT n);
// Every holder named, by index.
const Holder* holders_all(UInt* n);
void holders_release();

// vgdb's "who_holds FILE:LINE" (or a site id): scans now and prints the
// holders of the live memory allocated under that line.
void holders_who_holds(const HChar* where);

} // namespace mg
