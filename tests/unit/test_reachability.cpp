// SPDX-License-Identifier: GPL-2.0-or-later
// The leak scan's graph walk on heaps built in ordinary memory: memcheck's
// kinds (definite, indirect, possible, reachable), its cliques and its
// interior-pointer heuristics, and CPython's GC-header heuristic.
#define BOOST_TEST_MODULE reachability
#include <boost/test/unit_test.hpp>

#include "core/reachability.hpp"

#include <algorithm>
#include <cstring>
#include <ostream>
#include <vector>

namespace mg::reach {
std::ostream& operator<<(std::ostream& o, State s) {
    const char* names[] = {"unreached", "possible", "reachable", "indirect"};
    return o << names[static_cast<int>(s)];
}
} // namespace mg::reach

using namespace mg;
using namespace mg::reach;

namespace {

// A fake address space: one arena of words holding the heap blocks and
// the roots, plus a "file mapping" range for vtables and code.
struct Heap {
    std::vector<usize> arena = std::vector<usize>(4096, 0);
    std::vector<Block> blocks;
    usize used = 8; // words; the first words stay null
    usize code_lo = 0x400000, code_hi = 0x500000;
    usize file_lo = 0x600000, file_hi = 0x700000;
    std::vector<usize> vtable_words; // the file mapping's content from file_lo

    usize base() const { return reinterpret_cast<usize>(arena.data()); }
    // A block of `bytes` (rounded up to words), with a free word after it so
    // blocks do not touch.
    usize alloc(usize bytes) {
        usize a = base() + used * kWord;
        blocks.push_back(Block{a, bytes});
        used += (bytes + kWord - 1) / kWord + 1;
        return a;
    }
    usize* word(usize addr) { return reinterpret_cast<usize*>(addr); }
    void set(usize addr, usize value) { *word(addr) = value; }

    bool in_arena(usize a) const {
        return a >= base() && a + kWord <= base() + arena.size() * kWord;
    }
    template <class F> void for_each_word(usize lo, usize hi, F f) {
        for_each_word_at(lo, hi, [&](usize, usize v) { f(v); });
    }
    template <class F> void for_each_word_at(usize lo, usize hi, F f) {
        for (usize p = (lo + kWord - 1) & ~(kWord - 1); p + kWord <= hi; p += kWord)
            if (in_arena(p)) f(p, *word(p));
    }
    bool read_word(usize a, usize* out) {
        if (a % kWord) return false;
        if (in_arena(a)) return *out = *word(a), true;
        if (a >= file_lo && a < file_lo + vtable_words.size() * kWord)
            return *out = vtable_words[(a - file_lo) / kWord], true;
        return false;
    }
    bool in_readable_file(usize a, usize* end) {
        if (a < file_lo || a >= file_hi) return false;
        *end = file_hi - 1;
        return true;
    }
    bool in_code(usize a) { return a >= code_lo && a < code_hi; }
    std::vector<usize> weak_words;    // words whose edge keeps nothing alive (GC links)
    std::vector<usize> weakest_words; // native roots any other way beats
    u8 weak_edge(usize at, usize, const Block&, usize) {
        if (std::find(weakest_words.begin(), weakest_words.end(), at) != weakest_words.end())
            return kWeakest;
        return std::find(weak_words.begin(), weak_words.end(), at) != weak_words.end() ? kWeak
                                                                                       : kStrong;
    }
};

struct Result {
    std::vector<Mark> marks;
    usize bytes[4] = {0, 0, 0, 0}; // by State
};

// Roots: the given words (as registers would be).
Result scan(Heap& h, std::vector<usize> roots, u32 heuristics = kAllHeuristics) {
    std::sort(h.blocks.begin(), h.blocks.end(),
              [](const Block& a, const Block& b) { return a.addr < b.addr; });
    Result r;
    r.marks.resize(h.blocks.size());
    std::vector<u32> stack(h.blocks.size());
    Scanner<Heap> s(h.blocks.data(), static_cast<u32>(h.blocks.size()), r.marks.data(),
                    stack.data(), heuristics, h);
    for (usize v : roots)
        s.root_word(v);
    s.finish();
    for (usize i = 0; i < h.blocks.size(); ++i)
        r.bytes[static_cast<int>(r.marks[i].state)] += h.blocks[i].size;
    return r;
}

usize definite(const Result& r) {
    return r.bytes[static_cast<int>(State::unreached)];
}
usize indirect(const Result& r) {
    return r.bytes[static_cast<int>(State::indirect)];
}
usize possible(const Result& r) {
    return r.bytes[static_cast<int>(State::possible)];
}
usize reachable(const Result& r) {
    return r.bytes[static_cast<int>(State::reachable)];
}

} // namespace

