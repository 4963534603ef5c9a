// SPDX-License-Identifier: GPL-2.0-or-later
// The text of `show`: a header for the run, then each class's top sites.
#include "report/show.hpp"

#include "report/fork_view.hpp"
#include "report/holders.hpp"
#include "report/locate.hpp"
#include "report/site_key.hpp"
#include "report/text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <unordered_map>

#include <fmt/format.h>

namespace mg::report {

namespace {

bool file_matches(const std::string& file, const std::string& want) {
    if (file == want) return true;
    // A path suffix at a directory boundary: "a.c" matches "src/a.c", not "xa.c".
    return file.size() > want.size() &&
           file.compare(file.size() - want.size(), want.size(), want) == 0 &&
           file[file.size() - want.size() - 1] == '/';
}

std::string upper(const char* s) {
    std::string out = s;
    for (char& c : out)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

// Sites by id, for a Python site's sub-sites (built once: a PyTorch report
// has a million sites, and a Python site may have a hundred thousand).
using SitesById = std::unordered_map<std::int64_t, const Site*>;

SitesById index_sites(const Report& r) {
    SitesById by_id;
    by_id.reserve(r.sites.size());
    for (const Site& n : r.sites)
        by_id.emplace(n.id, &n);
    return by_id;
}

void print_site(std::string& out, const Report& r, const Site& s, const ShowOptions& o,
                const SitesById& by_id) {
    auto it = std::back_inserter(out);
    std::string space = terminal_text(s.space);
    if (s.device) space += fmt::format(" (device {})", *s.device);
    fmt::format_to(
        it, "{} bytes in {} blocks live (peak {}), {} space{}\n", with_commas(s.live_bytes),
        with_commas(s.live_blocks), with_commas(s.peak_bytes), space,
        s.suppressed ? fmt::format(", suppressed by {}", terminal_text(s.suppression.str())) : "");
    if (s.lost && (s.lost->definite || s.lost->indirect || s.lost->possible))
        fmt::format_to(it, "  lost: {} definitely, {} indirectly, {} possibly\n",
                       with_commas(s.lost->definite), with_commas(s.lost->indirect),
                       with_commas(s.lost->possible));
    for (const HeldBy& h : held_by(r, s))
        fmt::format_to(it, "  held by: {}\n", terminal_text(held_by_text(h)));
    const Growth& g = *s.growth;
    if (g.rule != "none" && !g.rule.empty()) {
        fmt::format_to(it, "  growth: {} bytes per {}, {} per bucket", rate_text(g.rate),
                       terminal_text(clock_unit(r.time_unit)), rate_text(g.rate_per_bucket));
        if (g.rate_per_mark)
            fmt::format_to(it, ", {} per mark ({} of {} marks added)", rate_text(*g.rate_per_mark),
                           with_commas(g.marks_adding), with_commas(g.marks_used));
        fmt::format_to(it, "; {} rule, confidence {}{}\n", terminal_text(g.rule),
                       confidence_text(g.confidence), g.after_marks ? ", after the last mark" : "");
        if (g.next_step_at)
            fmt::format_to(it, "  resize staircase of {} steps; next resize {} clock {}\n",
                           with_commas(g.staircase_steps),
                           g.rule == "staircase" ? "due at" : "overdue since",
                           with_commas(*g.next_step_at));
        if (g.bound)
            fmt::format_to(it, "  bounded: {} at most{}{}\n", with_commas(*g.bound),
                           g.fill ? fmt::format(", {}% full", percent_text(*g.fill, 0)) : "",
                           g.bound_bytes
                               ? fmt::format(", {} bytes when full", with_commas(*g.bound_bytes))
                               : "");
    }
    if (!s.series.empty()) {
        std::vector<std::int64_t> series = s.series.dense();
        auto [lo, hi] = std::minmax_element(series.begin(), series.end());
        fmt::format_to(it, "  series: {}  {} .. {} bytes\n", sparkline(series, o.width, o.ascii),
                       with_commas(*lo), with_commas(*hi));
    }
    if (!s.mark_series.empty())
        fmt::format_to(it, "  per mark: {}\n", sparkline(s.mark_series.dense(), o.width, o.ascii));
    if (s.python) { // the Python stack, then the largest native sub-sites
        for (std::size_t i = 0; i < std::min(o.frames, s.frames.size()); ++i)
            fmt::format_to(it, "    {} {}\n", i ? "by" : "at",
                           terminal_text(frame_label(s.frames[i])));
        std::vector<const Site*> subs;
        for (std::int64_t id : s.sub_sites) {
            auto n = by_id.find(id);
            if (n != by_id.end() && n->second->live_bytes > 0) subs.push_back(n->second);
        }
        std::stable_sort(subs.begin(), subs.end(), [](const Site* a, const Site* b) {
            return a->live_bytes > b->live_bytes;
        });
        fmt::format_to(it, "  native sub-sites: {}{}\n", with_commas(s.sub_sites.size()),
                       subs.empty() ? "" : ", the largest:");
        for (std::size_t i = 0; i < std::min<std::size_t>(3, subs.size()); ++i) {
            std::string native;
            for (const Frame& f : subs[i]->frames)
                if (!f.python && std::count(native.begin(), native.end(), '<') < 2)
                    native += (native.empty() ? "" : " < ") + terminal_text(frame_label(f));
            fmt::format_to(it, "    {} {} bytes in {} blocks: {}\n", class_name(subs[i]->cls),
                           with_commas(subs[i]->live_bytes), with_commas(subs[i]->live_blocks),
                           native);
        }
        return;
    }
    std::size_t n = std::min(o.frames, s.frames.size());
    for (std::size_t i = 0; i < n; ++i) {
        const Frame& f = s.frames[i];
        fmt::format_to(it, "    {} {}{}\n", i ? "by" : "at", terminal_text(frame_label(f)),
                       f.python ? " [python]" : "");
    }
    if (n < s.frames.size())
        fmt::format_to(it, "    ... {} more frames\n", with_commas(s.frames.size() - n));
}

// The holders that keep the listed sites' memory (the report's `holders`,
// docs/holders.md), each class's largest first, with the sites beneath
// each: one finding per holder.
void print_holders(std::string& out, const Report& r, const ShowOptions& o,
                   const std::vector<const Site*>& listed) {
    SiteIndex native, python;
    for (const Site* s : listed)
        (s->python ? python : native).emplace(s->id, s);
    const std::array<SiteClass, 4> order = {SiteClass::leaked, SiteClass::growing,
                                            SiteClass::plateau, SiteClass::stable};
    std::array<std::vector<std::pair<const Holder*, std::vector<HeldSite>>>, 4> by_class;
    for (const Holder& h : r.holders) {
        // Stable holders (the interpreter's own, most of them) only on request.
        if (o.classes.empty()
                ? h.cls == SiteClass::stable
                : std::find(o.classes.begin(), o.classes.end(), h.cls) == o.classes.end())
            continue;
        std::vector<HeldSite> sites = holder_members(r, h, native, python);
        if (!sites.empty() && !part_of_holder_finding(r, h))
            by_class[3 - static_cast<int>(h.cls)].emplace_back(&h, sites);
    }
    for (auto& list : by_class)
        std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
            return a.first->bytes > b.first->bytes;
        });
    auto it = std::back_inserter(out);
    for (std::size_t c = 0; c < order.size(); ++c) {
        const auto& list = by_class[c];
        for (std::size_t i = 0; i < std::min(o.top, list.size()); ++i) {
            const auto& [h, sites] = list[i];
            // The log's words and numbers: its share of its sites' live
            // bytes, in all the sites it keeps (older reports: what it held
            // at the scan, in the sites listed).
            std::size_t n_sites = h->n_sites ? static_cast<std::size_t>(*h->n_sites) : sites.size();
            fmt::format_to(it, "\n{} HOLDER {} of {}: {} keeps {} in {} site{}",
                           upper(class_name(order[c])), with_commas(i + 1),
                           with_commas(list.size()), terminal_text(holder_words(*h)),
                           human_bytes(h->live_bytes ? *h->live_bytes : h->bytes),
                           with_commas(n_sites), n_sites == 1 ? "" : "s");
            if (h->rate)
                fmt::format_to(it, ", {} B per {}", rate_text(*h->rate),
                               terminal_text(clock_unit(r.time_unit)));
            out += "\n";
            std::size_t shown = std::min(o.top, sites.size());
            for (std::size_t k = 0; k < shown; ++k) {
                const Site& s = *sites[k].site;
                fmt::format_to(it, "    {} {} {}, {} bytes held: {}\n",
                               s.python ? "Python site" : "site", s.id, class_name(s.cls),
                               with_commas(sites[k].bytes), terminal_text(site_title(s)));
            }
            // The log's words: the sites it keeps that are not named.
            if (n_sites > shown)
                fmt::format_to(it, "    and {} more site{}\n", with_commas(n_sites - shown),
                               n_sites - shown == 1 ? "" : "s");
        }
    }
}

} // namespace

