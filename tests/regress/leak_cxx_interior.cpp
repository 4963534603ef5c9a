// SPDX-License-Identifier: GPL-2.0-or-later
// Leak scan: blocks reached only through interior pointers that memcheck's
// heuristics accept (on by default) are still reachable, not possibly lost.
//
// - stdstring: a long std::string of libstdc++'s old (copy-on-write) ABI. Its
//   heap block is [length][capacity][refcount][chars...\0] of 3 * 8 + capacity
//   + 1 bytes and the string object holds a pointer to the chars, 24 bytes in.
//   (The default C++11 ABI points at the start of the buffer: no heuristic
//   needed. So this file selects the old ABI before any include.) The string
//   object itself is on the heap too (8 bytes, reached
//   directly from a global). Both come from the line STRING_HERE.
// - newarray: new Elem[5] of a class with a destructor: the block starts with
//   the element count (8 bytes) and the program holds a pointer 8 bytes in.
// - one more new[] array of that class whose pointer is dropped: definitely lost.
//
// memcheck --leak-check=full must report:
//   definitely lost: 56 bytes in 1 blocks      (LOST_ARRAY_HERE: 8 + 3 * 16)
//   indirectly lost: 0 bytes in 0 blocks
//     possibly lost: 0 bytes in 0 blocks
//   still reachable: 153 bytes in 3 blocks     (STRING_HERE 8 + 57 +
//                                               ARRAY_HERE 88)
//        of which reachable via heuristic:
//                         stdstring          : 57 bytes in 1 blocks
//                         newarray           : 88 bytes in 1 blocks
// and with --leak-check-heuristics=none:
//     possibly lost: 145 bytes in 2 blocks     (STRING_HERE 57 + ARRAY_HERE 88)
//   still reachable: 8 bytes in 1 blocks
#define _GLIBCXX_USE_CXX11_ABI 0
#include <cstdlib>
#include <cstring>
#include <string>

struct Elem {
    long a = 1, b = 2;
    ~Elem() { a = b = 0; } // a destructor: new[] stores the element count
};
static_assert(sizeof(Elem) == 16, "Elem is two words");

static std::string* text; // -> string object -> chars of the representation, 24 bytes in
static Elem* elems;       // 8 bytes into its block

// 32 characters: representation of 3 * 8 + 32 + 1 = 57 bytes.
static const char value[] = "a long value, not a short string";
static_assert(sizeof(value) - 1 == 32, "32 characters");

__attribute__((noinline)) static void keep_string() {
    text = new std::string(value); /* STRING_HERE: 8-byte object, 57-byte representation */
}

__attribute__((noinline)) static void keep_array() {
    elems = new Elem[5]; /* ARRAY_HERE */
}

__attribute__((noinline)) static void lose_array() {
    Elem* lost = new Elem[3]; /* LOST_ARRAY_HERE */
    lost[0].a = 3;
}

__attribute__((noinline)) static void clear_stack() {
    volatile char buf[16384];
    for (std::size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main() {
    keep_string();
    keep_array();
    lose_array();
    clear_stack();
    std::exit(0);
}