BOOST_AUTO_TEST_CASE(a_block_nothing_points_at_is_definitely_lost) {
    Heap h;
    usize kept = h.alloc(40);
    h.alloc(24);
    Result r = scan(h, {kept});
    BOOST_TEST(definite(r) == 24u);
    BOOST_TEST(reachable(r) == 40u);
}

BOOST_AUTO_TEST_CASE(a_lost_tree_has_one_definite_root_and_indirect_children) {
    Heap h;
    usize root = h.alloc(16), left = h.alloc(32), right = h.alloc(48), leaf = h.alloc(8);
    h.set(root, left);
    h.set(root + kWord, right);
    h.set(left, leaf);
    Result r = scan(h, {});
    BOOST_TEST(definite(r) == 16u);
    BOOST_TEST(indirect(r) == 88u);
    // The leader carries what is lost through it.
    BOOST_TEST(r.marks[0].indirect == 88u);
}

BOOST_AUTO_TEST_CASE(a_cycle_without_outside_pointers_is_lost_with_the_lower_block_leading) {
    Heap h;
    usize a = h.alloc(32), b = h.alloc(64);
    h.set(a, b);
    h.set(b, a);
    Result r = scan(h, {});
    BOOST_TEST(definite(r) == 32u);
    BOOST_TEST(indirect(r) == 64u);
}

BOOST_AUTO_TEST_CASE(a_later_leader_reached_from_an_earlier_one_joins_its_clique) {
    Heap h;
    usize a = h.alloc(8), b = h.alloc(8), c = h.alloc(8);
    // c is scanned as its own leader only if a does not reach it first:
    // a -> c -> b; all of b and c are indirect through a.
    h.set(a, c);
    h.set(c, b);
    Result r = scan(h, {});
    BOOST_TEST(definite(r) == 8u);
    BOOST_TEST(indirect(r) == 16u);
    BOOST_TEST(r.marks[0].indirect == 16u);
}

BOOST_AUTO_TEST_CASE(an_interior_pointer_makes_a_block_possibly_lost_and_so_what_it_points_at) {
    Heap h;
    usize a = h.alloc(100), child = h.alloc(16);
    h.set(a + 48, child); // a start pointer, but from a possibly reached block
    Result r = scan(h, {a + 40}, 0);
    BOOST_TEST(possible(r) == 116u);
    BOOST_TEST(definite(r) == 0u);
}

BOOST_AUTO_TEST_CASE(a_start_pointer_found_later_upgrades_a_possible_block) {
    Heap h;
    usize a = h.alloc(64), child = h.alloc(8);
    h.set(a + 8, child);
    Result r = scan(h, {a + 16, a}, 0);
    BOOST_TEST(reachable(r) == 72u);
}

BOOST_AUTO_TEST_CASE(zero_sized_blocks_can_be_reached) {
    Heap h;
    usize z = h.alloc(0);
    Result r = scan(h, {z});
    BOOST_TEST(r.marks[0].state == State::reachable);
}

BOOST_AUTO_TEST_CASE(stdstring_heuristic_accepts_the_old_abi_layout_only) {
    Heap h;
    usize s = h.alloc(3 * kWord + 10 + 1); // length, capacity, refcount, chars, NUL
    h.set(s, 5);
    h.set(s + kWord, 10);
    Result r = scan(h, {s + 3 * kWord});
    BOOST_TEST(r.marks[0].state == State::reachable);
    BOOST_TEST(r.marks[0].heuristic == kStdString);
    h.set(s, 11); // length above capacity: not a string
    r = scan(h, {s + 3 * kWord});
    BOOST_TEST(r.marks[0].state == State::possible);
    h.set(s, 5);
    r = scan(h, {s + 3 * kWord}, kAllHeuristics & ~heuristic_bit(kStdString));
    BOOST_TEST(r.marks[0].state == State::possible);
}

BOOST_AUTO_TEST_CASE(length64_and_newarray_heuristics) {
    Heap h;
    usize l = h.alloc(8 + 40);
    h.set(l, 40);
    Result r = scan(h, {l + 8}, heuristic_bit(kLength64));
    BOOST_TEST(r.marks[0].heuristic == kLength64);

    Heap g;
    usize arr = g.alloc(kWord + 3 * 24); // count, then 3 elements of 24 bytes
    g.set(arr, 3);
    r = scan(g, {arr + kWord}, heuristic_bit(kNewArray));
    BOOST_TEST(r.marks[0].heuristic == kNewArray);
    g.set(arr, 0);
    r = scan(g, {arr + kWord}, heuristic_bit(kNewArray));
    BOOST_TEST(r.marks[0].state == State::possible);
}

