// SPDX-License-Identifier: GPL-2.0-or-later
// The malloc family's calls that newer memchecks check: realloc(p, 0)
// (Valgrind 3.21), the alignment and size of aligned allocations and of sized
// and aligned deallocations (3.22). test_alloc_checks.py runs it under
// memcheck and memgrow of one Valgrind and compares what each reports. It
// leaks nothing and frees everything the right way.
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <new>

int main() {
    void* p = std::malloc(24);
    void* q = std::realloc(p, 0); // REALLOC_ZERO
    std::printf("realloc(p, 0): %s\n", q ? "a block" : "null");
    std::free(q);

    std::free(memalign(3, 32)); // MEMALIGN_BAD
    void* pm = nullptr;
    if (posix_memalign(&pm, 4, 32) == 0) std::free(pm); // POSIX_MEMALIGN_BAD
    std::free(aligned_alloc(64, 100));                  // ALIGNED_ALLOC_SIZE
    std::free(aligned_alloc(64, 0));                    // ALIGNED_ALLOC_ZERO

    void* s = ::operator new(40);
    ::operator delete(s, 32); // DELETE_SIZED_WRONG
    void* a = ::operator new(64, std::align_val_t(64));
    ::operator delete(a); // DELETE_DEFAULT_ON_ALIGNED
    void* b = ::operator new[](64, std::align_val_t(64));
    ::operator delete[](b, std::align_val_t(32)); // DELETE_ALIGN_WRONG
    return 0;
}
