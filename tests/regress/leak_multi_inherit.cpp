// SPDX-License-Identifier: GPL-2.0-or-later
// Leak scan: an object of a class with two polymorphic bases, kept only
// through a pointer to its second base: that pointer is 16 bytes into the
// block. memcheck's multipleinheritance heuristic (on by default) accepts it
// because both the word it points at and the block's first word are vtable
// pointers, so the block is still reachable, not possibly lost. Plus one
// definitely lost object.
//
// memcheck --leak-check=full must report:
//   definitely lost: 40 bytes in 1 blocks      (LOST_HERE)
//   indirectly lost: 0 bytes in 0 blocks
//     possibly lost: 0 bytes in 0 blocks
//   still reachable: 40 bytes in 1 blocks      (OBJECT_HERE)
//        of which reachable via heuristic:
//                         multipleinheritance: 40 bytes in 1 blocks
// and with --leak-check-heuristics=none:
//     possibly lost: 40 bytes in 1 blocks      (OBJECT_HERE)
#include <cstdlib>

struct First {
    long first = 1;
    virtual ~First() {}
    virtual long f() { return first; }
};

struct Second {
    long second = 2;
    virtual ~Second() {}
    virtual long g() { return second; }
};

struct Both : First, Second {
    long both = 3;
    long f() override { return both; }
    long g() override { return both + 1; }
};
static_assert(sizeof(Both) == 40, "two vtable pointers and three longs");

static Second* second; // points at the Second part of a Both: 16 bytes into the block

__attribute__((noinline)) static void keep_object() {
    second = new Both; /* OBJECT_HERE */
}

__attribute__((noinline)) static void lose_object() {
    Second* lost = new Both; /* LOST_HERE */
    lost->second = 4;
}

__attribute__((noinline)) static void clear_stack() {
    volatile char buf[16384];
    for (std::size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

int main() {
    keep_object();
    lose_object();
    clear_stack();
    std::exit(0);
}
