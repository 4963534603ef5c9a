// SPDX-License-Identifier: GPL-2.0-or-later
// Interns pairs of keys as dense ids 0, 1, 2, ... in order of first sight:
// the frame table and the stack tree of a format-2 report (a frame is (code
// word, inline depth) with its epoch as payload; a stack node (frame,
// caller node + 1), two 32-bit keys and no payload).
//
// Header-only and allocation-agnostic: the tool passes VG_(malloc), the unit
// tests malloc. Memory is the keys themselves (8 bytes a node, 16 a frame,
// plus 4 of payload) in chunks that are never moved, so growing neither
// copies them nor holds two copies at once, and an open-addressing index at
// most three quarters full (about 5 to 11 bytes an id). A million stacks of
// a big program are two to three million nodes: this is most of what the
// report costs the tool.
#pragma once

#include "types.hpp"

namespace mg {

// Key2 (the second key's type) may be narrower than Key: the pairs are
// packed, so a (u64, u32) pair takes 12 bytes.
template <typename Key, bool kPayload, typename Key2 = Key> class BasicInternTable {
  public:
    using Alloc = void* (*)(usize bytes);
    using Release = void (*)(void* p);
    static constexpr u32 kNone = 0xffffffffu;

    // No destructor: the tool keeps tables in globals and runs no static
    // destructors. reset() frees the memory.
    constexpr BasicInternTable(Alloc alloc, Release release) : alloc_(alloc), release_(release) {}
    BasicInternTable(const BasicInternTable&) = delete;
    BasicInternTable& operator=(const BasicInternTable&) = delete;

    // The id of (a, b), added when new with `payload` (kept beside the key,
    // not part of it; ignored without one); kNone when memory ran out.
    u32 intern(Key a, Key2 b, u32 payload = 0) {
        if ((static_cast<u64>(size_) + 1) * 4 > slots_ * 3 && !grow()) return kNone;
        for (u64 i = home(a, b);; i = i + 1 == slots_ ? 0 : i + 1) {
            u32 id = index_[i];
            if (id == kNone) {
                if (size_ == cap_ && !add_chunk()) return kNone;
                Pair& k = pair(size_);
                k.a = a, k.b = b;
                if constexpr (kPayload) payloads_[size_ >> kShift][size_ & kMask] = payload;
                index_[i] = size_;
                return size_++;
            }
            const Pair& k = pair(id);
            if (k.a == a && k.b == b) return id;
        }
    }

    // Sizes the index for n ids at once (when about that many will come):
    // growing to it later would hold the old index and the new together.
    // Exactly: the index is any size, not a power of two (a third smaller
    // on average, 10 MB of a PyTorch report's).
    bool reserve(u32 n) {
        u64 slots = min_slots(n);
        return slots <= slots_ || grow_to(slots);
    }

    // Frees the index and keeps the keys: lookups are over (a process's
    // last report needs only the ids it has). The next intern() rebuilds it.
    void drop_index() {
        if (index_) release_(index_);
        index_ = nullptr, slots_ = 0;
    }

    u32 size() const { return size_; }
    Key first(u32 id) const { return pair(id).a; }
    Key2 second(u32 id) const { return pair(id).b; }
    u32 payload(u32 id) const {
        static_assert(kPayload, "a table without payload");
        return payloads_[id >> kShift][id & kMask];
    }

    void reset() {
        for (u32 c = 0; c < cap_ >> kShift; ++c) {
            release_(pairs_[c]);
            if constexpr (kPayload) release_(payloads_[c]);
        }
        if (pairs_) release_(pairs_);
        if (payloads_) release_(payloads_);
        if (index_) release_(index_);
        index_ = nullptr, pairs_ = nullptr, payloads_ = nullptr;
        size_ = cap_ = 0, slots_ = 0, chunk_slots_ = 0;
    }

  private:
    struct __attribute__((packed)) Pair {
        Key a;
        Key2 b;
    };
    static constexpr u32 kShift = 14, kChunk = 1u << kShift, kMask = kChunk - 1;

    Pair& pair(u32 id) const { return pairs_[id >> kShift][id & kMask]; }

    static u64 hash(u64 a, u64 b) {
        u64 h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
        return h ^ (h >> 29);
    }
    // A key's first slot among `slots`: the hash scaled (no power of two needed).
    static u64 scaled(u64 h, u64 slots) {
        return static_cast<u64>((static_cast<unsigned __int128>(h) * slots) >> 64);
    }
    u64 home(Key a, Key2 b) const { return scaled(hash(a, b), slots_); }

    // The fewest slots that hold n ids at most three quarters full.
    static u64 min_slots(u64 n) {
        u64 slots = ((n + 1) * 4 + 2) / 3;
        return slots < 1024 ? 1024 : slots;
    }

    // Twice the slots, or (without an index) enough for the keys there are
    // and a quarter more: an index rebuilt full would double at the next key.
    bool grow() {
        u64 n = slots_ ? slots_ * 2 : 1024;
        u64 least = min_slots(size_ + size_ / 4 + 1);
        return grow_to(n < least ? least : n);
    }

    bool grow_to(u64 n) {
        auto* index = static_cast<u32*>(alloc_(n * sizeof(u32)));
        if (!index) return false;
        for (u64 i = 0; i < n; ++i)
            index[i] = kNone;
        for (u32 id = 0; id < size_; ++id)
            for (u64 i = scaled(hash(pair(id).a, pair(id).b), n);; i = i + 1 == n ? 0 : i + 1)
                if (index[i] == kNone) {
                    index[i] = id;
                    break;
                }
        if (index_) release_(index_);
        index_ = index, slots_ = n;
        return true;
    }

    // One more chunk of keys (and payloads); the chunk directory doubles.
    bool add_chunk() {
        u32 c = cap_ >> kShift;
        if (c == chunk_slots_) {
            u32 n = chunk_slots_ ? chunk_slots_ * 2 : 16;
            auto* pairs = static_cast<Pair**>(alloc_(n * sizeof(Pair*)));
            auto* payloads = kPayload ? static_cast<u32**>(alloc_(n * sizeof(u32*))) : nullptr;
            if (!pairs || (kPayload && !payloads)) {
                if (pairs) release_(pairs);
                if (payloads) release_(payloads);
                return false;
            }
            for (u32 i = 0; i < c; ++i) {
                pairs[i] = pairs_[i];
                if constexpr (kPayload) payloads[i] = payloads_[i];
            }
            if (pairs_) release_(pairs_);
            if (payloads_) release_(payloads_);
            pairs_ = pairs, payloads_ = payloads, chunk_slots_ = n;
        }
        auto* pairs = static_cast<Pair*>(alloc_(kChunk * sizeof(Pair)));
        auto* payloads = kPayload ? static_cast<u32*>(alloc_(kChunk * sizeof(u32))) : nullptr;
        if (!pairs || (kPayload && !payloads)) {
            if (pairs) release_(pairs);
            if (payloads) release_(payloads);
            return false;
        }
        pairs_[c] = pairs;
        if constexpr (kPayload) payloads_[c] = payloads;
        cap_ += kChunk;
        return true;
    }

    Alloc alloc_;
    Release release_;
    u32* index_ = nullptr;
    Pair** pairs_ = nullptr;   // chunks of kChunk keys
    u32** payloads_ = nullptr; // chunks of kChunk payloads (kPayload only)
    u32 size_ = 0, cap_ = 0, chunk_slots_ = 0;
    u64 slots_ = 0;
};

// Frames: (code word, inline depth), the epoch of their first sight beside.
using FrameInternTable = BasicInternTable<u64, true>;
// Stack nodes: (frame id, caller node + 1).
using NodeInternTable = BasicInternTable<u32, false>;
// (word, 32-bit node) pairs without payload, 12 bytes each: the tool's stack tree.
using WordNodeInternTable = BasicInternTable<u64, false, u32>;

// A stack tree: each stack of words (innermost first) is one node, its
// innermost word and its caller's node, interned from the outermost word
// in, as heaptrack's trace tree does. Stacks come in runs that share their
// callers, so the outer words the last stack had too reuse its nodes
// without a probe of the index (a probe is a cache miss or two in a table
// of millions of nodes). Callers are interned before their callees: a
// caller's id is below its callee's.
class StackTree {
  public:
    static constexpr u32 kEmpty = 0xffffffffu; // the node of a stack without words
    static constexpr u32 kRemembered = 512;    // deeper last stacks are not kept

