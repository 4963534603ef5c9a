#include "holders/mg_holders.hpp"
#include "records/mg_symbols.hpp"
#include "scan/mg_leak.hpp"

namespace mg {

namespace {

struct Entry {
    UInt site;
    ULong key;
    ULong bytes;
    UInt blocks;
};

const ScannedBlock* blocks; // the last scan's, while holders are computed and named
UInt n_blocks;
Entry* entries; // by site, largest first, at most kMaxHeldBy a site
UInt n_entries;
ULong* site_bytes; // by entry run: parallel to the first entry of each site
UInt* run_first;   // the first entry of each site's run
UInt n_runs;

// The stack frame that owns a (its stack pointer), or false.
bool stack_frame_of(Addr a, const ScannedStack** stack, UInt* frame) {
    UInt n_stacks = 0;
    const ScannedStack* stacks = leak_scan_stacks(&n_stacks);
    for (UInt s = 0; s < n_stacks; ++s) {
        const ScannedStack& st = stacks[s];
        if (!st.n || a < st.sps[0] || a > st.top) continue;
        UInt f = 0; // the innermost frame whose stack pointer is at or below a
        while (f + 1 < st.n && st.sps[f + 1] <= a)
            ++f;
        *stack = &st, *frame = f;
        return true;
    }
    return false;
}

// One holder for every word of one thing: a global's words are the global
// (its symbol's start), a frame's slots the frame (its stack pointer), other
// memory its mapping.
ULong canonical_root(ULong via) {
    Addr a = reach::via_root_address(via);
    if (a == 0) return via;
    const ScannedStack* st;
    UInt frame;
    if (stack_frame_of(a, &st, &frame)) return reach::kViaRoot | st->sps[frame];
    const HChar* name = nullptr;
    PtrdiffT off = 0;
    if (VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), a, &name, &off) && name)
        return reach::kViaRoot | (a - off);
    const NSegment* seg = VG_(am_find_nsegment)(a);
    return seg ? reach::kViaRoot | seg->start : via;
}

// The nearest ancestor of block i that is not of its site, or its root; a
// lost block holds what was lost through it, whatever its site (kNotReached
// for a definitely lost block itself).
// Memoised by block, each chain is walked once: a million-node list costs a
// million steps, not half a million squared.
constexpr ULong kUnknown = kNotReached - 1;
ULong* memo; // by block index: its holder key, or kUnknown

bool same_structure(ULong via, UInt site) {
    return via < n_blocks && blocks[via].site == site && blocks[via].kind != kDefinite;
}

ULong holder_key(UInt i) {
    if (memo[i] != kUnknown) return memo[i];
    UInt site = blocks[i].site;
    ULong via = blocks[i].via, key = kNotReached;
    for (UInt steps = 0; steps <= n_blocks; ++steps) { // the ways are a tree: no cycle
        if (!same_structure(via, site)) {
            key = via < n_blocks || via == kNotReached ? via : canonical_root(via);
            break;
        }
        if (memo[via] != kUnknown) {
            key = memo[via];
            break;
        }
        via = blocks[via].via;
    }
    memo[i] = key;
    for (via = blocks[i].via; same_structure(via, site) && memo[via] == kUnknown;
         via = blocks[via].via)
        memo[via] = key;
    return key;
}

Int by_site_key(const void* x, const void* y) {
    const auto* a = static_cast<const Entry*>(x);
    const auto* b = static_cast<const Entry*>(y);
    if (a->site != b->site) return a->site < b->site ? -1 : 1;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return 0;
}

Int by_site_bytes(const void* x, const void* y) {
    const auto* a = static_cast<const Entry*>(x);
    const auto* b = static_cast<const Entry*>(y);
    if (a->site != b->site) return a->site < b->site ? -1 : 1;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

bool wanted(const Analysis& a, UInt site) {
    if (site >= a.n_sites) return false;
    SiteClass c = a.growth[site].cls;
    return c == SiteClass::growing || c == SiteClass::plateau || c == SiteClass::leaked;
}

// A frame's "function (file:line)", or "function (in object)".
struct FrameText {
    HChar* buf;
    SizeT size;
    bool done;
};
void frame_text(const Frame& f, void* ctx) {
    auto* t = static_cast<FrameText*>(ctx);
    if (t->done) return;
    t->done = true;
    const HChar* fn = f.function ? f.function : "???";
    if (f.file)
        VG_(snprintf)(t->buf, t->size, "%s (%s:%d)", fn, f.file, f.line);
    else
        VG_(snprintf)(t->buf, t->size, "%s (in %s)", fn, f.object ? f.object : "?");
}

// A root word by where it is.
void root_name(Addr a, HChar* buf, SizeT size, RootKind* kind) {
    if (a == 0) {
        *kind = RootKind::register_;
        VG_(snprintf)(buf, size, "a register");
        return;
    }
    const ScannedStack* st;
    UInt frame;
    if (stack_frame_of(a, &st, &frame)) {
        *kind = RootKind::stack;
        FrameText t{buf, size, false};
        VG_(snprintf)(buf, size, "the stack of thread %u", st->tid);
        for_each_frame_of_word(st->ips[frame], VG_(current_DiEpoch)(), frame_text, &t);
        return;
    }
    const HChar* name = nullptr;
    PtrdiffT off = 0;
    *kind = RootKind::global;
    if (VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), a, &name, &off) && name) {
        VG_(snprintf)(buf, size, "%s", name);
        return;
    }
    const NSegment* seg = VG_(am_find_nsegment)(a);
    if (seg && seg->kind == SkFileC) {
        const HChar* file = VG_(am_get_filename)(seg);
        const HChar* slash = file ? VG_(strrchr)(file, '/') : nullptr;
        VG_(snprintf)(buf, size, "static data of %s", slash ? slash + 1 : file ? file : "?");
        return;
    }
    *kind = RootKind::mapped;
    VG_(snprintf)(buf, size, "mapped memory at %#lx", a);
}