bool site_matches(const Site& s, const ShowOptions& o) {
    if (!o.classes.empty() &&
        std::find(o.classes.begin(), o.classes.end(), s.cls) == o.classes.end())
        return false;
    if (!o.spaces.empty() &&
        std::find(o.spaces.begin(), o.spaces.end(), s.space.str()) == o.spaces.end())
        return false;
    auto any_frame = [&](auto pred) { return std::any_of(s.frames.begin(), s.frames.end(), pred); };
    if (!o.files.empty() && !any_frame([&](const Frame& f) {
            return f.file && std::any_of(o.files.begin(), o.files.end(),
                                         [&](const auto& w) { return file_matches(*f.file, w); });
        }))
        return false;
    if (!o.functions.empty() && !any_frame([&](const Frame& f) {
            return f.function &&
                   std::any_of(o.functions.begin(), o.functions.end(), [&](const auto& w) {
                       return f.function->find(w) != std::string::npos;
                   });
        }))
        return false;
    return true;
}

std::string show_report(const Report& r, const ShowOptions& o) {
    std::string out;
    auto it = std::back_inserter(out);
    std::string command;
    for (const std::string& a : r.command)
        command += (command.empty() ? "" : " ") + terminal_text(a);
    std::string units = r.time_unit == "B"   ? "bytes allocated"
                        : r.time_unit == "i" ? "instructions"
                                             : terminal_text(r.time_unit);
    fmt::format_to(it,
                   "memgrow report {}\n  command: {}\n  pid {}, state at {} (clock {} {}), "
                   "{} buckets\n",
                   r.path, command, r.pid, r.teardown.empty() ? "?" : terminal_text(r.teardown),
                   with_commas(r.teardown_at), units, with_commas(r.buckets.size()));
    if (r.leak_check)
        fmt::format_to(
            it,
            "  leak check: {} bytes definitely lost, {} indirectly, {} possibly, "
            "{} still reachable\n",
            with_commas(r.leak_check->definite.bytes), with_commas(r.leak_check->indirect.bytes),
            with_commas(r.leak_check->possible.bytes), with_commas(r.leak_check->reachable.bytes));
    if (std::string cow = fork_line({&r}); !cow.empty())
        fmt::format_to(it, "  copy-on-write: {}\n", terminal_text(cow));

    // Sites the filters keep, per class, most live bytes first.
    const std::array<SiteClass, 4> order = {SiteClass::leaked, SiteClass::growing,
                                            SiteClass::plateau, SiteClass::stable};
    std::array<std::vector<const Site*>, 4> by_class;
    std::size_t hidden = 0;
    for (const Site* s : leading_sites(r)) {
        if (!site_matches(*s, o)) continue;
        if (s->suppressed && !o.suppressed) {
            ++hidden;
            continue;
        }
        by_class[3 - static_cast<int>(s->cls)].push_back(s);
    }
    std::string counts;
    for (std::size_t c = 0; c < order.size(); ++c) {
        std::int64_t bytes = 0;
        for (const Site* s : by_class[c])
            bytes += s->live_bytes;
        counts += fmt::format("{}{} {} ({} bytes)", c ? ", " : "", class_name(order[c]),
                              with_commas(by_class[c].size()), with_commas(bytes));
    }
    if (!r.python_sites.empty())
        fmt::format_to(it, "  Python sites first ({}), then the sites without Python frames\n",
                       with_commas(r.python_sites.size()));
    fmt::format_to(
        it, "  sites: {}{}\n", counts,
        hidden ? fmt::format("; {} suppressed not shown (--suppressed)", with_commas(hidden)) : "");
    if (!r.folded.empty()) { // docs/output-format.md, "What the report lists"
        std::int64_t sites = 0, bytes = 0;
        for (const Folded& f : r.folded)
            sites += f.sites, bytes += f.live_bytes;
        fmt::format_to(it, "  folded: {} small stable sites ({} bytes) in {} groups\n",
                       with_commas(sites), with_commas(bytes), with_commas(r.folded.size()));
    }

    if (!r.holders.empty()) {
        std::vector<const Site*> listed;
        for (const auto& list : by_class)
            listed.insert(listed.end(), list.begin(), list.end());
        print_holders(out, r, o, listed);
    }
    const SitesById by_id = r.python_sites.empty() ? SitesById{} : index_sites(r);
    for (std::size_t c = 0; c < order.size(); ++c) {
        auto& list = by_class[c];
        std::stable_sort(list.begin(), list.end(), [](const Site* a, const Site* b) {
            if (a->python != b->python) return a->python;
            return a->live_bytes > b->live_bytes;
        });
        std::size_t n = std::min(o.top, list.size());
        for (std::size_t i = 0; i < n; ++i) {
            fmt::format_to(it, "\n{} {} of {}: ", upper(class_name(order[c])), with_commas(i + 1),
                           with_commas(list.size()));
            // The site's name first: the Python headline, or the innermost
            // frame of the program's own code.
            fmt::format_to(it, "{}\n  ",
                           terminal_text(list[i]->python ? python_headline(r, *list[i])
                                                         : site_title(*list[i])));
            print_site(out, r, *list[i], o, by_id);
        }
    }
    return out;
}

} // namespace mg::report
