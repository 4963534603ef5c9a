// SPDX-License-Identifier: GPL-2.0-or-later
// What freestanding C++ needs at link time, on Valgrind's allocator. The
// tool has no libstdc++; nothing here may throw.
#include "mg_vg.hpp"

void* operator new(unsigned long n) {
    return VG_(malloc)("mg.new", n);
}
void* operator new[](unsigned long n) {
    return VG_(malloc)("mg.new", n);
}
void operator delete(void* p) noexcept {
    VG_(free)(p);
}
void operator delete[](void* p) noexcept {
    VG_(free)(p);
}
void operator delete(void* p, unsigned long) noexcept {
    VG_(free)(p);
}
void operator delete[](void* p, unsigned long) noexcept {
    VG_(free)(p);
}

extern "C" void __cxa_pure_virtual() {
    VG_(tool_panic)("pure virtual call");
}

// GCC may emit calls to these for struct copies and comparisons;
// libcoregrind has memcpy/memset/memmove but not these.
extern "C" int memcmp(const void* a, const void* b, unsigned long n) {
    return VG_(memcmp)(a, b, n);
}
extern "C" unsigned long strlen(const char* s) {
    return VG_(strlen)(s);
}