void path_of(ULong key, HChar* buf, SizeT size, RootKind* kind, UInt depth) {
    if (key == kNotReached) {
        *kind = RootKind::heap;
        VG_(snprintf)(buf, size, "nothing");
        return;
    }
    if (reach::via_root(key)) {
        root_name(reach::via_root_address(key), buf, size, kind);
        return;
    }
    UInt i = static_cast<UInt>(key);
    HChar title[256];
    site_title(SiteView(blocks[i].site), title, sizeof title);
    ULong up = holder_key(i);
    if (blocks[i].kind == kDefinite) { // a lost block holds the ones lost through it
        *kind = RootKind::heap;
        VG_(snprintf)(buf, size, "lost block from %s", title);
        return;
    }
    if (depth == 4) { // deep enough for a person; the root is not named
        *kind = RootKind::heap;
        VG_(snprintf)(buf, size, "… → block from %s", title);
        return;
    }
    path_of(up, buf, size, kind, depth + 1);
    SizeT len = VG_(strlen)(buf);
    VG_(snprintf)(buf + len, size - len, " → block from %s", title);
}

} // namespace

const HChar* root_kind_name(RootKind k) {
    switch (k) {
    case RootKind::global:
        return "global";
    case RootKind::stack:
        return "stack";
    case RootKind::register_:
        return "register";
    case RootKind::mapped:
        return "mapped";
    case RootKind::heap:
        return "heap";
    }
    return "?";
}

void holders_compute(const Analysis& a) {
    holders_release();
    bool obsolete = false;
    blocks = leak_scan_blocks(&n_blocks, &obsolete);
    if (!blocks) return;
    memo = static_cast<ULong*>(VG_(malloc)("mg.holders.memo", (n_blocks + 1) * sizeof(ULong)));
    for (UInt i = 0; i < n_blocks; ++i)
        memo[i] = kUnknown;
    UInt n = 0;
    for (UInt i = 0; i < n_blocks; ++i)
        n += wanted(a, blocks[i].site);
    if (!n) return;
    auto* all = static_cast<Entry*>(VG_(malloc)("mg.holders.all", n * sizeof(Entry)));
    UInt k = 0;
    for (UInt i = 0; i < n_blocks; ++i)
        if (wanted(a, blocks[i].site))
            all[k++] = Entry{blocks[i].site, holder_key(i), blocks[i].size, 1};
    VG_(ssort)(all, n, sizeof(Entry), by_site_key);
    UInt merged = 0; // one entry per (site, holder)
    for (UInt i = 0; i < n; ++i) {
        if (merged && all[merged - 1].site == all[i].site && all[merged - 1].key == all[i].key) {
            all[merged - 1].bytes += all[i].bytes;
            all[merged - 1].blocks++;
        } else {
            all[merged++] = all[i];
        }
    }
    VG_(ssort)(all, merged, sizeof(Entry), by_site_bytes);
    entries = static_cast<Entry*>(VG_(malloc)("mg.holders", (merged + 1) * sizeof(Entry)));
    run_first = static_cast<UInt*>(VG_(malloc)("mg.holders.runs", (merged + 1) * sizeof(UInt)));
    site_bytes = static_cast<ULong*>(VG_(malloc)("mg.holders.bytes", (merged + 1) * sizeof(ULong)));
    for (UInt i = 0; i < merged;) {
        UInt site = all[i].site, taken = 0;
        run_first[n_runs] = n_entries;
        site_bytes[n_runs] = 0;
        for (; i < merged && all[i].site == site; ++i) {
            site_bytes[n_runs] += all[i].bytes;
            if (all[i].key != kNotReached && taken < kMaxHeldBy)
                entries[n_entries++] = all[i], ++taken;
        }
        if (taken) ++n_runs;
    }
    VG_(free)(all);
}

namespace {
// The run of a site, or n_runs.
UInt run_of(UInt site) {
    UInt lo = 0, hi = n_runs;
    while (lo < hi) {
        UInt mid = (lo + hi) / 2;
        if (entries[run_first[mid]].site < site)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n_runs && entries[run_first[lo]].site == site ? lo : n_runs;
}
} // namespace

UInt holders_of(UInt site, const HeldBy** out) {
    static HeldBy held[kMaxHeldBy];
    UInt r = run_of(site);
    if (r == n_runs) return 0;
    UInt end = r + 1 < n_runs ? run_first[r + 1] : n_entries, n = 0;
    for (UInt e = run_first[r]; e < end; ++e)
        held[n++] = HeldBy{entries[e].key, entries[e].bytes, entries[e].blocks};
    *out = held;
    return n;
}

ULong holders_site_bytes(UInt site) {
    UInt r = run_of(site);
    return r == n_runs ? 0 : site_bytes[r];
}

void holders_path(ULong key, HChar* buf, SizeT size, RootKind* root) {
    buf[0] = 0;
    path_of(key, buf, size, root, 0);
}

void holders_release() {
    VG_(free)(memo);
    memo = nullptr;
    VG_(free)(entries);
    VG_(free)(run_first);
    VG_(free)(site_bytes);
    entries = nullptr, run_first = nullptr, site_bytes = nullptr;
    n_entries = n_runs = 0;
    blocks = nullptr, n_blocks = 0;
}

} // namespace mg
