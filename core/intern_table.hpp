// Interns pairs of 64-bit keys as dense ids 0, 1, 2, ... in order of first
// sight: the frame table and the stack tree of a format-2 report (a frame is
// (code word, epoch and inline depth), a stack node (frame, caller node)).
//
// Header-only and allocation-agnostic: the tool passes VG_(malloc), the unit
// tests malloc. Memory is the keys themselves (16 bytes an id) plus an
// open-addressing index at most half full (8 to 16 bytes an id), and a
// payload of 8 bytes an id.
#pragma once

#include "types.hpp"

namespace mg {

class InternTable {
  public:
    using Alloc = void* (*)(usize bytes);
    using Release = void (*)(void* p);
    static constexpr u32 kNone = 0xffffffffu;

    // No destructor: the tool keeps tables in globals and runs no static
    // destructors. reset() frees the memory.
    constexpr InternTable(Alloc alloc, Release release) : alloc_(alloc), release_(release) {}
    InternTable(const InternTable&) = delete;
    InternTable& operator=(const InternTable&) = delete;

    // The id of (a, b), added when new with `payload` (kept beside the key,
    // not part of it); kNone when memory ran out.
    u32 intern(u64 a, u64 b, u64 payload = 0) {
        if ((size_ + 1) * 2 > slots_ && !grow()) return kNone;
        u64 mask = slots_ - 1;
        for (u64 i = hash(a, b) & mask;; i = (i + 1) & mask) {
            u32 id = index_[i];
            if (id == kNone) {
                if (size_ == cap_ && !grow_keys()) return kNone;
                a_[size_] = a, b_[size_] = b, p_[size_] = payload;
                index_[i] = size_;
                return size_++;
            }
            if (a_[id] == a && b_[id] == b) return id;
        }
    }

    u32 size() const { return size_; }
    u64 first(u32 id) const { return a_[id]; }
    u64 second(u32 id) const { return b_[id]; }
    u64 payload(u32 id) const { return p_[id]; }

    void reset() {
        if (index_) release_(index_);
        if (a_) release_(a_);
        if (b_) release_(b_);
        if (p_) release_(p_);
        index_ = nullptr, a_ = b_ = p_ = nullptr;
        size_ = cap_ = 0, slots_ = 0;
    }

  private:
    static u64 hash(u64 a, u64 b) {
        u64 h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
        return h ^ (h >> 29);
    }

    bool grow() {
        u64 n = slots_ ? slots_ * 2 : 1024;
        auto* index = static_cast<u32*>(alloc_(n * sizeof(u32)));
        if (!index) return false;
        for (u64 i = 0; i < n; ++i)
            index[i] = kNone;
        for (u32 id = 0; id < size_; ++id)
            for (u64 i = hash(a_[id], b_[id]) & (n - 1);; i = (i + 1) & (n - 1))
                if (index[i] == kNone) {
                    index[i] = id;
                    break;
                }
        if (index_) release_(index_);
        index_ = index, slots_ = n;
        return true;
    }

    bool grow_keys() {
        u32 cap = cap_ ? cap_ * 2 : 512;
        auto* a = static_cast<u64*>(alloc_(cap * sizeof(u64)));
        auto* b = static_cast<u64*>(alloc_(cap * sizeof(u64)));
        auto* p = static_cast<u64*>(alloc_(cap * sizeof(u64)));
        if (!a || !b || !p) {
            if (a) release_(a);
            if (b) release_(b);
            if (p) release_(p);
            return false;
        }
        for (u32 i = 0; i < size_; ++i)
            a[i] = a_[i], b[i] = b_[i], p[i] = p_[i];
        if (a_) release_(a_), release_(b_), release_(p_);
        a_ = a, b_ = b, p_ = p, cap_ = cap;
        return true;
    }

    Alloc alloc_;
    Release release_;
    u32* index_ = nullptr;
    u64* a_ = nullptr;
    u64* b_ = nullptr;
    u64* p_ = nullptr;
    u32 size_ = 0, cap_ = 0;
    u64 slots_ = 0;
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
