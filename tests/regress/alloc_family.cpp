// SPDX-License-Identifier: GPL-2.0-or-later
// Every member of the malloc family once, checked by the program itself
// (it exits non-zero if memgrow's replacements misbehave); the test checks
// the report saw each allocation with its size.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <new>

static void* keep[16]; // global: reachable at exit

static int check(bool ok, const char* what) {
    if (!ok) std::printf("FAILED: %s\n", what);
    return ok ? 0 : 1;
}

int main() {
    int bad = 0;
    keep[0] = std::malloc(1001);
    keep[1] = std::calloc(10, 101); // 1010 bytes, zeroed
    bad += check(((char*)keep[1])[1009] == 0, "calloc zeroes");
    void* r = std::malloc(10);
    std::memset(r, 7, 10);
    keep[2] = std::realloc(r, 1020);
    bad += check(((char*)keep[2])[9] == 7, "realloc keeps contents");
    keep[3] = memalign(64, 1030);
    bad += check((std::uintptr_t)keep[3] % 64 == 0, "memalign aligns");
    bad += check(posix_memalign(&keep[4], 128, 1040) == 0, "posix_memalign succeeds");
    bad += check((std::uintptr_t)keep[4] % 128 == 0, "posix_memalign aligns");
    keep[5] = aligned_alloc(256, 1280);
    bad += check((std::uintptr_t)keep[5] % 256 == 0, "aligned_alloc aligns");
    keep[6] = valloc(1050);
    bad += check((std::uintptr_t)keep[6] % 4096 == 0, "valloc page-aligns");
    keep[7] = new char[1060];
    keep[8] = new (std::align_val_t(512)) char[1070];
    bad += check((std::uintptr_t)keep[8] % 512 == 0, "aligned new[] aligns");
    keep[9] = new long double[66]; // 1056 bytes
    bad += check(malloc_usable_size(keep[0]) >= 1001, "malloc_usable_size");
    // Failures return NULL and are not recorded.
    volatile std::size_t huge = ~std::size_t(0) - 4096;
    bad += check(std::malloc(huge) == nullptr, "malloc(huge) fails");
    bad += check(std::calloc(huge, 16) == nullptr, "calloc overflow fails");
    bad += check(std::realloc(keep[0], huge) == nullptr, "realloc(huge) fails");
    bad += check(keep[0] != nullptr && ((char*)keep[0])[0] == ((char*)keep[0])[0],
                 "failed realloc keeps the block");
    void* gone = std::malloc(77);
    std::free(gone);
    return bad;
}
