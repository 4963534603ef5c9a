// SPDX-License-Identifier: GPL-2.0-or-later
#include "holders/mg_holders.hpp"
#include "holders/mg_holder_findings.hpp"
#include "holders/mg_pynames.hpp"
#include "output/mg_log_text.hpp"
#include "output/mg_report_select.hpp"
#include "pages/mg_mapped.hpp"
#include "python/mg_client_memory.hpp"
#include "python/mg_pylocals.hpp"
#include "python/mg_pyobject.hpp"
#include "python/mg_python.hpp"
#include "records/mg_symbols.hpp"
#include "records/mg_timeline.hpp"
#include "mg_options.hpp"
#include "scan/mg_leak.hpp"
#include "core/holder_rule.hpp"

namespace mg {

namespace {

// One (site, holder) pair: the bytes and blocks of the site the holder holds.
struct Entry {
    UInt site;
    UInt blocks;
    ULong key; // the holder: a block index, kViaRoot | root address, or kNotReached
    ULong bytes;
    ULong direct; // of the bytes, those of blocks reached straight from the holder
};

const ScannedBlock* blocks; // the last scan's, while holders are computed and named
UInt n_blocks;
UChar* wanted; // by site id: growing, plateau or leaked (itself or its Python site)
UInt n_wanted_sites;
ULong* memo; // by block index: its holder key, or kUnknown
constexpr ULong kUnknown = kNotReached - 1;

Entry* entries; // merged, by site then bytes (largest first)
constexpr UInt kFirstEntries = 1 << 16;
UInt n_entries;
UInt* site_first; // by site id: its first entry (n_entries: none); n_sites + 1 of them
UInt n_sites;

Holder* holders; // by index; keys parallel, ascending
ULong* holder_keys;
UInt n_holders;

bool at_teardown; // computed from the teardown scan, kept for the reports after
ULong line_floor; // of the last analysis applied (report_floor)
// Per Python site of the last analysis applied: the few largest holders.
HeldBy* py_held; // kMaxHeldBy per Python site
UChar* n_py_held;
ULong* py_bytes;
UInt n_py;

// One holder for every word of one thing: a global's words are the global
// (its symbol's start), a frame's slots the frame (its stack pointer), other
// memory its mapping.
ULong canonical_root(ULong via) {
    Addr a = reach::via_root_address(via);
    if (a == 0 || pylocals_slot(a)) return via; // a frame's local is a holder of its own
    const ScannedStack* st;
    UInt frame;
    if (leak_scan_stack_frame(a, &st, &frame)) return reach::kViaRoot | st->sps[frame];
    const HChar* name = nullptr;
    PtrdiffT off = 0;
    if (VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), a, &name, &off) && name)
        return reach::kViaRoot | (a - off);
    if (leak_scan_thread_storage(a, &st)) return reach::kViaRoot | st->thread;
    ULong in_runtime, runtime_size;
    if (python_runtime_offset(a, &in_runtime, &runtime_size))
        return reach::kViaRoot | (a - in_runtime);
    const NSegment* seg = VG_(am_find_nsegment)(a);
    return seg ? reach::kViaRoot | seg->start : via;
}

bool is_block(ULong key) {
    return key < n_blocks;
}

constexpr ULong kSingleton = 2;
constexpr UChar kAllDirect = 1, kSomeDirect = 2;

// Whether the way up stops at block p: it is lost (a lost block holds what
// was lost through it), or not part of a growing structure.
bool holds(ULong p) {
    const ScannedBlock& b = blocks[p];
    if (b.kind == kDefinite) return true;
    if (b.kind == kIndirect) return false; // a lost structure is its lost block's
    bool own = b.site >= n_wanted_sites || !wanted[b.site];
    if (!pyobj_on()) // a block its site made once is a container of its own (an array)
        return own || (b.site < n_wanted_sites && SiteView(b.site)->allocated_blocks == 1);
    // Under CPython the holder is an object, not its keys table or array;
    // and an object its site made once or twice is a container of its own,
    // however the site is classed (a dict revived from a free list, a Python
    // site that grows by other sub-sites).
    Addr obj = pyobj_in_block(b.addr, b.size);
    if (!obj) return false;
    // An lru_cache's links are its wrapper's, as a dict's keys table is the
    // dict's: a full cache recycles them, and they are no holders.
    if (pyobj_type_is(pyobj_type(obj), "functools._lru_list_elem")) return false;
    return own || SiteView(b.site)->live_blocks <= kSingleton;
}

bool is_object(ULong p) {
    return pyobj_on() && pyobj_in_block(blocks[p].addr, blocks[p].size);
}

// Whether block p is an object that holds no pointer (an int, a float,
// bytes): a block found through one was reached by a stale word, and no
// holder is named for it.
bool holds_nothing(ULong p) {
    constexpr Addr kFirstDataWord = 16; // past the reference count and the type
    if (!pyobj_on()) return false;
    Addr obj = pyobj_in_block(blocks[p].addr, blocks[p].size);
    return obj && pyobj_pointer_free(pyobj_type(obj), kFirstDataWord);
}

// Dead objects parked on CPython's free lists (by block index: 0 not known
// yet, kNotParked, kParked): pyobj_parked's typed shape, or its untyped one
// reached from the interpreter's statics or from another parked block (the
// next on a list).
// They are no one's memory: no holder, no share, and (at teardown) no live
// bytes; a block reached only through one's stale words has no holder.
UChar* parked_memo;
constexpr UChar kNotParked = 1, kParked = 2;
constexpr UInt kMaxChain = 4096;