BOOST_AUTO_TEST_CASE(multiple_inheritance_needs_two_vtable_pointers) {
    Heap h;
    // Two vtables in the file mapping, each with two code pointers.
    h.vtable_words = {h.code_lo + 16, h.code_lo + 32, 0, h.code_lo + 48, h.code_lo + 64};
    usize obj = h.alloc(32);
    h.set(obj, h.file_lo);                  // first base's vtable
    h.set(obj + 16, h.file_lo + 3 * kWord); // second base's vtable
    Result r = scan(h, {obj + 16}, heuristic_bit(kMultipleInheritance));
    BOOST_TEST(r.marks[0].heuristic == kMultipleInheritance);
    h.vtable_words[3] = 12345; // not code: not a vtable
    r = scan(h, {obj + 16}, heuristic_bit(kMultipleInheritance));
    BOOST_TEST(r.marks[0].state == State::possible);
}

BOOST_AUTO_TEST_CASE(cpython_heuristic_accepts_objects_past_the_gc_header) {
    Heap h;
    // A type object whose type is itself (`type`), and a type of that type.
    usize type_type = h.alloc(64);
    h.set(type_type, 1);
    h.set(type_type + kWord, type_type);
    usize list_type = h.alloc(64);
    h.set(list_type, 1);
    h.set(list_type + kWord, type_type);
    usize gc = h.alloc(16 + 40);      // PyGC_Head, then the object
    h.set(gc + 16, 1);                // ob_refcnt
    h.set(gc + 24, list_type);        // ob_type
    usize managed = h.alloc(32 + 24); // pre-header, GC header, object
    h.set(managed + 32, 2);
    h.set(managed + 40, list_type);
    Result r = scan(h, {type_type, list_type, gc + 16, managed + 32});
    BOOST_TEST(possible(r) == 0u);
    BOOST_TEST(r.marks[2].heuristic == kCPython);
    BOOST_TEST(r.marks[3].heuristic == kCPython);
    r = scan(h, {type_type, list_type, gc + 16, managed + 32},
             kAllHeuristics & ~heuristic_bit(kCPython));
    BOOST_TEST(possible(r) == 56u + 56u);
    // Free-list objects have no reference count, but still their type.
    h.set(gc + 16, 0);
    r = scan(h, {type_type, list_type, gc + 16});
    BOOST_TEST(r.marks[2].heuristic == kCPython);
    // A word 16 bytes in that is not an object: no type chain.
    h.set(gc + 24, 0x1234);
    r = scan(h, {type_type, list_type, gc + 16});
    BOOST_TEST(r.marks[2].state == State::possible);
}

BOOST_AUTO_TEST_CASE(cpython_heuristic_accepts_managed_dict_values_past_their_prefix) {
    Heap h;
    usize values = h.alloc(24 + 5 * kWord); // prefix of 24 bytes, 5 values
    h.set(values + 16, usize(24) << 56);    // the prefix's last byte: its size
    Result r = scan(h, {values + 24});
    BOOST_TEST(r.marks[0].heuristic == kCPython);
    h.set(values + 16, usize(16) << 56); // the wrong size
    r = scan(h, {values + 24});
    BOOST_TEST(r.marks[0].state == State::possible);
}

BOOST_AUTO_TEST_CASE(a_block_reached_directly_drops_its_heuristic) {
    Heap h;
    usize arr = h.alloc(kWord + 16);
    h.set(arr, 2);
    Result r = scan(h, {arr + kWord, arr});
    BOOST_TEST(r.marks[0].state == State::reachable);
    BOOST_TEST(r.marks[0].heuristic == kNoHeuristic);
}

BOOST_AUTO_TEST_CASE(find_handles_addresses_outside_every_block) {
    Heap h;
    usize a = h.alloc(16), b = h.alloc(16);
    std::sort(h.blocks.begin(), h.blocks.end(),
              [](const Block& x, const Block& y) { return x.addr < y.addr; });
    std::vector<Mark> marks(2);
    std::vector<u32> stack(2);
    Scanner<Heap> s(h.blocks.data(), 2, marks.data(), stack.data(), 0, h);
    BOOST_TEST(s.find(a) == 0);
    BOOST_TEST(s.find(a + 15) == 0);
    BOOST_TEST(s.find(a + 16) == -1); // the gap word
    BOOST_TEST(s.find(b + 8) == 1);
    BOOST_TEST(s.find(0) == -1);
    BOOST_TEST(s.find(~usize(0)) == -1);
}

