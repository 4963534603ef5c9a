// SPDX-License-Identifier: GPL-2.0-or-later
// The leak scan's graph walk, with memcheck's semantics: which heap blocks
// are reachable from the roots, which only through interior pointers, and
// which are lost (definitely: nothing points at them; indirectly: only lost
// blocks do). Header-only so that the rules are tested natively; the tool
// supplies the memory (client pages it has checked, a fault catcher).
//
// The walk follows memcheck 3.19's (mc_leakcheck.c) step for step, because
// its byte counts are the reference users compare against:
// - roots are words of non-heap memory and registers; a word that points at
//   a block's start (or inside it, if a heuristic accepts the interior
//   pointer) makes the block reachable, any other interior pointer makes it
//   possibly reachable, and blocks are rescanned whenever their state rises;
// - then every block left unreached, in address order, leads a "clique": the
//   unreached blocks it reaches are indirectly lost and their bytes are
//   charged to it; a later leader reached this way joins the clique.
// The walk from the roots goes breadth first (the final marks do not depend
// on the order: states only rise, and a rise rescans), so each reached block
// remembers the shortest way it was reached: its holder (memgrow/holders/).
// Some edges keep nothing alive in the program's sense (CPython's GC list
// links, an object's type pointer, any interior pointer no heuristic
// accepts): a block first reached by one is marked
// at once, as memcheck does, but scanned only when the strong edges are
// exhausted, and a strong edge that reaches it before then becomes its way.
#pragma once

#include "types.hpp"

