// SPDX-License-Identifier: GPL-2.0-or-later
// Follows memcheck's leak_cpp_interior.cpp: blocks a program holds only
// through interior pointers that one of memcheck's heuristics accepts, then
// a summary with each heuristic alone, all, and none (the monitor command
// `leak_check summary heuristics ...` from the program):
//
//   stdstring            a copy-on-write std::string (the old ABI) points
//                        3 words into its block
//   newarray             new[] of a class with a destructor: 1 word in
//   length64             a block with its length in front: 8 bytes in
//   multipleinheritance  a pointer to the second base of a derived object
//
// Run it with --leak-check-heuristics=multipleinheritance,stdstring,
// newarray,length64 (memcheck's test's options).
#define _GLIBCXX_USE_CXX11_ABI 0
#include <cstdint>
#include <cstdlib>
#include <string>
extern "C" {
#include "mc_leak.h"
}

struct Counted {
    char c;
    int i;
    ~Counted() { say("~Counted\n"); }
};

struct First {
    char a = 'a';
    virtual ~First() {}
};
struct Second {
    char b = 'b';
    virtual ~Second() {}
};
struct Both : First, Second {
    char c = 'c';
};

std::string text;
Counted* counted;
void* sized;
Second* second;
First* first;

static void* sized_malloc(std::size_t size) {
    auto* p = static_cast<std::uint64_t*>(std::malloc(size + 8));
    *p = size;
    return p + 1;
}

__attribute__((noinline)) static void make(void) {
    text = "memcheck's heuristics";
    text += ", one by one";
    counted = new Counted[3];
    sized = sized_malloc(23);
    second = new Both; // the Second inside it: an interior pointer
    first = new Both;  // its start: no heuristic needed
}

static void summary(const char* heuristics) {
    char command[100];
    snprintf(command, sizeof command, "leak_check summary heuristics %s", heuristics);
    say(command);
    say("\n");
    (void)VALGRIND_MONITOR_COMMAND(command);
}

int main() {
    make();
    CLEAR_SCRATCH_REGISTERS;
    VALGRIND_DO_LEAK_CHECK;
    for (const char* h : {"multipleinheritance", "newarray", "length64", "stdstring",
                          "multipleinheritance,newarray,stdstring,length64", "all", "none"})
        summary(h);
    delete[] counted;
    delete second;
    delete first;
    std::free(static_cast<std::uint64_t*>(sized) - 1);
    return 0;
}
