// SPDX-License-Identifier: GPL-2.0-or-later
// Forked children's copy-on-write in one line (report/fork_view.hpp).
#include "report/fork_view.hpp"

#include "report/locate.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

namespace mg::report {

namespace {

std::string mib(std::int64_t bytes) {
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

} // namespace

std::string fork_line(const std::vector<const Report*>& reports) {
    std::int64_t children = 0, copied = 0, inherited = 0, parent = 0;
    std::map<std::string, std::int64_t> held; // by the name of the site's frame
    for (const Report* r : reports) {
        std::vector<const ForkCopy*> forks;
        if (r->fork) forks.push_back(&*r->fork);
        for (const Process& p : r->processes)
            if (p.fork) forks.push_back(&*p.fork);
        if (forks.empty()) continue;
        std::unordered_map<std::int64_t, const Site*> by_id;
        for (const Site& s : r->sites)
            by_id.emplace(s.id, &s);
        for (const ForkCopy* f : forks) {
            ++children;
            copied += f->copied_bytes;
            inherited += f->inherited_bytes;
            parent = f->parent_pid;
            for (const auto& [id, bytes] : f->sites) {
                auto it = by_id.find(id);
                held["objects from " + (it == by_id.end() ? std::string("(unlisted site)")
                                                          : site_title(*it->second))] += bytes;
            }
            for (const auto& [region, bytes] : f->regions)
                held[region] += bytes;
        }
    }
    if (!children) return "";
    std::string out =
        children == 1
            ? fmt::format("this process (forked from {}) copied {} of the {} it inherited", parent,
                          mib(copied), mib(inherited))
            : fmt::format("{} workers copied {} of inherited pages", children, mib(copied));
    auto top = std::max_element(held.begin(), held.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    if (top != held.end() && copied > 0)
        out += fmt::format("; {:.0f}% holds {}", 100.0 * static_cast<double>(top->second) / copied,
                           top->first);
    return out;
}

} // namespace mg::report