namespace mg::reach {

enum class State : u8 { unreached, possible, reachable, indirect };

// Interior-pointer heuristics: memcheck's four, plus CPython's objects,
// whose pointer lies past the GC header (and the pre-header of objects
// with a managed dict).
enum Heuristic : u8 {
    kNoHeuristic = 0,
    kStdString,
    kLength64,
    kNewArray,
    kMultipleInheritance,
    kCPython,
    kHeuristicCount
};
constexpr u32 heuristic_bit(Heuristic h) {
    return 1u << h;
}
constexpr u32 kAllHeuristics = heuristic_bit(kStdString) | heuristic_bit(kLength64) |
                               heuristic_bit(kNewArray) | heuristic_bit(kMultipleInheritance) |
                               heuristic_bit(kCPython);

inline const char* heuristic_name(u32 h) {
    switch (h) {
    case kStdString:
        return "stdstring";
    case kLength64:
        return "length64";
    case kNewArray:
        return "newarray";
    case kMultipleInheritance:
        return "multipleinheritance";
    case kCPython:
        return "cpython";
    default:
        return "none";
    }
}

// What a block is beyond its range (CUDA memory, docs/cuda.md).
enum BlockFlag : u8 {
    // Device-side memory: its words are not host memory, so they are never
    // read, and no interior-pointer heuristic applies.
    kOpaque = 1,
    // A host block of the CUDA driver or runtime: their bookkeeping does not
    // keep device-side blocks alive (it holds every live allocation).
    kForeign = 2,
    // Memory whose words are roots, scanned with the roots (the client's own
    // mappings, as memcheck scans them): the block is reached or lost by
    // pointers to it, its words are not read again as its own.
    kRoots = 4,
};

// A heap block; the scanner's input is sorted by address, not overlapping.
struct Block {
    usize addr;
    usize size;
    u8 flags = 0;
};

// How a reached block was first reached (Mark::indirect of a reachable or
// possibly reachable block): the index of a block, or kViaRoot with the
// address of the root word (0 for a register or a block made a root).
constexpr usize kViaRoot = usize(1) << 63;
inline bool via_root(usize via) {
    return via & kViaRoot;
}
inline usize via_root_address(usize via) {
    return via & ~kViaRoot;
}

// What the walk found for each block (by index in the block array).
struct Mark {
    State state;
    bool pending;   // queued or on the clique stack
    u8 heuristic;   // reachable only through this heuristic (kNoHeuristic otherwise)
    u8 weak_via;    // first reached by a weak edge (its kWeak level), not yet scanned
    u8 deferred;    // the deferred list it waits in (its level; 0: none)
    bool scanned;   // scanned at least once
    usize indirect; // unreached (a clique leader): bytes lost through it;
                    // indirect: the block through which it was found;
                    // reachable, possible: how it was first reached (kViaRoot)
};

// How weakly an edge holds (Memory::weak_edge): a block first reached by a
// weak edge is scanned once no strong way is left, a block first reached by
// a weakest one once no weak way is left either; a stronger edge that
// reaches it before its scan becomes its way.
constexpr u8 kStrong = 0, kWeak = 1, kWeakest = 2;

constexpr usize kWord = sizeof(usize);
constexpr usize kPage = 4096;

// Memory must provide (all addresses word-aligned where a word is read):
//   template <class F> void for_each_word(usize lo, usize hi, F f);
//       calls f(value) for each readable aligned word in [lo, hi)
//   template <class F> void for_each_word_at(usize lo, usize hi, F f);
//       the same, f(address, value): for roots, whose address names them
//   bool read_word(usize addr, usize* out);       false when unreadable
//   bool in_readable_file(usize a, usize* end);    a is in a readable file
//       mapping ending at *end (inclusive)
//   bool in_code(usize a);                         a is in an executable
//       file mapping
//   u8 weak_edge(usize at, usize ptr, const Block& target, usize parent);
//       how weakly the word at `at` (of the block at parent, 0 for a root)
//       holding ptr keeps it: kStrong (always, where the program has no
//       weak edges), kWeak (nothing alive in the program's sense), kWeakest
//       (a native root that any way of the program's own beats)
template <class Memory> class Scanner {
  public:
    // marks and stack have n entries each, owned by the caller; deferred
    // too, or null: weak edges are then followed like the others.
    Scanner(const Block* blocks, u32 n, Mark* marks, u32* stack, u32 heuristics, Memory& mem,
            u32* deferred = nullptr)
        : blocks_(blocks), n_(n), marks_(marks), stack_(stack), deferred_(deferred),
          heuristics_(heuristics), mem_(mem) {
        for (u32 i = 0; i < n; ++i)
            marks_[i] = Mark{State::unreached, false, kNoHeuristic, kStrong, 0, false, 0};
        if (n) {
            lo_ = blocks[0].addr;
            hi_ = blocks[n - 1].addr + (blocks[n - 1].size ? blocks[n - 1].size : 1);
        }
    }

    // A root range of non-heap memory, [lo, hi); foreign: memory of the CUDA
    // driver or runtime (see kForeign).
    void scan_root_range(usize lo, usize hi, bool foreign = false) {
        mem_.for_each_word_at(lo, hi, [this, foreign](usize at, usize v) {
            reach(v, true, kViaRoot | at, foreign, at);
        });
    }
    // A register's value, or a block that is a root in itself.
    void root_word(usize v) { reach(v, true, kViaRoot); }

    // Traces everything the roots reach, then groups the lost blocks.
    void finish() {
        trace();
        for (u32 i = 0; i < n_; ++i) {
            if (marks_[i].state != State::unreached) continue;
            push(i);
            process(static_cast<long>(i));
        }
    }

    // The block containing ptr, or -1. Zero-sized blocks count as one byte
    // (as memcheck does), or a pointer to them could never reach them.
    long find(usize ptr) const {
        if (ptr < lo_ || ptr >= hi_) return -1;
        long lo = 0, hi = static_cast<long>(n_) - 1;
        while (lo <= hi) {
            long mid = (lo + hi) / 2;
            usize start = blocks_[mid].addr;
            usize end = start + (blocks_[mid].size ? blocks_[mid].size : 1);
            if (ptr < start)
                hi = mid - 1;
            else if (ptr >= end)
                lo = mid + 1;
            else
                return mid;
        }
        return -1;
    }

    // Which heuristic accepts ptr, an interior pointer of block b.
    u8 heuristic_for(usize ptr, const Block& b) {
        usize w0, w1;
        if ((heuristics_ & heuristic_bit(kStdString)) && ptr == b.addr + 3 * kWord &&
            mem_.read_word(b.addr + kWord, &w1) && 3 * kWord + w1 + 1 == b.size &&
            mem_.read_word(b.addr, &w0) && w0 <= w1)
            return kStdString; // [length][capacity][refcount] chars '\0'
        if ((heuristics_ & heuristic_bit(kLength64)) && ptr == b.addr + 8 &&
            mem_.read_word(b.addr, &w0) && w0 > 0 && b.size - 8 == w0)
            return kLength64; // [size of the rest] data (sqlite)
        if ((heuristics_ & heuristic_bit(kNewArray)) && ptr == b.addr + kWord &&
            mem_.read_word(b.addr, &w0) && w0 > 0 && (b.size - kWord) % w0 == 0)
            return kNewArray; // [element count] elements with destructors
        if ((heuristics_ & heuristic_bit(kMultipleInheritance)) && ptr % kWord == 0 &&
            mem_.read_word(ptr, &w1) && w1 % kWord == 0 && w1 >= kPage &&
            mem_.read_word(b.addr, &w0) && w0 % kWord == 0 && w0 >= kPage && is_vtable(w1) &&
            is_vtable(w0))
            return kMultipleInheritance; // a second base's vtable pointer
        if ((heuristics_ & heuristic_bit(kCPython)) && looks_like_python_object(ptr, b))
            return kCPython;
        return kNoHeuristic;
    }

  private:
    // The clique phase's stack.
    void push(u32 i) {
        if (marks_[i].pending) return;
        marks_[i].pending = true;
        stack_[top_++] = i;
    }
    // The trace from the roots: a queue in the same array (a block is in it
    // at most once at a time), so blocks are reached breadth first.
    void enqueue(u32 i) {
        if (marks_[i].pending) return;
        marks_[i].pending = true;
        stack_[(head_ + queued_++) % n_] = i;
    }
    // A block first reached by a weak edge waits for the strong ones, one
    // reached by a weakest edge for the weak ones too: two lists in one
    // array, the weak from its front, the weakest from its back (a full
    // array, which cannot happen, would only cost the way's quality).
    void defer(u32 i, u8 level) {
        if (!deferred_ || n_deferred_ + n_weakest_ == n_) return enqueue(i);
        marks_[i].pending = true;
        marks_[i].deferred = level;
        if (level == kWeakest)
            deferred_[n_ - 1 - n_weakest_++] = i;
        else
            deferred_[n_deferred_++] = i;
    }

    // A root word or a word of a block reached from the roots; via: where
    // the word is (kViaRoot | its address, or the block's index); at: the
    // word's address (0: a register, a weak root where edges can be weak: a
    // thread's scratch, not the program's way).
    void reach(usize ptr, bool prior_definite, usize via, bool foreign = false, usize at = 0) {
        long i = find(ptr);
        if (i < 0) return;
        Mark& m = marks_[i];
        const Block& b = blocks_[i];
        if (foreign && (b.flags & kOpaque)) return;
        if (m.state == State::reachable) {
            // Now reached directly: no heuristic is needed for it any more.
            if (m.heuristic && ptr == b.addr) m.heuristic = kNoHeuristic;
            if (m.weak_via && !m.scanned && exact(ptr, b)) {
                u8 level = weak_edge(at, ptr, b, via);
                if (level < m.weak_via) promote(static_cast<u32>(i), via, level);
            }
            return;
        }
        bool start = ptr == b.addr;
        if (!start && heuristics_ && !(b.flags & kOpaque)) {
            m.heuristic = heuristic_for(ptr, b);
            start = m.heuristic != kNoHeuristic;
        }
        // An interior pointer no heuristic accepts is weak too: it may be
        // any value that happens to point there (a cache's counters).
        u8 weak = deferred_ && !m.scanned ? weak_edge(at, ptr, b, via) : kStrong;
        if (deferred_ && !m.scanned && !start && weak < kWeak) weak = kWeak;
        if (m.weak_via > weak) promote(static_cast<u32>(i), via, weak);
        bool first = m.state == State::unreached;
        if (start && prior_definite) {
            m.state = State::reachable;
        } else if (first) {
            m.state = State::possible;
        } else {
            return;
        }
        if (first) m.indirect = via, m.weak_via = weak;
        if (first && weak)
            defer(static_cast<u32>(i), weak);
        else
            enqueue(static_cast<u32>(i)); // rescan: what it points at rises too
    }

    // Whether ptr reaches b as a pointer to it (its start, or an interior
    // pointer a heuristic accepts), without touching its mark.
    bool exact(usize ptr, const Block& b) {
        return ptr == b.addr ||
               (heuristics_ && !(b.flags & kOpaque) && heuristic_for(ptr, b) != kNoHeuristic);
    }
    u8 weak_edge(usize at, usize ptr, const Block& b, usize via) {
        if (!deferred_) return kStrong;
        if (!at) return kWeak;
        return static_cast<u8>(mem_.weak_edge(at, ptr, b, via_root(via) ? 0 : blocks_[via].addr));
    }
    // A stronger way to a block first reached by a weaker one, before its
    // scan: it becomes the way, and the block is scanned in that order.
    void promote(u32 i, usize via, u8 level) {
        Mark& m = marks_[i];
        m.weak_via = level;
        m.indirect = via;
        if (m.deferred) { // its deferred list entry goes stale
            m.deferred = 0;
            m.pending = false;
            if (level == kStrong)
                enqueue(i);
            else
                defer(i, level);
        }
    }

    // A word of a lost block: unreached blocks it reaches join the clique.
    void join_clique(usize ptr, u32 leader, u32 through, bool foreign) {
        long i = find(ptr);
        if (i < 0 || static_cast<u32>(i) == leader) return;
        Mark& m = marks_[i];
        if (m.state != State::unreached || (foreign && (blocks_[i].flags & kOpaque))) return;
        push(static_cast<u32>(i));
        // A former leader brings the bytes lost through it along.
        marks_[leader].indirect += blocks_[i].size + m.indirect;
        m.state = State::indirect;
        m.indirect = through;
    }

    // Scans the queued blocks, breadth first, until none is left; then the
    // blocks reached only by weak edges, each starting a strong wave again.
    void trace() {
        for (;;) {
            while (queued_) {
                u32 i = stack_[head_];
                head_ = (head_ + 1) % n_, --queued_;
                scan(i);
            }
            while (next_deferred_ < n_deferred_ &&
                   marks_[deferred_[next_deferred_]].deferred != kWeak)
                ++next_deferred_; // promoted since
            while (next_weakest_ < n_weakest_ &&
                   marks_[deferred_[n_ - 1 - next_weakest_]].deferred != kWeakest)
                ++next_weakest_;
            u32 i;
            if (next_deferred_ < n_deferred_)
                i = deferred_[next_deferred_++];
            else if (next_weakest_ < n_weakest_)
                i = deferred_[n_ - 1 - next_weakest_++];
            else
                break;
            marks_[i].deferred = 0;
            scan(i);
        }
    }
    void scan(u32 i) {
        Mark& m = marks_[i];
        m.pending = false;
        m.scanned = true;
        m.weak_via = kStrong;
        const Block& b = blocks_[i];
        if (b.flags & (kOpaque | kRoots)) return;
        bool foreign = b.flags & kForeign;
        bool definite = m.state != State::possible;
        mem_.for_each_word_at(b.addr, b.addr + b.size,
                              [this, definite, i, foreign](usize at, usize v) {
                                  reach(v, definite, i, foreign, at);
                              });
    }

    // Scans the blocks on the clique stack until it is empty.
    void process(long clique) {
        u32 leader = static_cast<u32>(clique);
        while (top_) {
            u32 i = stack_[--top_];
            marks_[i].pending = false;
            const Block& b = blocks_[i];
            if (b.flags & (kOpaque | kRoots)) continue;
            bool foreign = b.flags & kForeign;
            mem_.for_each_word(b.addr, b.addr + b.size, [this, leader, i, foreign](usize v) {
                join_clique(v, leader, i, foreign);
            });
        }
    }

    // memcheck's test: a table of at least two function pointers (nulls
    // allowed) in a readable file mapping, within its first 20 words.
    bool is_vtable(usize a) {
        usize seg_end;
        if (!mem_.in_readable_file(a, &seg_end)) return false;
        usize last = a + 20 * kWord;
        if (last > seg_end - kWord) last = seg_end - kWord;
        u32 fns = 0;
        for (usize p = a; p <= last; p += kWord) {
            usize fn;
            if (!mem_.read_word(p, &fn)) return false;
            if (!fn) continue;
            if (!mem_.in_code(fn)) return false;
            if (++fns == 2) return true;
        }
        return false;
    }

    // CPython's interior pointers. A GC object is allocated with its GC
    // header (16 bytes) and, before 3.13, a managed-dict pre-header (16 more)
    // in front; containers point at the object. Accept such a pointer when
    // it leads to an object: a type whose chain of types reaches, within a
    // few steps, a type that is its own type (`type`). The reference count
    // is not checked: objects on free lists have none. And a managed dict's
    // values array (new_values) is handed out past a prefix whose last byte
    // holds the prefix's size.
    bool looks_like_python_object(usize ptr, const Block& b) {
        usize off = ptr - b.addr;
        if ((off == 16 || off == 32) && b.size >= off + 2 * kWord) {
            usize type;
            if (!mem_.read_word(ptr + kWord, &type)) return false;
            for (int hop = 0; hop < 4; ++hop) {
                usize meta;
                if (type == 0 || type % kWord || !mem_.read_word(type + kWord, &meta)) break;
                if (meta == type) return true;
                type = meta;
            }
        }
        if (off % kWord == 0 && off < 256 && (b.size - off) % kWord == 0) {
            usize last;
            if (mem_.read_word(ptr - kWord, &last) && (last >> 56) == off) return true;
        }
        return false;
    }

    const Block* blocks_;
    u32 n_;
    Mark* marks_;
    u32* stack_;
    u32* deferred_;
    u32 n_deferred_ = 0, next_deferred_ = 0, n_weakest_ = 0, next_weakest_ = 0;
    u32 top_ = 0;
    u32 head_ = 0, queued_ = 0; // the trace's queue in stack_
    u32 heuristics_;
    Memory& mem_;
    usize lo_ = 0, hi_ = 0;
};

} // namespace mg::reach
