// SPDX-License-Identifier: GPL-2.0-or-later
// The verdict: the growing site that gained the most after the warm-up leads.
#include "report/verdict.hpp"

#include "report/gains.hpp"
#include "report/locate.hpp"
#include "report/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace mg::report {

namespace {

std::string rate(const Report& r, const Growth& g) {
    if (g.rate_per_mark && *g.rate_per_mark > 0)
        return fmt::format("+{} per mark", human_bytes(std::llround(*g.rate_per_mark)));
    if (r.time_unit == "B") return fmt::format("{} B per byte allocated", rate_text(g.rate));
    return fmt::format("+{} per {}",
                       human_bytes(std::llround(g.rate * (r.time_unit == "ms" ? 1000 : 1))),
                       r.time_unit == "ms" ? "second" : clock_unit(r.time_unit));
}

// A site's holders, largest first (a Python site has its own).
const std::vector<HeldBy>* holders(const Report& r, const Site& s) {
    const std::vector<HeldBy>& h = held_by(r, s);
    return h.empty() ? nullptr : &h;
}

// A limit as --limit takes it: powers of 1024 ("256 MiB").
std::string limit_size(std::int64_t n) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(n);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    return fmt::format("{:.4g} {}", v, units[u]);
}

std::string limit_text(const Report& r) {
    if (!r.projection) return "";
    const Projection& p = *r.projection;
    std::string limit = fmt::format("the {} limit ({})", limit_size(p.limit_bytes),
                                    p.limit_source == "cgroup" ? "the cgroup's" : "--limit");
    if (p.hours_to_limit)
        return fmt::format("; the heap reaches {} in {:.3g} hours", limit, *p.hours_to_limit);
    if (p.marks_to_limit)
        return fmt::format("; the heap reaches {} after {:.3g} more marks", limit,
                           *p.marks_to_limit);
    if (p.clock_to_limit)
        return fmt::format("; the heap reaches {} after {} more {}", limit,
                           with_commas(std::llround(*p.clock_to_limit)),
                           r.time_unit == "B" ? "bytes allocated" : clock_unit(r.time_unit) + "s");
    return "; nothing grows towards " + limit;
}

} // namespace

std::string verdict_text(const Report& r) {
    const auto warmup = warmup_bucket(r);
    const Site* top = nullptr;
    std::int64_t top_gain = 0, total = 0, lost = 0;
    std::size_t growing = 0, leaked = 0;
    const Site* top_leak = nullptr;
    for (const Site* s : leading_sites(r)) {
        if (s->suppressed) continue;
        if (s->cls == SiteClass::growing) {
            std::int64_t g = gained_bytes(*s, warmup);
            ++growing;
            total += g;
            if (!top || g > top_gain) top = s, top_gain = g;
        } else if (s->cls == SiteClass::leaked) {
            ++leaked;
            lost += leaked_bytes(*s);
            if (!top_leak || leaked_bytes(*s) > leaked_bytes(*top_leak)) top_leak = s;
        }
    }
    std::string out;
    if (top) {
        out = fmt::format("Growing: {} gained {} after the warm-up ({})", site_title(*top),
                          human_bytes(top_gain), rate(r, *top->growth));
        if (const auto* h = holders(r, *top); h && !h->empty())
            out += fmt::format(", held by {}", h->front().path);
        if (growing > 1)
            out += fmt::format("; {} growing sites gained {} in all", growing, human_bytes(total));
    } else if (top_leak) {
        out = fmt::format("Leaking: {} definitely or indirectly lost at {} site{}, most at {}",
                          human_bytes(lost), leaked, leaked == 1 ? "" : "s", site_title(*top_leak));
    } else {
        std::int64_t peak = 0;
        for (const Bucket& b : r.buckets)
            peak = std::max(peak, b.live_bytes);
        out = fmt::format("Nothing grows or leaks: {} sites, the heap peaked at {}", r.sites.size(),
                          human_bytes(peak));
    }
    if (top && leaked)
        out += fmt::format("; {} leaked site{} lost {}", leaked, leaked == 1 ? "" : "s",
                           human_bytes(lost));
    return out + limit_text(r) + ".";
}

} // namespace mg::report