    // The last stack one kind of caller interned, with its nodes: callers
    // whose stacks differ in kind (allocations, frees) keep one each.
    struct Memo {
        u64 words[kRemembered] = {};
        u32 nodes[kRemembered] = {};
        u32 n = 0;
    };

    constexpr StackTree(WordNodeInternTable::Alloc alloc, WordNodeInternTable::Release release)
        : nodes_(alloc, release) {}

    // The node of words[0..n), added when new; kEmpty for n == 0, and when
    // memory or the 32-bit ids ran out (the caller says so).
    u32 intern(const u64* words, u32 n, bool* full) { return intern(words, n, full, memo_); }

    // The same with the caller's memo.
    u32 intern(const u64* words, u32 n, bool* full, Memo& m) {
        *full = false;
        u32 shared = 0;
        if (n <= kRemembered)
            while (shared < n && shared < m.n && words[n - 1 - shared] == m.words[m.n - 1 - shared])
                ++shared;
        // m.nodes[i] is the node of words[i..n): the shared ones move with
        // their words (before the new ones are written below them).
        if (shared && n != m.n) {
            move(m.nodes, n - shared, m.n - shared, shared);
            move(m.words, n - shared, m.n - shared, shared);
        }
        u32 caller = shared ? m.nodes[n - shared] + 1 : 0;
        for (u32 i = n - shared; i-- > 0;) {
            u32 node = nodes_.intern(words[i], caller);
            if (node == kEmpty || node + 1 == kEmpty) {
                m.n = 0;
                *full = true;
                return kEmpty;
            }
            caller = node + 1;
            if (n <= kRemembered) m.nodes[i] = node, m.words[i] = words[i];
        }
        m.n = n <= kRemembered ? n : 0;
        return static_cast<u32>(caller - 1);
    }