// CUDA device-side blocks (docs/cuda.md): found through pointers in host
// memory, never read themselves.
BOOST_AUTO_TEST_CASE(an_opaque_block_is_reached_but_never_read) {
    Heap h;
    usize device = h.alloc(64);
    h.blocks.back().flags = kOpaque;
    usize host = h.alloc(16);
    h.set(device, host); // a device word that looks like a host pointer
    Result r = scan(h, {device});
    BOOST_TEST(reachable(r) == 64u);
    BOOST_TEST(definite(r) == 16u);
    // Nothing points at it: definitely lost.
    r = scan(h, {});
    BOOST_TEST(definite(r) == 80u);
}

BOOST_AUTO_TEST_CASE(an_interior_pointer_to_an_opaque_block_takes_no_heuristic) {
    Heap h;
    usize device = h.alloc(8 + 4 * kWord);
    h.blocks.back().flags = kOpaque;
    h.set(device, 4); // would pass the length64 heuristic
    Result r = scan(h, {device + 8});
    BOOST_TEST(possible(r) == 8u + 4 * kWord);
}

BOOST_AUTO_TEST_CASE(foreign_memory_keeps_host_blocks_but_not_opaque_ones_alive) {
    Heap h;
    usize bookkeeping = h.alloc(24);
    h.blocks.back().flags = kForeign;
    usize device = h.alloc(128);
    h.blocks.back().flags = kOpaque;
    usize host = h.alloc(32);
    h.set(bookkeeping, device);
    h.set(bookkeeping + kWord, host);
    Result r = scan(h, {bookkeeping});
    BOOST_TEST(reachable(r) == 56u);
    BOOST_TEST(definite(r) == 128u);
    // A lost foreign block does not take an opaque one into its clique.
    r = scan(h, {});
    BOOST_TEST(definite(r) == 24u + 128u);
    BOOST_TEST(indirect(r) == 32u);
}

// Holders: the walk from the roots is breadth first, so each block records
// the shortest way it was reached: a root word by its address, or a block.
BOOST_AUTO_TEST_CASE(each_block_remembers_its_shortest_way_from_the_roots) {
    Heap h;
    usize globals = h.alloc(2 * kWord); // a "data segment" of two words, not a block
    h.blocks.pop_back();
    usize a = h.alloc(16), b = h.alloc(16), c = h.alloc(16), d = h.alloc(16);
    h.set(globals, a); // globals[0] -> a -> b -> c -> d
    h.set(a, b);
    h.set(b, c);
    h.set(c, d);
    h.set(globals + kWord, c); // globals[1] -> c: c is two steps from the roots, not three
    std::vector<Mark> marks(h.blocks.size());
    std::vector<u32> queue(h.blocks.size());
    Scanner<Heap> s(h.blocks.data(), 4, marks.data(), queue.data(), kAllHeuristics, h);
    s.scan_root_range(globals, globals + 2 * kWord);
    s.root_word(d); // a register
    s.finish();
    for (const Mark& m : marks)
        BOOST_TEST((m.state == State::reachable));
    BOOST_TEST(via_root(marks[0].indirect));
    BOOST_TEST(via_root_address(marks[0].indirect) == globals);
    BOOST_TEST(marks[1].indirect == 0u); // b through a (block 0)
    BOOST_TEST(via_root(marks[2].indirect));
    BOOST_TEST(via_root_address(marks[2].indirect) == globals + kWord);
    // d: a register reached it before any block was scanned.
    BOOST_TEST(via_root(marks[3].indirect));
    BOOST_TEST(via_root_address(marks[3].indirect) == 0u);
}

// Where edges can be weak (a Python process), a register is a weak root: a
// thread's scratch. A block a register and a global both reach is the
// global's; one only a register reaches is still the register's.
BOOST_AUTO_TEST_CASE(a_register_is_a_weak_root_where_edges_can_be_weak) {
    Heap h;
    usize globals = h.alloc(kWord);
    h.blocks.pop_back();
    usize a = h.alloc(16), b = h.alloc(16), lone = h.alloc(16);
    h.set(globals, a); // globals[0] -> a -> b
    h.set(a, b);
    std::vector<Mark> marks(h.blocks.size());
    std::vector<u32> queue(h.blocks.size()), deferred(h.blocks.size());
    Scanner<Heap> s(h.blocks.data(), 3, marks.data(), queue.data(), 0, h, deferred.data());
    s.root_word(b); // registers come before the root ranges
    s.root_word(lone);
    s.scan_root_range(globals, globals + kWord);
    s.finish();
    for (const Mark& m : marks)
        BOOST_TEST((m.state == State::reachable));
    BOOST_TEST(marks[1].indirect == 0u); // b through a, not the register
    BOOST_TEST(via_root(marks[2].indirect));
    BOOST_TEST(via_root_address(marks[2].indirect) == 0u);
}

