// Records by address: the tool's table of live heap blocks. Open addressing
// with the keys in the slots beside the records' pointers, so that a lookup
// touches one line of the table and no record but the one it finds (a free-
// list revival looks up addresses that start no block about as often as
// ones that do). Valgrind's VG_(HT) chains its nodes from buckets picked by
// a division: a lookup there is a bucket and a node or two, cache misses in
// a table of a hundred thousand blocks.
//
// Several records may share an address (a custom allocator's block declared
// again over a live one): find() and remove() take the newest, as VG_(HT)
// did. Linear probing, deletion by shifting back (no tombstones), at most
// three quarters full; header-only and allocation-agnostic (the tool
// passes VG_(malloc), the unit tests malloc).
#pragma once

#include "types.hpp"

namespace mg {

template <typename T> class AddrTable {
  public:
    using Alloc = void* (*)(usize bytes);
    using Release = void (*)(void* p);

    // No destructor: the tool keeps tables in globals and runs no static
    // destructors. reset() frees the memory.
    constexpr AddrTable(Alloc alloc, Release release) : alloc_(alloc), release_(release) {}
    AddrTable(const AddrTable&) = delete;
    AddrTable& operator=(const AddrTable&) = delete;

    // Adds r at key, in front of any record with the same key; false when
    // memory ran out.
    bool add(u64 key, T* r) {
        if ((size_ + 1) * 4 > slots_ * 3 && !grow()) return false;
        // Records of one key lie in probe order, newest first: the new one
        // takes the first one's slot and each moves one place on.
        for (u64 i = home(key, shift_);; i = (i + 1) & mask_) {
            Slot& s = slots_of_[i];
            if (!s.record) {
                s = Slot{key, r};
                ++size_;
                return true;
            }
            if (s.key == key) {
                T* older = s.record;
                s.record = r;
                r = older;
            }
        }
    }

    // The newest record at key, else null.
    T* find(u64 key) const {
        if (!size_) return nullptr;
        for (u64 i = home(key, shift_);; i = (i + 1) & mask_) {
            const Slot& s = slots_of_[i];
            if (!s.record) return nullptr;
            if (s.key == key) return s.record;
        }
    }

    // Brings the line where key's search begins into the cache, ahead of a
    // find, add or remove of it (the table is larger than the cache).
    void prefetch(u64 key) const {
        if (slots_of_) __builtin_prefetch(&slots_of_[home(key, shift_)]);
    }

    // Takes the newest record at key out, else returns null.
    T* remove(u64 key) { return take(key, nullptr); }
    // Takes r (at key) itself out; false when it is not there.
    bool remove_record(u64 key, T* r) { return take(key, r) != nullptr; }

    u64 size() const { return size_; }

    // Each record, in no order; f must not change the table.
    template <typename F> void for_each(F f) const {
        for (u64 i = 0; i < slots_; ++i)
            if (slots_of_[i].record) f(slots_of_[i].record);
    }

    void reset() {
        if (slots_of_) release_(slots_of_);
        slots_of_ = nullptr;
        slots_ = mask_ = size_ = 0;
        shift_ = 0;
    }

  private:
    struct Slot {
        u64 key;
        T* record; // null: free
    };

    // Fibonacci hashing: the product's top bits, where every bit of the
    // key (16-aligned heap addresses: the low 4 bits are 0) has a say.
    static u64 home(u64 key, u32 shift) { return (key * 0x9e3779b97f4a7c15ull) >> shift; }

    // The newest record at key (or r itself) out of the table; the records
    // after it in its run move back where their probe allows (no tombstones).
    T* take(u64 key, T* r) {
        if (!size_) return nullptr;
        u64 i = home(key, shift_);
        for (;; i = (i + 1) & mask_) {
            const Slot& s = slots_of_[i];
            if (!s.record) return nullptr;
            if (s.key == key && (!r || s.record == r)) break;
        }
        T* found = slots_of_[i].record;
        for (u64 j = (i + 1) & mask_;; j = (j + 1) & mask_) {
            const Slot& s = slots_of_[j];
            if (!s.record) break;
            // s stays when its home lies cyclically in (i, j].
            u64 h = home(s.key, shift_);
            if (((j - h) & mask_) < ((j - i) & mask_)) continue;
            slots_of_[i] = s;
            i = j;
        }
        slots_of_[i].record = nullptr;
        --size_;
        return found;
    }

    // Twice the slots (1024 at first). The records move in probe order,
    // from a free slot on, so that those of one key stay newest first.
    bool grow() {
        u64 n = slots_ ? slots_ * 2 : 1024;
        u32 shift = shift_ ? shift_ - 1 : 64 - 10;
        auto* fresh = static_cast<Slot*>(alloc_(n * sizeof(Slot)));
        if (!fresh) return false;
        for (u64 i = 0; i < n; ++i)
            fresh[i] = Slot{0, nullptr};
        u64 start = 0;
        while (start < slots_ && slots_of_[start].record)
            ++start;
        for (u64 k = 0; k < slots_; ++k) {
            const Slot& s = slots_of_[(start + k) & mask_];
            if (!s.record) continue;
            u64 j = home(s.key, shift);
            while (fresh[j].record)
                j = (j + 1) & (n - 1);
            fresh[j] = s;
        }
        if (slots_of_) release_(slots_of_);
        slots_of_ = fresh, slots_ = n, mask_ = n - 1, shift_ = shift;
        return true;
    }

    Alloc alloc_;
    Release release_;
    Slot* slots_of_ = nullptr;
    u64 slots_ = 0, mask_ = 0, size_ = 0;
    u32 shift_ = 0; // 64 - log2(slots_)
};

} // namespace mg
