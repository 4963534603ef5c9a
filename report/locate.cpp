// SPDX-License-Identifier: GPL-2.0-or-later
// The innermost-user-frame rule (report/locate.hpp).
#include "report/locate.hpp"

#include "core/site_name.hpp"
#include "report/holders.hpp"
#include "report/site_key.hpp"
#include "report/text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace mg::report {

namespace {

const char* c_str(const std::optional<std::string>& s) {
    return s ? s->c_str() : nullptr;
}

NameRank rank_of(const Frame& f) {
    return name_rank(c_str(f.function), c_str(f.file), c_str(f.object), f.python);
}

} // namespace

bool is_system_path(const std::string& path) {
    return system_path(path.c_str());
}

bool is_system_object(const std::string& object) {
    return system_object(object.c_str());
}

bool is_user_frame(const Frame& f) {
    return rank_of(f) == NameRank::user;
}

std::optional<SiteLocation> locate_site(const Site& s) {
    // The naming rule, among the frames with a source file (a location).
    std::optional<SiteLocation> best;
    NameRank best_rank = NameRank::unknown;
    for (std::size_t i = 0; i < s.frames.size(); ++i) {
        const Frame& f = s.frames[i];
        if (!f.file || f.file->empty()) continue;
        NameRank r = rank_of(f);
        if (!best || static_cast<int>(r) < static_cast<int>(best_rank)) {
            best = SiteLocation{i, r == NameRank::user};
            best_rank = r;
        }
        if (r == NameRank::user) break;
    }
    return best;
}

std::optional<std::size_t> name_frame(const Site& s) {
    SiteNamer n;
    for (const Frame& f : s.frames) {
        n.offer(c_str(f.function), c_str(f.file), c_str(f.object), f.python);
        if (n.settled()) break;
    }
    if (!n.any) return std::nullopt;
    return n.index;
}

std::string site_title(const Site& s) {
    auto at = name_frame(s);
    return at ? frame_label(s.frames[*at]) : std::string("(no frames)");
}

std::vector<const Site*> leading_sites(const Report& r) {
    std::vector<const Site*> out;
    for (const Site& s : r.python_sites)
        out.push_back(&s);
    for (const Site& s : r.sites) {
        bool python =
            !r.python_sites.empty() &&
            std::any_of(s.frames.begin(), s.frames.end(), [](const Frame& f) { return f.python; });
        if (!python) out.push_back(&s);
    }
    return out;
}

std::string python_headline(const Report& r, const Site& s) {
    auto at = locate_site(s);
    std::string where = at ? frame_label(s.frames[at->frame]) : std::string("???");
    std::string time_unit = r.time_unit;
    if (s.process && static_cast<std::size_t>(*s.process) < r.processes.size())
        time_unit = r.processes[static_cast<std::size_t>(*s.process)].time_unit;
    // A leaked site's lost bytes lead: its live bytes are not the leak (an
    // import line's are the whole import's heap).
    std::string lost;
    if (s.cls == SiteClass::leaked && s.lost && (s.lost->definite || s.lost->indirect))
        lost = s.lost->definite ? human_bytes(s.lost->definite) + " definitely lost, of "
                                : human_bytes(s.lost->indirect) + " indirectly lost, of ";
    return fmt::format("{}, {}{}{} in {} blocks, {} B per {}", where, lost,
                       human_bytes(s.live_bytes), lost.empty() ? "" : " live",
                       with_commas(s.live_blocks), rate_text(s.growth->rate),
                       clock_unit(time_unit));
}

std::int64_t site_pid(const Report& r, const Site& s) {
    return s.pid ? *s.pid : r.pid;
}

std::string evidence_text(const Report& r, const Site& s) {
    std::string time_unit = r.time_unit;
    if (s.process && static_cast<std::size_t>(*s.process) < r.processes.size())
        time_unit = r.processes[static_cast<std::size_t>(*s.process)].time_unit;
    std::string out = class_name(s.cls);
    out += ": ";
    if (s.cls == SiteClass::leaked && s.lost)
        out += fmt::format("{} bytes definitely and {} indirectly lost; ",
                           with_commas(s.lost->definite), with_commas(s.lost->indirect));
    out += fmt::format("{} bytes in {} blocks live (peak {}), {} space", with_commas(s.live_bytes),
                       with_commas(s.live_blocks), with_commas(s.peak_bytes), s.space.str());
    const Growth& g = *s.growth;
    if (g.rule == "trend" || g.rule == "refleak" || g.rule == "staircase" || g.rate != 0)
        out += fmt::format("; growth {} bytes per {} ({} per bucket), {} rule, "
                           "confidence {}",
                           rate_text(g.rate), clock_unit(time_unit), rate_text(g.rate_per_bucket),
                           g.rule.empty() ? "?" : g.rule, confidence_text(g.confidence));
    if (g.rate_per_mark) out += fmt::format("; {} bytes per mark", rate_text(*g.rate_per_mark));
    if (g.next_step_at)
        out += fmt::format("; resize staircase; next resize {} clock {}",
                           g.rule == "staircase" ? "due at" : "overdue since",
                           with_commas(*g.next_step_at));
    if (g.bound)
        out += fmt::format("; bounded holder: {} at most{}", with_commas(*g.bound),
                           g.fill ? fmt::format(", {}% full", percent_text(*g.fill, 0)) : "");
    for (const HeldBy& h : held_by(r, s))
        out += "; held by " + held_by_text(h);
    out += fmt::format("; pid {}", site_pid(r, s));
    return out;
}

} // namespace mg::report