// A possibly reachable block (an interior pointer) is also told how.
BOOST_AUTO_TEST_CASE(a_possibly_reachable_block_remembers_the_interior_pointer) {
    Heap h;
    usize a = h.alloc(16), b = h.alloc(64);
    h.set(a, b + 3 * kWord);
    std::vector<Mark> marks(2);
    std::vector<u32> queue(2);
    Scanner<Heap> s(h.blocks.data(), 2, marks.data(), queue.data(), 0, h);
    s.root_word(a);
    s.finish();
    BOOST_TEST((marks[1].state == State::possible));
    BOOST_TEST(marks[1].indirect == 0u);
}

// A weak edge (CPython's GC list links) marks at once but is followed last:
// the way recorded is the strong one, however deep, and the states are the
// same as when every edge counts alike.
BOOST_AUTO_TEST_CASE(a_weak_edge_reaches_but_the_strong_way_is_remembered) {
    Heap h;
    usize globals = h.alloc(2 * kWord);
    h.blocks.pop_back();
    usize gc = h.alloc(16), a = h.alloc(16), b = h.alloc(16), c = h.alloc(16), lone = h.alloc(24);
    h.set(globals, gc); // a GC list head: gc -> c, c -> lone (links only)
    h.set(gc, c);
    h.set(c + kWord, lone + 8); // an interior link: possibly reachable, as before
    h.set(globals + kWord, a);  // the program's way: a -> b -> c
    h.set(a, b);
    h.set(b, c);
    h.weak_words = {gc, c + kWord};
    std::vector<Mark> marks(h.blocks.size()), plain(h.blocks.size());
    std::vector<u32> queue(h.blocks.size()), deferred(h.blocks.size());
    Scanner<Heap> s(h.blocks.data(), 5, marks.data(), queue.data(), 0, h, deferred.data());
    s.scan_root_range(globals, globals + 2 * kWord);
    s.finish();
    Scanner<Heap> p(h.blocks.data(), 5, plain.data(), queue.data(), 0, h);
    p.scan_root_range(globals, globals + 2 * kWord);
    p.finish();
    for (usize i = 0; i < 5; ++i)
        BOOST_TEST((marks[i].state == plain[i].state));
    BOOST_TEST((marks[4].state == State::possible));
    BOOST_TEST(plain[3].indirect == 0u); // every edge alike: c through gc, the first way
    BOOST_TEST(marks[3].indirect == 2u); // weak ones last: c through b
    BOOST_TEST(marks[4].indirect == 3u); // only a weak way: it is still the way
}

// A weakest edge (a native object's static data in a Python process) is
// followed after the weak ones: a block both reach keeps the weak way, however
// deep (a module global's list -> its item), and one only it reaches keeps it.
BOOST_AUTO_TEST_CASE(a_weak_way_beats_a_weakest_root) {
    Heap h;
    usize roots = h.alloc(3 * kWord);
    h.blocks.pop_back();
    usize a = h.alloc(16), b = h.alloc(16), c = h.alloc(16), own = h.alloc(16);
    h.set(roots, c);             // the extension's static data: c first, at depth 1
    h.set(roots + kWord, own);   // and a block only it keeps
    h.set(roots + 2 * kWord, a); // the interpreter's state: a -> b -> c
    h.set(a, b);
    h.set(b, c);
    h.weakest_words = {roots, roots + kWord};
    h.weak_words = {roots + 2 * kWord};
    std::vector<Mark> marks(h.blocks.size());
    std::vector<u32> queue(h.blocks.size()), deferred(h.blocks.size());
    Scanner<Heap> s(h.blocks.data(), 4, marks.data(), queue.data(), 0, h, deferred.data());
    s.scan_root_range(roots, roots + 3 * kWord);
    s.finish();
    for (usize i = 0; i < 4; ++i)
        BOOST_TEST((marks[i].state == State::reachable));
    BOOST_TEST(marks[2].indirect == 1u);                           // c through b
    BOOST_TEST(marks[3].indirect == (kViaRoot | (roots + kWord))); // own: its root
}