bool parked(ULong i) {
    if (!pyobj_on() || !is_block(i)) return false;
    UInt path[kMaxChain];
    UInt n = 0;
    UChar verdict = kNotParked;
    for (ULong p = i;;) {
        if (parked_memo[p]) {
            verdict = parked_memo[p];
            break;
        }
        path[n++] = static_cast<UInt>(p);
        Parked shape = n == kMaxChain ? Parked::no : pyobj_parked(blocks[p].addr, blocks[p].size);
        if (shape == Parked::no) break;
        ULong via = blocks[p].via;
        if (shape == Parked::object) {
            verdict = kParked;
            break;
        }
        if (!is_block(via)) {
            if (reach::via_root(via) && python_static_data(reach::via_root_address(via)))
                verdict = kParked;
            break;
        }
        p = via;
    }
    for (UInt k = 0; k < n; ++k)
        parked_memo[path[k]] = verdict;
    return verdict == kParked;
}

// Takes a dead object out of its site's live bytes (teardown only: the
// series end there, and it will not be revived).
void park(const ScannedBlock& b) {
    const Block* r = block_find(Table::host, b.addr);
    timeline_park(b.site, b.size, r ? r->birth : clock_end());
}

// The holder shown for block p: a bounded owner a few blocks up (an
// lru_cache wrapper for its cache dict, a queue.Queue for its deque).
ULong presented(ULong p) {
    if (!pyobj_on()) return p;
    constexpr UInt kUp = 4;
    ULong idx[kUp];
    WayBlock way[kUp];
    UInt n = 0;
    for (ULong b = p; is_block(b) && n < kUp; b = blocks[b].via)
        idx[n++] = b;
    for (UInt k = 0; k < n; ++k) // top down
        way[k] = WayBlock{blocks[idx[n - 1 - k]].addr, blocks[idx[n - 1 - k]].size};
    return n ? idx[n - 1 - py_presented(way, n)] : p;
}

// The holder of block i, memoised: each way is walked once (a million-node
// list costs a million steps, not half a million squared). The ways form a
// tree (the scan records the first), so the walk ends.
ULong holder_key(UInt i) {
    if (memo[i] != kUnknown) return memo[i];
    ULong via = blocks[i].via, key = kNotReached;
    // The highest object on the way below the holder: a module's namespace
    // holding a structure that grows (a linked list's head) shows the
    // global, named by its variable (`__main__.CHAIN`), not the module.
    ULong top = is_object(i) ? i : kNotReached;
    bool namespace_ = false;
    for (UInt steps = 0; steps <= n_blocks; ++steps) {
        if (via == kNotReached) break;
        if (!is_block(via)) {
            key = canonical_root(via);
            break;
        }
        if (holds_nothing(via) || parked(via)) break;
        if (holds(via)) {
            namespace_ = py_module_namespace(WayBlock{blocks[via].addr, blocks[via].size});
            key = namespace_ && top != kNotReached ? top : presented(via);
            break;
        }
        if (memo[via] != kUnknown) {
            key = memo[via];
            break;
        }
        if (is_object(via)) top = via;
        via = blocks[via].via;
    }
    // Below a namespace, only what lies under a global's object shares its
    // holder (the namespace's keys table holds every global's).
    if (namespace_ && top == kNotReached) return key;
    memo[i] = key;
    for (via = blocks[i].via; i != key && is_block(via) && memo[via] == kUnknown &&
                              !holds_nothing(via) && !parked(via) && !holds(via);
         via = blocks[via].via) {
        memo[via] = key;
        if (via == key) break;
    }
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

Int by_key(const void* x, const void* y) {
    ULong a = *static_cast<const ULong*>(x), b = *static_cast<const ULong*>(y);
    return a < b ? -1 : a > b;
}

bool class_wanted(SiteClass c) {
    return c == SiteClass::growing || c == SiteClass::plateau || c == SiteClass::leaked;
}

// Merges entries of equal (site, key), in place; returns how many are left.
UInt merge(Entry* e, UInt n) {
    VG_(ssort)(e, n, sizeof(Entry), by_site_key);
    UInt m = 0;
    for (UInt i = 0; i < n; ++i) {
        if (m && e[m - 1].site == e[i].site && e[m - 1].key == e[i].key) {
            e[m - 1].bytes += e[i].bytes;
            e[m - 1].blocks += e[i].blocks;
            e[m - 1].direct += e[i].direct;
        } else {
            e[m++] = e[i];
        }
    }
    VG_(ssort)(e, m, sizeof(Entry), by_site_bytes);
    return m;
}

// ---- Naming -----------------------------------------------------------------

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
    if (pylocals_name(a, buf, size)) {
        *kind = RootKind::stack;
        return;
    }
    const ScannedStack* st;
    UInt frame;
    if (leak_scan_stack_frame(a, &st, &frame)) {
        *kind = RootKind::stack;
        FrameText t{buf, size, false};
        VG_(snprintf)(buf, size, "the stack of thread %u", st->tid);
        for_each_frame_of_word(st->ips[frame], VG_(current_DiEpoch)(), frame_text, &t);
        return;
    }
    const HChar* name = nullptr;
    PtrdiffT off = 0;
    *kind = RootKind::global;
    ULong in_runtime, runtime_size;
    if (python_runtime_offset(a, &in_runtime, &runtime_size)) { // Valgrind's reader drops it
        if (in_runtime)
            VG_(snprintf)(buf, size, "the interpreter's state (_PyRuntime+%#llx)", in_runtime);
        else
            VG_(snprintf)(buf, size, "the interpreter's state (_PyRuntime)");
        return;
    }
    if (VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), a, &name, &off) && name) {
        const HChar* shown = name; // a C++ global as the program writes it
        VG_(demangle)(True, False, name, &shown);
        VG_(snprintf)(buf, size, "%s", shown);
        return;
    }
    if (leak_scan_thread_storage(a, &st)) {
        *kind = RootKind::thread;
        VG_(snprintf)(buf, size, "the thread-local storage of thread %u", st->tid);
        return;
    }
    // An object's static data without a symbol.
    if (const HChar* file = static_data_object(a)) {
        const HChar* slash = VG_(strrchr)(file, '/');
        VG_(snprintf)(buf, size, "static data of %s", slash ? slash + 1 : file);
        return;
    }
    // The loader's own allocations before the C library's malloc (link
    // maps, the first thread's TLS and DTV): its static data too.
    if (mapped_by_loader(a)) {
        VG_(snprintf)(buf, size, "the dynamic loader's memory");
        return;
    }
    *kind = RootKind::mapped;
    VG_(snprintf)(buf, size, "mapped memory at %#lx", a);
}

