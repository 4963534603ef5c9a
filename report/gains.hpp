// SPDX-License-Identifier: GPL-2.0-or-later
// What a site gained: its live bytes at teardown less its live bytes when the
// warm-up ended (the last bucket that ends by `warmup_end`; 0 when none
// does). Growth is what the flame graph and the exports weigh by, and the
// warm-up's allocations (imports, caches filled once) are not growth. A site
// that shrank gained nothing: widths and weights are never negative.
#pragma once

#include "report/model.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace mg::report {

// The bucket whose end is the warm-up's end, or none (the warm-up ended
// before the first bucket did).
inline std::optional<std::uint32_t> warmup_bucket(const Report& r) {
    std::optional<std::uint32_t> found;
    for (std::uint32_t i = 0; i < r.buckets.size() && r.buckets[i].end <= r.warmup_end; ++i)
        found = i;
    return found;
}

// The series' level at `bucket` (change points: the last one at or before it).
inline std::int64_t level_at(const Series& s, std::uint32_t bucket) {
    const auto& p = s.points();
    auto after =
        std::upper_bound(p.begin(), p.end(), bucket,
                         [](std::uint32_t b, const Series::Point& q) { return b < q.bucket; });
    return after == p.begin() ? 0 : std::prev(after)->value;
}

inline std::int64_t gained_bytes(const Site& s, std::optional<std::uint32_t> warmup) {
    std::int64_t before = warmup ? level_at(s.series, *warmup) : 0;
    return std::max<std::int64_t>(0, s.live_bytes - before);
}

// Bytes the last leak scan found definitely or indirectly lost (what makes a
// site leaked); possibly lost bytes are not counted.
inline std::int64_t leaked_bytes(const Site& s) {
    return s.lost ? s.lost->definite + s.lost->indirect : 0;
}

} // namespace mg::report
