// SPDX-License-Identifier: GPL-2.0-or-later
// Fixed-width integer names for the header-only core. The core is compiled
// both into the freestanding Valgrind tool (no libc, no libstdc++) and into
// host programs, so it includes nothing and relies on the LP64 ABI.
#pragma once

namespace mg {
using u8 = unsigned char;
using u32 = unsigned int;
using i32 = int;
using u64 = unsigned long long;
using i64 = long long;
using usize = unsigned long;
static_assert(sizeof(u64) == 8 && sizeof(i64) == 8 && sizeof(usize) == sizeof(void*),
              "the core assumes LP64");
} // namespace mg
