// SPDX-License-Identifier: GPL-2.0-or-later
// The diff as text: both reports, the new, gone and changed sites, the verdict.
#include "report/diff.hpp"

#include "report/text.hpp"

#include <iterator>

#include <fmt/format.h>

namespace mg::report {

namespace {

std::string classes(const KeyedSite& k) {
    // A suppressed class is shown but does not count: say so.
    return k.suppressed ? fmt::format("{} (suppressed)", class_name(k.cls)) : class_name(k.cls);
}

// `next`: NEW's report, which names a moved site's holder.
void section(std::string& out, const char* title, const std::vector<SiteChange>& list,
             const DiffPrintOptions& o, const Report& next) {
    auto it = std::back_inserter(out);
    fmt::format_to(it, "{} sites: {}\n", title, list.size());
    std::size_t shown = 0;
    for (const SiteChange& c : list) {
        if (shown++ == o.top) {
            fmt::format_to(it, "  ... and {} more\n", list.size() - o.top);
            break;
        }
        const KeyedSite& k = c.next ? *c.next : *c.base;
        std::string what = c.base && c.next && c.base->cls != c.next->cls
                               ? fmt::format("{} -> {}", classes(*c.base), classes(*c.next))
                               : classes(k);
        std::string bytes =
            c.base && c.next
                ? fmt::format("{} -> {} bytes ({})", with_commas(c.base->live_bytes),
                              with_commas(c.next->live_bytes), with_commas(c.delta(), true))
                : fmt::format("{} bytes", with_commas(k.live_bytes));
        fmt::format_to(it, "  {:<8} {}  {}\n", what, bytes, stack_line(*k.site, o.frames));
        if (c.moved)
            fmt::format_to(it, "           moved from {}, held by {}\n",
                           stack_line(*c.base->site, o.frames),
                           terminal_text(held_by(next, *c.next->site).front().path));
    }
}

std::string about(const Report& r) {
    return fmt::format("{} (pid {}, {} sites)", r.path, r.pid, r.sites.size());
}

} // namespace

std::string print_diff(const DiffResult& d, const Report& base, const Report& next,
                       const DiffPrintOptions& o) {
    std::string out;
    auto it = std::back_inserter(out);
    fmt::format_to(it, "base: {}\nnew:  {}\n\n", about(base), about(next));
    section(out, "new", d.added, o, next);
    section(out, "gone", d.gone, o, next);
    section(out, "changed", d.changed, o, next);
    fmt::format_to(it, "\nleaked and growing sites hold {} -> {} bytes ({})\n",
                   with_commas(d.base_problem_bytes), with_commas(d.new_problem_bytes),
                   with_commas(d.new_problem_bytes - d.base_problem_bytes, true));
    for (const std::string& f : d.failures)
        fmt::format_to(it, "FAIL: {}\n", f);
    if (d.failed())
        fmt::format_to(it, "result: FAIL ({} problem{})\n", d.failures.size(),
                       d.failures.size() == 1 ? "" : "s");
    else
        fmt::format_to(it, "result: OK\n");
    return out;
}

} // namespace mg::report