// A native global's capacity in pointers: the words its symbol covers
// (probed, up to a limit), or -1.
Long global_capacity(Addr start) {
    const HChar* name = nullptr;
    PtrdiffT off = 0;
    DiEpoch ep = VG_(current_DiEpoch)();
    if (!VG_(get_datasym_and_offset)(ep, start, &name, &off) || !name || off) return -1;
    HChar first[128];
    VG_(snprintf)(first, sizeof first, "%s", name);
    constexpr Long kMaxProbes = 1 << 20;
    Long words = 1;
    for (; words < kMaxProbes; ++words) {
        if (!VG_(get_datasym_and_offset)(ep, start + words * 8, &name, &off) || !name ||
            off != words * 8 || VG_(strcmp)(name, first) != 0)
            return words;
    }
    return -1;
}

// Whether a word points into a block of the scan (its blocks are sorted by
// address).
bool points_into_block(UWord w) {
    UInt lo = 0, hi = n_blocks;
    while (lo < hi) {
        UInt mid = (lo + hi) / 2;
        if (blocks[mid].addr + blocks[mid].size <= w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n_blocks && blocks[lo].addr <= w;
}

// The runs of words pointing into blocks in a native array
// (core/holder_rule.hpp's slots_side_by_side): a hash table's, or an array
// of random words that happen to point into blocks, are scattered; -1 when
// it cannot be read.
Long pointer_runs(Addr at, Long words) {
    if (words <= 0 || !client_readable(at, static_cast<SizeT>(words) * 8)) return -1;
    const auto* w = reinterpret_cast<const volatile UWord*>(at);
    Long runs = 0;
    bool before = false;
    for (Long i = 0; i < words; ++i) {
        bool hit = points_into_block(w[i]);
        runs += hit && !before;
        before = hit;
    }
    return runs;
}

constexpr UInt kMaxWay = 64;

// The blocks from the root down to block i (at most kMaxWay, the nearest).
UInt way_to(UInt i, WayBlock* way) {
    WayBlock rev[kMaxWay];
    UInt n = 0;
    for (ULong b = i; is_block(b) && n < kMaxWay; b = blocks[b].via) {
        rev[n++] = WayBlock{blocks[b].addr, blocks[b].size};
        if (blocks[b].kind == kDefinite) break;
    }
    for (UInt k = 0; k < n; ++k)
        way[k] = rev[n - 1 - k];
    return n;
}

// The native path: the root, then each heap block on the way whose site
// differs from the one above it (four at most).
void native_path(ULong key, HChar* buf, SizeT size, RootKind* kind, UInt depth) {
    if (reach::via_root(key)) {
        root_name(reach::via_root_address(key), buf, size, kind);
        return;
    }
    UInt i = static_cast<UInt>(key);
    HChar title[256];
    site_title(SiteView(blocks[i].site), title, sizeof title);
    if (blocks[i].kind == kDefinite) {
        *kind = RootKind::heap;
        VG_(snprintf)(buf, size, "lost block from %s", title);
        return;
    }
    ULong up = blocks[i].via;
    while (is_block(up) && blocks[up].site == blocks[i].site && blocks[up].kind != kDefinite)
        up = blocks[up].via; // a chain of one site is one step
    if (depth == 4 || up == kNotReached) {
        *kind = RootKind::heap;
        VG_(snprintf)(buf, size, "… → block from %s", title);
        return;
    }
    native_path(is_block(up) ? up : canonical_root(up), buf, size, kind, depth + 1);
    SizeT len = VG_(strlen)(buf);
    VG_(snprintf)(buf + len, size - len, " → block from %s", title);
}

HChar* copy_string(const HChar* s) {
    SizeT n = VG_(strlen)(s) + 1;
    auto* c = static_cast<HChar*>(VG_(malloc)("mg.holders.name", n));
    VG_(memcpy)(c, s, n);
    return c;
}

// Names a holder and says what bounds it. direct: whether every block it
// holds (kAllDirect), or some (kSomeDirect), was reached straight from it.
void name_holder(ULong key, UChar direct, Holder* h) {
    HChar path[512];
    RootKind kind = RootKind::heap;
    h->type = nullptr, h->length = -1, h->bound = -1;
    h->lost = is_block(key) && blocks[key].kind == kDefinite;
    WayBlock way[kMaxWay];
    UInt n = 0;
    Addr array = 0; // a native array's words, which bound what it holds
    if (is_block(key)) {
        n = way_to(static_cast<UInt>(key), way);
        ULong top = key;
        while (is_block(top) && blocks[top].kind != kDefinite && is_block(blocks[top].via))
            top = blocks[top].via;
        ULong root = is_block(top) ? blocks[top].via : key;
        bool variable =
            root != kNotReached && !is_block(root) && pylocals_slot(reach::via_root_address(root));
        if (is_block(top) && blocks[top].kind == kDefinite)
            native_path(top, path, sizeof path, &kind, 0);
        else if (root != kNotReached && !is_block(root))
            root_name(reach::via_root_address(root), path, sizeof path, &kind);
        else
            path[0] = 0;
        if (!py_way_name(way, n, path, sizeof path, variable))
            native_path(key, path, sizeof path, &kind, 0);
        HChar type[64];
        Long length, bound;
        if (n && py_describe(way[n - 1], type, sizeof type, &length, &bound)) {
            h->type = copy_string(type);
            h->length = length, h->bound = bound;
        } else if ((direct & kAllDirect) && blocks[key].kind != kDefinite &&
                   blocks[key].site < n_wanted_sites &&
                   SiteView(blocks[key].site)->allocated_blocks == 1) {
            h->bound = static_cast<Long>(blocks[key].size / 8); // a fixed heap array
            array = blocks[key].addr;
        }
    } else {
        root_name(reach::via_root_address(key), path, sizeof path, &kind);
        Addr at = reach::via_root_address(key);
        ULong in_runtime, runtime_size;
        // A static region pointing at the blocks directly holds at most one
        // per word: the interpreter's state (its caches: the type attribute
        // cache, free lists) as any global array.
        if ((direct & kSomeDirect) && python_runtime_offset(at, &in_runtime, &runtime_size))
            h->bound = static_cast<Long>(runtime_size / 8);
        else if ((direct & kAllDirect) && kind == RootKind::global)
            h->bound = global_capacity(at), array = at;
    }
    // A native array whose blocks are scattered over its slots is a hash
    // table: its chains are no bound.
    if (array && h->bound > 0 && !slots_side_by_side(pointer_runs(array, h->bound), h->blocks))
        h->bound = -1;
    h->path = copy_string(path);
    h->root = kind;
}

UInt holder_index(ULong key) {
    UInt lo = 0, hi = n_holders;
    while (lo < hi) {
        UInt mid = (lo + hi) / 2;
        if (holder_keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The holders of sites that are not wanted but hold the most bytes: growth
// spread thin over many sites that each stayed small is the holder's.
constexpr UInt kSpreadHolders = 256;
void spread_candidates(ULong* keys, UInt* n) {
    auto* e =
        static_cast<Entry*>(VG_(malloc)("mg.holders.spread", (n_entries + 1) * sizeof(Entry)));
    UInt m = 0;
    for (UInt i = 0; i < n_entries; ++i)
        if (entries[i].key != kNotReached && !wanted[entries[i].site])
            e[m] = entries[i], e[m++].site = 0; // one run: merged by holder alone
    m = merge(e, m);
    for (UInt i = 0; i < m && i < kSpreadHolders; ++i)
        keys[(*n)++] = e[i].key;
    VG_(free)(e);
}

// The bounded-holder rule's verdict on one site's (or Python site's) run of
// entries. device: the site's blocks are device memory, which only a typed
// container bounds (a deque of tensors bounds their device blocks; a native
// array of device addresses is a list of handles, not a bound).
BoundedVerdict verdict_of(const Entry* e, UInt n, ULong whole, bool device) {
    constexpr UInt kMaxShares = 64;
    HeldShare shares[kMaxShares];
    UInt k = 0;
    for (UInt i = 0; i < n && k < kMaxShares; ++i) {
        if (e[i].key == kNotReached) continue;
        UInt h = holder_index(e[i].key);
        if (h == n_holders || holder_keys[h] != e[i].key) continue;
        // A native array bounds only what it points at directly; the rest
        // it holds counts as unbounded; and only an array bounds.
        bool typed = holders[h].type != nullptr;
        if (!typed && (device || !array_bounds(holders[h].bound, holders[h].length))) continue;
        shares[k++] =
            HeldShare{typed ? e[i].bytes : e[i].direct, holders[h].length, holders[h].bound};
    }
    return bounded_verdict(shares, k, whole);
}

// A growing site held by bounded holders becomes a plateau, with the bound
// in its evidence. Returns whether it changed.
bool apply_verdict(const BoundedVerdict& v, Growth* g) {
    if (!v.bounded || g->cls != SiteClass::growing) return false;
    g->cls = SiteClass::plateau;
    g->rule = "bounded holder";
    g->bound = v.bound;
    g->fill = v.fill;
    g->bound_bytes = v.bound_bytes;
    return true;
}

} // namespace

bool site_blocks_grew(UInt site) {
    SiteView v(site);
    return blocks_grew(static_cast<u64>(v->clock.live > 0 ? v->clock.live : 0), v->live_blocks,
                       v->clock.allocated, v->allocated_blocks);
}

namespace {

void bounded_holder_rule(Analysis* a) {
    for (UInt s = 0; s < n_sites; ++s) {
        UInt first = site_first[s], end = site_first[s + 1];
        Space space = SiteView(s)->space;
        if (first == end || a->growth[s].cls != SiteClass::growing || space == Space::mapped ||
            site_blocks_grew(s))
            continue;
        Growth g = a->growth[s];
        if (!apply_verdict(verdict_of(entries + first, end - first, holders_site_bytes(s),
                                      space_on_device(space)),
                           &g))
            continue;
        a->growth.set(s, g);
        a->growth_class[s] = SiteClass::plateau;
        ULong live = static_cast<ULong>(SiteView(s)->clock.live);
        a->sites_in[static_cast<UInt>(SiteClass::growing)]--;
        a->bytes_in[static_cast<UInt>(SiteClass::growing)] -= live;
        a->sites_in[static_cast<UInt>(SiteClass::plateau)]++;
        a->bytes_in[static_cast<UInt>(SiteClass::plateau)] += live;
    }
}

// A Python site its summed series classes a plateau, held by containers with
// no bound, whose growing sub-sites hold most of it, is growing (rule
// "unbounded holder", core/holder_rule.hpp): the evidence is its largest
// growing sub-site's, at the growing sub-sites' summed rate.
bool unbounded_verdict(const Analysis& a, UInt ps, const Entry* e, UInt n, Growth* g) {
    ULong unbounded = 0, growing = 0, largest = 0;
    for (UInt i = 0; i < n; ++i) {
        UInt h = holder_index(e[i].key);
        if (h < n_holders && holder_keys[h] == e[i].key && unbounded_container(holders[h]))
            unbounded += e[i].bytes;
    }
    Growth out;
    double rate = 0;
    for (UInt id = a.py->sites[ps]->first; id != kNoPySite; id = a.py->next[id]) {
        if (a.growth[id].cls != SiteClass::growing) continue;
        auto live = static_cast<ULong>(SiteView(id)->clock.live);
        growing += live;
        rate += a.growth[id].rate;
        if (live >= largest) largest = live, out = a.growth[id];
    }
    if (!unbounded_growth(unbounded, py_bytes[ps], growing, a.py->sites[ps]->live_bytes))
        return false;
    out.rule = "unbounded holder";
    out.rate = rate;
    out.steps = 0, out.next_step = -1; // a sub-site's staircase is not the site's
    *g = out;
    return true;
}

// A run of one site's entries (merged by holder), folded by same_reading
// into at most kMaxHeldBy lines, largest first.
UInt fold_held(const Entry* e, UInt n, HeldBy* out) {
    constexpr UInt kGroups = 16; // of the largest entries: a fold rarely reaches further
    HeldBy g[kGroups];
    UInt n_groups = 0;
    for (UInt i = 0; i < n; ++i) {
        UInt h = e[i].key == kNotReached ? n_holders : holder_index(e[i].key);
        if (h == n_holders || holder_keys[h] != e[i].key) continue;
        UInt k = 0;
        while (k < n_groups && !holders_read_the_same(holders[g[k].holder], holders[h]))
            ++k;
        if (k < n_groups) {
            g[k].bytes += e[i].bytes, g[k].blocks += e[i].blocks, g[k].count++;
            if (holders[h].length > holders[g[k].holder].length) g[k].holder = h;
        } else if (n_groups < kGroups) {
            g[n_groups++] = HeldBy{h, e[i].bytes, e[i].blocks, 1};
        }
    }
    VG_(ssort)
    (g, n_groups, sizeof(HeldBy), [](const void* x, const void* y) -> Int {
        ULong a = static_cast<const HeldBy*>(x)->bytes, b = static_cast<const HeldBy*>(y)->bytes;
        return a > b ? -1 : a < b;
    });
    // A share under the report's threshold is no line of its own; the
    // largest always is.
    UInt m = 0;
    while (m < n_groups && m < kMaxHeldBy && (m == 0 || g[m].bytes >= line_floor))
        out[m] = g[m], ++m;
    return m;
}

void release_python_site_holders() {
    void* owned[] = {py_held, n_py_held, py_bytes};
    for (void* p : owned)
        if (p) VG_(free)(p);
    py_held = nullptr, n_py_held = nullptr, py_bytes = nullptr;
    n_py = 0;
}

// Per Python site: its sub-sites' entries, merged by holder.
void python_site_holders(const Analysis& a) {
    release_python_site_holders();
    if (!a.py) return;
    n_py = a.py->n;
    py_held =
        static_cast<HeldBy*>(VG_(calloc)("mg.holders.py", n_py * kMaxHeldBy + 1, sizeof(HeldBy)));
    n_py_held = static_cast<UChar*>(VG_(calloc)("mg.holders.py", n_py + 1, 1));
    py_bytes = static_cast<ULong*>(VG_(calloc)("mg.holders.py", n_py + 1, sizeof(ULong)));
    auto* e = static_cast<Entry*>(VG_(malloc)("mg.holders.py", (n_entries + 1) * sizeof(Entry)));
    UInt n = 0;
    for (UInt i = 0; i < n_entries; ++i) {
        UInt ps = entries[i].site < a.n_sites ? a.py->of_site[entries[i].site] : kNoPySite;
        if (ps == kNoPySite) continue;
        py_bytes[ps] += entries[i].bytes;
        if (entries[i].key == kNotReached || !class_wanted(a.py->sites[ps]->cls)) continue;
        e[n] = entries[i];
        e[n++].site = ps;
    }
    n = merge(e, n);
    for (UInt i = 0, end; i < n; i = end) { // the bounded-holder rule, per Python site
        UInt ps = e[i].site;
        for (end = i; end < n && e[end].site == ps;)
            ++end;
        PySite* p = a.py->sites[ps];
        Growth g = a.py->growth[ps];
        if (p->space != Space::mapped &&
            !blocks_grew(p->live_bytes, p->live_blocks, p->allocated_bytes, p->allocated_blocks) &&
            apply_verdict(verdict_of(e + i, end - i, py_bytes[ps], space_on_device(p->space)),
                          &g)) {
            a.py->growth.set(ps, g);
            p->cls = p->history = SiteClass::plateau;
            a.py->in_class[static_cast<UInt>(SiteClass::growing)]--;
            a.py->in_class[static_cast<UInt>(SiteClass::plateau)]++;
        } else if (p->space == Space::host && p->cls == SiteClass::plateau &&
                   unbounded_verdict(a, ps, e + i, end - i, &g)) {
            a.py->growth.set(ps, g);
            p->cls = p->history = SiteClass::growing;
            a.py->in_class[static_cast<UInt>(SiteClass::plateau)]--;
            a.py->in_class[static_cast<UInt>(SiteClass::growing)]++;
        }
    }
    for (UInt i = 0, end; i < n; i = end) {
        UInt ps = e[i].site;
        for (end = i; end < n && e[end].site == ps;)
            ++end;
        n_py_held[ps] = static_cast<UChar>(fold_held(e + i, end - i, py_held + ps * kMaxHeldBy));
    }
    VG_(free)(e);
}

} // namespace

bool holders_read_the_same(const Holder& x, const Holder& y) {
    return VG_(strcmp)(x.path, y.path) == 0 && x.root == y.root &&
           (x.type == y.type || (x.type && y.type && VG_(strcmp)(x.type, y.type) == 0));
}

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
    case RootKind::thread:
        return "thread";
    }
    return "?";
}

void holders_compute(const Analysis& a_, bool teardown, const UChar* also_name) {
    holders_release();
    const Analysis* a = &a_;
    at_teardown = teardown;
    bool obsolete = false;
    blocks = leak_scan_blocks(&n_blocks, &obsolete);
    if (!blocks) return;
    n_sites = n_wanted_sites = a->n_sites;
    wanted = static_cast<UChar*>(VG_(calloc)("mg.holders.wanted", n_sites + 1, 1));
    for (UInt s = 0; s < n_sites; ++s) {
        UInt ps = a->py ? a->py->of_site[s] : kNoPySite;
        // The sites asked about (who_holds) are wanted too: a line's objects
        // holding its other blocks (a bytearray its bytes) are no answer.
        wanted[s] = class_wanted(a->growth[s].cls) ||
                    (ps != kNoPySite && class_wanted(a->py->sites[ps]->cls)) ||
                    (also_name && also_name[s]);
    }
    memo = static_cast<ULong*>(VG_(malloc)("mg.holders.memo", (n_blocks + 1) * sizeof(ULong)));
    for (UInt i = 0; i < n_blocks; ++i)
        memo[i] = kUnknown;
    // (site, holder) pairs are far fewer than blocks: a full array is merged
    // in place and grows only when merging leaves it half full, so it stays
    // near the pairs' size, not one entry per block (a million blocks are
    // 32 MB of entries).
    UInt capacity = kFirstEntries;
    entries = static_cast<Entry*>(VG_(malloc)("mg.holders", capacity * sizeof(Entry)));
    parked_memo = static_cast<UChar*>(VG_(calloc)("mg.holders.parked", n_blocks + 1, 1));
    for (UInt i = 0; i < n_blocks; ++i) {
        if (blocks[i].site >= n_sites) continue;
        if (parked(i)) {
            if (teardown) park(blocks[i]);
            continue;
        }
        ULong key = holder_key(i);
        bool direct = is_block(key) ? blocks[i].via == key : !is_block(blocks[i].via);
        if (n_entries == capacity) {
            n_entries = merge(entries, n_entries);
            if (n_entries > capacity / 2) {
                capacity *= 2;
                entries = static_cast<Entry*>(
                    VG_(realloc)("mg.holders", entries, capacity * sizeof(Entry)));
            }
        }
        entries[n_entries++] =
            Entry{blocks[i].site, 1, key, blocks[i].size, direct ? blocks[i].size : 0};
    }
    n_entries = merge(entries, n_entries);
    site_first = static_cast<UInt*>(VG_(malloc)("mg.holders", (n_sites + 1) * sizeof(UInt)));
    for (UInt s = 0, e = 0; s <= n_sites; ++s) {
        while (e < n_entries && entries[e].site < s)
            ++e;
        site_first[s] = e;
    }

    // The holders worth a name: those of the wanted sites, and those that
    // hold the most of the rest (growth spread thin over many sites).
    auto* keys = static_cast<ULong*>(
        VG_(malloc)("mg.holders.keys", (n_entries + kSpreadHolders + 1) * sizeof(ULong)));
    UInt n_keys = 0;
    for (UInt i = 0; i < n_entries; ++i) {
        ULong k = entries[i].key;
        if (k != kNotReached &&
            (wanted[entries[i].site] || (also_name && also_name[entries[i].site]) ||
             (is_block(k) && blocks[k].kind == kDefinite)))
            keys[n_keys++] = k;
    }
    spread_candidates(keys, &n_keys);
    VG_(ssort)(keys, n_keys, sizeof(ULong), by_key);
    UInt distinct = 0;
    for (UInt i = 0; i < n_keys; ++i)
        if (!distinct || keys[distinct - 1] != keys[i]) keys[distinct++] = keys[i];
    holder_keys = keys, n_holders = distinct;
    holders = static_cast<Holder*>(VG_(calloc)("mg.holders", n_holders + 1, sizeof(Holder)));
    for (UInt i = 0; i < n_entries; ++i) {
        if (entries[i].key == kNotReached) continue;
        UInt h = holder_index(entries[i].key);
        if (h == n_holders || holder_keys[h] != entries[i].key) continue;
        holders[h].bytes += entries[i].bytes;
        holders[h].blocks += entries[i].blocks;
        holders[h].n_sites++;
    }
    // Whether every block of the holder, or some, was reached straight from it.
    auto* direct = static_cast<UChar*>(VG_(malloc)("mg.holders.direct", n_holders + 1));
    for (UInt h = 0; h < n_holders; ++h)
        direct[h] = kAllDirect | kSomeDirect;
    for (UInt i = 0; i < n_entries; ++i) {
        if (entries[i].key == kNotReached) continue;
        UInt h = holder_index(entries[i].key);
        if (h == n_holders || holder_keys[h] != entries[i].key) continue;
        if (entries[i].direct < entries[i].bytes) direct[h] &= ~kAllDirect;
    }
    for (UInt i = 0; i < n_entries; ++i) {
        if (entries[i].key == kNotReached) continue;
        UInt h = holder_index(entries[i].key);
        if (h < n_holders && holder_keys[h] == entries[i].key && entries[i].direct)
            direct[h] |= kSomeDirect << 2; // seen
    }
    for (UInt h = 0; h < n_holders; ++h)
        direct[h] = (direct[h] & kAllDirect) | (direct[h] >> 2 & kSomeDirect);
    for (UInt h = 0; h < n_holders; ++h) {
        ULong bytes = holders[h].bytes;
        UInt nblocks = holders[h].blocks, nsites = holders[h].n_sites;
        name_holder(holder_keys[h], direct[h], &holders[h]);
        holders[h].bytes = bytes, holders[h].blocks = nblocks, holders[h].n_sites = nsites;
        if (holders[h].bound >= 0 && !holders[h].type) holders[h].length = nblocks;
    }
    VG_(free)(direct);

    VG_(free)(memo);
    VG_(free)(parked_memo);
    memo = nullptr, parked_memo = nullptr;
    // Nothing reads the scan's blocks after this: their record may go.
    blocks = nullptr, n_blocks = 0;
}

bool holders_from_teardown() {
    return at_teardown;
}

void holders_apply(Analysis* a) {
    if (!site_first) return;
    line_floor = report_floor(*a);
    bounded_holder_rule(a);
    python_site_holders(*a);
    holder_findings_build(*a);
}

UInt holders_of(UInt site, const HeldBy** out) {
    static HeldBy held[kMaxHeldBy];
    if (!site_first || site >= n_sites) return 0;
    *out = held;
    return fold_held(entries + site_first[site], site_first[site + 1] - site_first[site], held);
}

UInt holders_of_python_site(UInt ps, const HeldBy** out) {
    if (!n_py_held || ps >= n_py || !n_py_held[ps]) return 0;
    *out = py_held + ps * kMaxHeldBy;
    return n_py_held[ps];
}

ULong holders_site_bytes(UInt site) {
    if (!site_first || site >= n_sites) return 0;
    ULong sum = 0;
    for (UInt e = site_first[site]; e < site_first[site + 1]; ++e)
        sum += entries[e].bytes;
    return sum;
}

ULong holders_python_site_bytes(UInt ps) {
    return py_bytes && ps < n_py ? py_bytes[ps] : 0;
}

void holders_for_each(HeldVisit f, void* ctx) {
    for (UInt s = 0; site_first && s < n_sites; ++s) {
        ULong whole = holders_site_bytes(s);
        for (UInt e = site_first[s]; e < site_first[s + 1]; ++e) {
            if (entries[e].key == kNotReached) continue;
            UInt h = holder_index(entries[e].key);
            if (h < n_holders && holder_keys[h] == entries[e].key)
                f(ctx, s, h, entries[e].bytes, whole);
        }
    }
}

void holder_text(const Holder& x, HChar* buf, SizeT n) {
    HChar len[32], bound[32];
    VG_(snprintf)(len, sizeof len, "%'lld", x.length);
    VG_(snprintf)(bound, sizeof bound, "%'lld", x.bound);
    LogText type(x.type); // a Python class may have any name
    const HChar* what = x.type ? type.c_str() : root_kind_name(x.root);
    const HChar* unit = x.type ? "items" : "slots";
    if (x.length >= 0 && x.bound >= 0)
        VG_(snprintf)(buf, n, "%s, %s of %s %s", what, len, bound, unit);
    else if (x.length >= 0)
        VG_(snprintf)(buf, n, "%s, %s %s, no bound", what, len, unit);
    else
        VG_(snprintf)(buf, n, "%s", what);
}

const Holder* holders_all(UInt* n) {
    *n = n_holders;
    return holders;
}

void holders_release() {
    for (UInt h = 0; h < n_holders; ++h) {
        VG_(free)(holders[h].path);
        if (holders[h].type) VG_(free)(const_cast<HChar*>(holders[h].type));
    }
    release_python_site_holders();
    holder_findings_release();
    void* owned[] = {wanted, memo, entries, site_first, holders, holder_keys};
    for (void* p : owned)
        if (p) VG_(free)(p);
    wanted = nullptr;
    memo = holder_keys = nullptr;
    entries = nullptr, site_first = nullptr, holders = nullptr;
    n_entries = n_holders = n_sites = n_wanted_sites = 0;
    blocks = nullptr, n_blocks = 0;
    at_teardown = false;
}

namespace {

// Whether a frame of the site is FILE:LINE (the file by its last component).
struct LineMatch {
    const HChar* file;
    Int line;
    bool found;
};
void match_frame(const Frame& f, void* ctx) {
    auto* m = static_cast<LineMatch*>(ctx);
    if (m->found || !f.file || f.line != m->line) return;
    const HChar* slash = VG_(strrchr)(f.file, '/');
    m->found = VG_(strcmp)(slash ? slash + 1 : f.file, m->file) == 0;
}

struct Sum {
    UInt holder; // the longest of those folded
    ULong bytes;
    UInt count; // holders that read the same, folded as in the report
};
struct WhoHolds {
    const UChar* sites;
    const Holder* all;
    Sum* sums;
    UInt n;
    ULong whole;
};
void add_held(void* ctx, UInt site, UInt holder, ULong bytes, ULong) {
    auto* w = static_cast<WhoHolds*>(ctx);
    if (!w->sites[site]) return;
    for (UInt i = 0; i < w->n; ++i) {
        Sum& s = w->sums[i];
        if (s.holder == holder) {
            s.bytes += bytes;
            return;
        }
        if (holders_read_the_same(w->all[s.holder], w->all[holder])) {
            s.bytes += bytes, s.count++;
            if (w->all[holder].length > w->all[s.holder].length) s.holder = holder;
            return;
        }
    }
    w->sums[w->n++] = Sum{holder, bytes, 1};
}

} // namespace

void holders_who_holds(const HChar* where) {
    if (!where || !*where) {
        VG_(gdb_printf)("who_holds: give FILE:LINE or a site id (try: help)\n");
        return;
    }
    if (clo.leak_check == LeakCheck::no) {
        VG_(gdb_printf)("who_holds: needs the leak scan (--leak-check=no was given)\n");
        return;
    }
    HChar file[256];
    Int line = -1;
    Long id = -1;
    const HChar* colon = VG_(strrchr)(where, ':');
    HChar* end;
    if (colon) {
        SizeT n =
            static_cast<SizeT>(colon - where) < sizeof file - 1 ? colon - where : sizeof file - 1;
        VG_(memcpy)(file, where, n);
        file[n] = 0;
        line = static_cast<Int>(VG_(strtoll10)(colon + 1, &end));
        if (*end || line <= 0) line = -1;
    } else {
        id = VG_(strtoll10)(where, &end);
        if (*end) id = -1;
    }
    if (line < 0 && id < 0) {
        VG_(gdb_printf)("who_holds: '%s' is not FILE:LINE or a site id\n", where);
        return;
    }
    bool teardown = holders_from_teardown();
    if (!teardown) leak_scan();
    Analysis a;
    analyse(&a);
    auto* sites = static_cast<UChar*>(VG_(calloc)("mg.who_holds", a.n_sites + 1, 1));
    UInt matched = 0;
    ULong live = 0;
    for (UInt s = 0; s < a.n_sites; ++s) {
        LineMatch m{file, line, false};
        if (id >= 0)
            m.found = static_cast<Long>(s) == id;
        else
            for_each_frame(SiteView(s), match_frame, &m);
        if (m.found) sites[s] = 1, ++matched, live += SiteView(s)->clock.live;
    }
    if (!matched) {
        VG_(gdb_printf)("who_holds: no site allocated at %s\n", where);
    } else {
        if (!teardown) holders_compute(a, false, sites);
        UInt n_all;
        const Holder* all = holders_all(&n_all);
        WhoHolds w{sites, all,
                   static_cast<Sum*>(VG_(malloc)("mg.who_holds", (n_all + 1) * sizeof(Sum))), 0, 0};
        holders_for_each(add_held, &w);
        for (UInt s = 0; s < a.n_sites; ++s)
            if (sites[s]) w.whole += holders_site_bytes(s);
        VG_(ssort)
        (w.sums, w.n, sizeof(Sum), [](const void* x, const void* y) -> Int {
            ULong a = static_cast<const Sum*>(x)->bytes, b = static_cast<const Sum*>(y)->bytes;
            return a > b ? -1 : a < b;
        });
        VG_(gdb_printf)
        ("%s: %u site%s, %'llu bytes live; held by:\n", where, matched, matched == 1 ? "" : "s",
         live);
        for (UInt i = 0; i < w.n && i < 10; ++i) {
            const Holder& h = all[w.sums[i].holder];
            HChar desc[160], such[32] = "";
            holder_text(h, desc, sizeof desc);
            if (w.sums[i].count > 1)
                VG_(snprintf)(such, sizeof such, "; %'u such", w.sums[i].count);
            VG_(gdb_printf)
            ("  %s (%s%s), %'llu bytes, %u%%\n", LogText(h.path).c_str(), desc, such,
             w.sums[i].bytes, w.whole ? static_cast<UInt>(100 * w.sums[i].bytes / w.whole) : 0);
        }
        if (!w.n) VG_(gdb_printf)("  nothing the scan reached (lost, or freed)\n");
        VG_(free)(w.sums);
        if (!teardown) holders_release();
    }
    VG_(free)(sites);
    analysis_release(&a);
}

} // namespace mg
