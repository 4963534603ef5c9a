// SPDX-License-Identifier: GPL-2.0-or-later
// arc4random for the memgrow-report the wheel bundles: GCC 12's static
// libstdc++, built on glibc 2.36, calls it from std::random_device (which
// memgrow-report never uses, but the exceptions' string code links in). Its
// own definition keeps the binary from needing glibc 2.36; glibc 2.25's
// getrandom is enough.
#include <sys/random.h>

#include <cstdint>

extern "C" std::uint32_t arc4random() noexcept {
    std::uint32_t value = 0;
    while (getrandom(&value, sizeof value, 0) != sizeof value) {
    }
    return value;
}
