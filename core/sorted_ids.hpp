// SPDX-License-Identifier: GPL-2.0-or-later
// Sparse per-site data kept as ascending site ids beside their values: a
// million sites, a few thousand with anything to say (the suppressed ones,
// the ones with live blocks at a leak scan).
#pragma once

#include "types.hpp"

namespace mg {

// The position of id among ids[0..n) (ascending), n when it is not there.
inline u32 find_sorted_id(const u32* ids, u32 n, u32 id) {
    u32 lo = 0, hi = n;
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ids[lo] == id ? lo : n;
}

} // namespace mg
