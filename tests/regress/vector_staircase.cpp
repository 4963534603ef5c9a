// SPDX-License-Identifier: GPL-2.0-or-later
// A std::vector filled one element per request beside a per-request buffer
// that drives the clock: its storage grows in doubling steps at doubling
// intervals. argv[1] "filling": filled to the end, its last resize comes
// before the last third and the next is not due yet (growing: a resize
// staircase). "bounded": it stops at 100,000 elements, early enough that the
// next resize is long overdue (plateau).
#include <cstdlib>
#include <cstring>
#include <vector>

static std::vector<unsigned long> kept; // global: reachable at exit

int main(int argc, char** argv) {
    const bool bounded = argc > 1 && std::strcmp(argv[1], "bounded") == 0;
    const unsigned long limit = bounded ? 100000 : 1000000;
    for (unsigned long i = 0; i < 200000; i++) {
        void* body = std::malloc(1024); // the request: temporary
        std::memset(body, static_cast<int>(i), 1024);
        std::free(body);
        if (kept.size() < limit) kept.push_back(i); // VECTOR_PUSH
    }
    return kept.size() > 0 ? 0 : 1;
}
