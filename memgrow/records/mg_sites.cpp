// SPDX-License-Identifier: GPL-2.0-or-later
#include "records/mg_sites.hpp"
#include "mg_options.hpp"
#include "python/mg_python.hpp"
#include "records/mg_stack_tree.hpp"
#include "records/mg_stacks.hpp"

namespace mg {

const HChar* space_name(Space s) {
    switch (s) {
    case Space::device:
        return "device";
    case Space::managed:
        return "managed";
    case Space::pinned:
        return "pinned";
    case Space::mapped:
        return "mapped";
    default:
        return "host";
    }
}

namespace {

u32 site_key(Space space, UInt device) {
    return static_cast<u32>(space) << 8 | device;
}

// Sites by (stack node, space and device): open addressing over site ids,
// at most three quarters full, whose keys are read from the sites
// themselves. A copy of the keys beside the ids would be 8 more bytes a
// site (12 MB for the 1.46 million sites of `import torch`).
class SiteIndex {
  public:
    static constexpr UInt kFree = ~0u;

    // The id of the key's site, else kFree; remembers where a new one goes.
    UInt find(UInt stack, u32 key) {
        if (n_ + 1 > slots_ / 4 * 3) grow();
        for (UWord i = home(stack, key, slots_);; i = next(i)) {
            UInt id = ids_[i];
            if (id == kFree) {
                free_slot_ = i;
                return kFree;
            }
            UInt its_stack, its_key;
            site_key_of(id, &its_stack, &its_key);
            if (its_stack == stack && its_key == key) return id;
        }
    }
    // Adds the site find() did not find, at the slot it found free.
    void add_found(const Site* s) {
        ids_[free_slot_] = s->id;
        ++n_;
    }
    UInt size() const { return n_; }
    void reset() {
        if (ids_) VG_(free)(ids_);
        ids_ = nullptr;
        slots_ = n_ = 0;
    }

  private:
    static UWord home(UInt stack, u32 key, UWord slots) {
        ULong h = (stack * 0x9e3779b97f4a7c15ull) ^ (key + 0x632be59bd9b4e019ull);
        h ^= h >> 29;
        return static_cast<UWord>((static_cast<unsigned __int128>(h) * slots) >> 64);
    }
    UWord next(UWord i) const { return i + 1 == slots_ ? 0 : i + 1; }

    // Twice the slots; after reset, enough for the sites there are and a
    // quarter more.
    void grow() {
        UInt n_sites = site_count();
        UWord want = slots_ ? slots_ * 2 : (static_cast<UWord>(n_sites) * 5 / 4 + 1) * 4 / 3 + 1024;
        auto* ids = static_cast<UInt*>(VG_(malloc)("mg.sites.index", want * sizeof(UInt)));
        for (UWord i = 0; i < want; ++i)
            ids[i] = kFree;
        // Every site is in the index, those it held and (after a reset)
        // the others: ids are dense.
        for (UInt id = 0; id < n_sites; ++id) {
            UInt stack, key;
            site_key_of(id, &stack, &key);
            UWord i = home(stack, key, want);
            while (ids[i] != kFree)
                i = i + 1 == want ? 0 : i + 1;
            ids[i] = id;
        }
        if (ids_) VG_(free)(ids_);
        ids_ = ids, slots_ = want, n_ = n_sites;
    }