    u64 word(u32 node) const { return nodes_.first(node); }
    u32 caller(u32 node) const { return static_cast<u32>(nodes_.second(node) - 1); }
    u32 size() const { return nodes_.size(); }
    // Frees the index (nodes stay, as do their ids); see BasicInternTable.
    void drop_index() { nodes_.drop_index(); }
    // Forgets every node (the callers' memos must be forgotten too).
    void reset() {
        nodes_.reset();
        memo_.n = 0;
    }

  private:
    template <typename T> static void move(T* a, u32 to, u32 from, u32 n) {
        if (to < from)
            for (u32 i = 0; i < n; ++i)
                a[to + i] = a[from + i];
        else
            for (u32 i = n; i-- > 0;)
                a[to + i] = a[from + i];
    }

    WordNodeInternTable nodes_; // (word, caller node + 1): 0 says "no caller"
    Memo memo_;
};

// Sparse series, as format 2 writes them (docs/output-format.md): a level
// series as its change points (bucket, value) where the value differs from
// the bucket before (0 before the first), a per-bucket amount as its
// non-zero buckets. Calls put(bucket, value) for each pair.
template <typename T, typename Put> void for_each_change(const T* v, u32 n, Put put) {
    T prev = 0;
    for (u32 i = 0; i < n; ++i)
        if (v[i] != prev) put(i, v[i]), prev = v[i];
}
template <typename T, typename Put> void for_each_nonzero(const T* v, u32 n, Put put) {
    for (u32 i = 0; i < n; ++i)
        if (v[i] != 0) put(i, v[i]);
}

} // namespace mg