    UInt* ids_ = nullptr;
    UWord slots_ = 0, free_slot_ = 0;
    UInt n_ = 0;
};
__constinit SiteIndex index;

Site* new_site(UInt stack, UInt n, Space space, UInt device) {
    Site* s = site_store_new();
    s->stack = stack;
    s->n_frames = static_cast<UShort>(n);
    s->space = space;
    s->device = static_cast<UChar>(device);
    s->epoch = VG_(current_DiEpoch)();
    return s;
}

// The preload's code range: its frames are memgrow's, not the program's.
Addr preload_lo, preload_hi;
UInt preload_searches; // bounded: without the preload there is nothing to find

void find_preload() {
    for (const DebugInfo* di = VG_(next_DebugInfo)(nullptr); di; di = VG_(next_DebugInfo)(di)) {
        const HChar* name = VG_(DebugInfo_get_filename)(di);
        if (name && VG_(strstr)(name, "vgpreload_memgrow")) {
            preload_lo = VG_(DebugInfo_get_text_avma)(di);
            preload_hi = preload_lo + VG_(DebugInfo_get_text_size)(di);
            return;
        }
    }
}

inline bool in_preload(Addr ip) {
    return ip >= preload_lo && ip < preload_hi;
}

inline UWord hash_words(const StackWord* w, UInt n, UWord seed) {
    UWord h = seed * 0x9E3779B97F4A7C15ull;
    for (UInt i = 0; i < n; ++i) {
        h ^= w[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    }
    return h ^ (h >> 29);
}

// Native frames captured when Python frames replace some: the interpreter's
// loop and call machinery take several native frames per Python call.
constexpr UInt kPythonNativeFrames = 64;
// Start-up's: --startup-depth and these, enough to reach the evaluation
// loop from most allocations.
constexpr UInt kStartupNativeSlack = 8;

// Which frames of a native stack are the evaluation loop: bit i for frame
// i. Bit 0 (the innermost frame: never the loop) says "computed", so that
// the mask can be cached as the stack's payload.
UWord eval_frames(const CapturedStack& stack) {
    UWord mask = 1;
    for (UInt i = 1; i < stack.n && i < 64; ++i)
        if (python_is_eval(stack.ips[i])) mask |= 1ull << i;
    return mask;
}

// 3.12+: the native frames that hold a segment's entry frame are calls of
// the evaluation loop too, whatever their symbol: GCC moves most of the loop
// into _PyEval_EvalFrameDefault.cold, which a stripped interpreter (Debian's
// 3.13+) does not name. Checked per allocation: entry frames move.
UWord entry_frames(const CapturedStack& stack, const PythonStack& py) {
    constexpr Addr kLastFrameBytes = 16384; // the outermost frame's extent is unknown
    UWord mask = 0;
    for (UInt k = 0; k < py.n_segments; ++k) {
        Addr e = py.segment_entry[k];
        for (UInt i = 1; e && i < stack.n && i < 64; ++i) {
            Addr hi = i + 1 < stack.n ? stack.sps[i + 1] : stack.sps[i] + kLastFrameBytes;
            if (e >= stack.sps[i] && e < hi) {
                mask |= 1ull << i;
                break;
            }
        }
    }
    return mask;
}

// The hybrid stack: each call of the evaluation loop, innermost first,
// gives way to the Python frames it runs; between Python frames the
// interpreter's own call machinery is left out, C extensions stay.
UInt merge_python(const CapturedStack& stack, UWord eval_mask, const PythonStack& py, StackWord* w,
                  UInt depth, bool keep_preload = false) {
    bool only = clo.python == PythonFrames::only && py.n_tokens > 0;
    // A deep native stack (PyTorch's dispatcher: 30 to 60 frames from an
    // operator to its allocation) must not crowd out the Python line that
    // made the allocation: native frames beyond their share are left out,
    // the innermost kept.
    UInt py_share = py.n_tokens < depth / 2 ? py.n_tokens : depth / 2;
    UInt native_budget = depth - py_share, natives = 0;
    UInt n = 0, segment = 0, token = 0;
    bool after_python = false;
    for (UInt i = 0; i < stack.n && n < depth; ++i) {
        Addr ip = stack.ips[i];
        // An error inside a replaced function shows that function on top.
        if (in_preload(ip) && !(keep_preload && n == i)) continue;
        if (i < 64 && (eval_mask >> i & 1) && i > 0 && segment < py.n_segments) {
            for (; token < py.segment_end[segment] && n < depth; ++token)
                w[n++] = py.tokens[token];
            ++segment;
            after_python = true;
            continue;
        }
        if (only || (after_python && python_in_interpreter(ip))) continue;
        if (natives == native_budget) continue;
        w[n++] = ip;
        ++natives;
    }
    // Python frames past the native frames captured.
    for (; token < py.n_tokens && n < depth; ++token)
        w[n++] = py.tokens[token];
    return n;
}

Site* intern(Space space, UInt device, const StackWord* w, UInt n) {
    UInt stack = stack_tree_intern(w, n);
    UInt id = index.find(stack, site_key(space, device));
    if (id != SiteIndex::kFree) return site_at(id); // revived if compact
    Site* s = new_site(stack, n, space, device);
    index.add_found(s);
    return s;
}

// The hybrid stacks merged last, by what the merge reads: a cached native
// stack (its serial), the evaluation-loop and entry-frame mask, and the
// Python frames with their segments. A loop that allocates from one line
// again and again reads its Python frames (they may have changed) but merges
// and interns nothing. Direct-mapped; stacks too big for an entry are not
// kept.
class HybridMemo {
  public:
    // The site merged before from these inputs, else null (then `store`
    // keeps the one merged now).
    Site* find(const CapturedStack& stack, UWord mask, const PythonStack& py, Space space,
               UInt device) {
        slot_ = nullptr;
        if (!stack.serial || py.n_tokens > kTokens || py.n_segments > kSegments) return nullptr;
        UWord h = hash_words(py.tokens, py.n_tokens, stack.serial ^ mask << 1);
        for (UInt k = 0; k < py.n_segments; ++k)
            h = h * 31 + py.segment_end[k];
        h ^= static_cast<UWord>(space) << 8 | device;
        Entry& e = entries_[h & (kEntries - 1)];
        slot_ = &e;
        hash_ = h;
        if (!e.site || e.hash != h || e.serial != stack.serial || e.mask != mask ||
            e.n_tokens != py.n_tokens || e.n_segments != py.n_segments || e.site->space != space ||
            e.site->device != device)
            return nullptr;
        for (UInt i = 0; i < py.n_tokens; ++i)
            if (e.tokens[i] != py.tokens[i]) return nullptr;
        for (UInt k = 0; k < py.n_segments; ++k)
            if (e.segment_end[k] != py.segment_end[k]) return nullptr;
        ++hits_;
        return e.site;
    }

    void store(const CapturedStack& stack, UWord mask, const PythonStack& py, Site* site) {
        if (!slot_) return;
        Entry& e = *slot_;
        e = {hash_, stack.serial, mask, site, py.n_tokens, py.n_segments, {}, {}};
        for (UInt i = 0; i < py.n_tokens; ++i)
            e.tokens[i] = py.tokens[i];
        for (UInt k = 0; k < py.n_segments; ++k)
            e.segment_end[k] = py.segment_end[k];
    }

    // What the merge leaves out changed (memgrow's preload was found).
    void clear() { VG_(memset)(entries_, 0, sizeof entries_); }

    ULong hits() const { return hits_; }

  private:
    static constexpr UInt kEntries = 2048, kTokens = 24, kSegments = 8;
    struct Entry {
        UWord hash;
        ULong serial;
        UWord mask;
        Site* site;
        UInt n_tokens, n_segments;
        StackWord tokens[kTokens];
        UInt segment_end[kSegments];
    };
    Entry entries_[kEntries] = {};
    Entry* slot_ = nullptr;
    UWord hash_ = 0;
    ULong hits_ = 0;
};
__constinit HybridMemo memo;

} // namespace

bool ip_in_preload(Addr ip) {
    return in_preload(ip);
}

Site* site_of_current_stack(ThreadId tid, Space space, UInt device, StackPurpose purpose) {
    if (sites_compact_if_due()) {
        // Compacted sites' records are reused: no cached stack or merge may
        // still name one.
        memo.clear();
        stack_cache_clear(StackPurpose::allocation);
        stack_cache_clear(StackPurpose::revival);
    }
    UInt depth = static_cast<UInt>(clo.depth);
    StackWord w[kMaxSiteFrames];
    if (preload_hi == 0 && preload_searches++ < 16) {
        find_preload();
        if (preload_hi) memo.clear();
    }
    if (python_poll()) {
        // While the script's imports run, stacks are --startup-depth deep:
        // start-up's sites are shown summed, and `import torch`'s millions
        // of allocations are most of a run's unwinding, walking and
        // interning. The caches hold stacks of one depth.
        static bool short_stacks;
        bool startup = clo.startup_depth < clo.depth && python_startup_pending();
        if (startup != short_stacks) {
            stack_cache_clear(StackPurpose::allocation);
            stack_cache_clear(StackPurpose::revival);
            short_stacks = startup;
        }
        if (startup) depth = static_cast<UInt>(clo.startup_depth);
        // The native part is cached with its evaluation-loop frames; the
        // Python frames change from line to line and are read every time.
        CapturedStack stack = capture_stack(
            tid, purpose, startup ? depth + kStartupNativeSlack : kPythonNativeFrames);
        if (!*stack.payload) *stack.payload = reinterpret_cast<void*>(eval_frames(stack));
        static PythonStack py;
        python_stack(tid, depth, &py);
        if (startup && !python_startup_pending()) // this allocation ended the start-up
            return site_of_current_stack(tid, space, device, purpose);
        UWord mask = reinterpret_cast<UWord>(*stack.payload) | entry_frames(stack, py);
        if (Site* s = memo.find(stack, mask, py, space, device)) return s;
        Site* s = intern(space, device, w, merge_python(stack, mask, py, w, depth));
        memo.store(stack, mask, py, s);
        return s;
    }
    CapturedStack stack = capture_stack(tid, purpose, depth + 4);
    Site* cached = static_cast<Site*>(*stack.payload);
    if (cached && cached->space == space && cached->device == device) return cached;
    // memgrow's own frames (the malloc replacements, the exit and CPython
    // wrappers) are not the program's: leave them out wherever they are.
    UInt n = 0;
    for (UInt i = 0; i < stack.n && n < depth; ++i)
        if (!in_preload(stack.ips[i])) w[n++] = stack.ips[i];
    Site* s = intern(space, device, w, n);
    *stack.payload = s;
    return s;
}

UInt current_hybrid_stack(ThreadId tid, StackWord* w, UInt max) {
    UInt depth = static_cast<UInt>(clo.depth);
    if (depth > max) depth = max;
    if (!python_poll()) return 0;
    // An error is rare: no cache, so as not to disturb the allocations'.
    Addr ips[kPythonNativeFrames], sps[kPythonNativeFrames];
    UInt n = VG_(get_StackTrace)(tid, ips, kPythonNativeFrames, sps, nullptr, 0);
    CapturedStack stack{ips, sps, n, nullptr, 0};
    static PythonStack py;
    python_stack(tid, depth, &py);
    UWord mask = eval_frames(stack) | entry_frames(stack, py);
    return merge_python(stack, mask, py, w, depth, true);
}

UInt current_stack_node(ThreadId tid) {
    StackWord w[kMaxSiteFrames];
    UInt n = current_hybrid_stack(tid, w, kMaxSiteFrames);
    if (!n) {
        UInt depth = static_cast<UInt>(clo.depth);
        Addr ips[kMaxSiteFrames + 4];
        UInt got = VG_(get_StackTrace)(tid, ips, depth + 4, nullptr, nullptr, 0);
        for (UInt i = 0; i < got && n < depth; ++i)
            if (!in_preload(ips[i])) w[n++] = ips[i];
    }
    return n ? stack_tree_intern(w, n) : kEmptyStack;
}

ULong hybrid_memo_hits() {
    return memo.hits();
}

void sites_drop_index() {
    index.reset();
}

UInt site_frames(const Site* s, StackWord* out, UInt max) {
    return stack_tree_read(s->stack, out, max);
}

StackWord site_top_word(const Site* s) {
    return s->stack == kEmptyStack ? 0 : stack_tree_word(s->stack);
}

} // namespace mg
