// SPDX-License-Identifier: GPL-2.0-or-later
// How holders read in every view (report/holders.hpp).
#include "report/holders.hpp"

#include "core/holder_rule.hpp"
#include "report/text.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace mg::report {

std::string holder_about(const HolderName& h) {
    std::string what = h.type ? *h.type : h.root;
    const char* unit = h.type ? "items" : "slots";
    if (h.length && h.bound)
        return fmt::format("{}, {} of {} {}", what, with_commas(*h.length), with_commas(*h.bound),
                           unit);
    if (h.length) return fmt::format("{}, {} {}, no bound", what, with_commas(*h.length), unit);
    return what;
}

std::string holder_words(const HolderName& h) {
    std::string about = holder_about(h);
    return about.empty() ? h.path : fmt::format("{} ({})", h.path, about);
}

bool holder_read(const HolderName& h) {
    return h.type || h.length;
}

std::string held_by_text(const HeldBy& h) {
    return fmt::format("{}, {} bytes in {} blocks, {}%", holder_words(h), with_commas(h.bytes),
                       with_commas(h.blocks), percent_text(h.share));
}

std::vector<std::string> holder_steps(const std::string& path) {
    static const std::string kArrow = " \u2192 ";
    std::vector<std::string> out;
    std::size_t from = 0;
    for (std::size_t at; (at = path.find(kArrow, from)) != std::string::npos;
         from = at + kArrow.size())
        out.push_back(path.substr(from, at - from));
    out.push_back(path.substr(from));
    return out;
}

std::string holder_path_key(const std::string& path) {
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        // ":88)" -> ")"
        if (path[i] == ':') {
            std::size_t j = i + 1;
            while (j < path.size() && std::isdigit(static_cast<unsigned char>(path[j])))
                ++j;
            if (j > i + 1 && j < path.size() && path[j] == ')') {
                i = j - 1;
                continue;
            }
        }
        out += path[i];
    }
    return out;
}

std::int64_t bytes_held(const Report& r, const Site& s, const Holder& h) {
    for (const HeldBy& b : held_by(r, s))
        if (b.holder ? *b.holder == h.id : b.path == h.path) return b.bytes;
    return s.live_bytes;
}

std::vector<HeldSite> holder_members(const Report& r, const Holder& h, const SiteIndex& native,
                                     const SiteIndex& python) {
    std::vector<HeldSite> out;
    for (const HolderMember& m : h.members)
        if (auto found = (m.python ? python : native).find(m.id);
            found != (m.python ? python : native).end())
            out.push_back({found->second, m.bytes});
    if (!h.members.empty()) return out;
    for (auto [ids, index] : {std::pair{&h.python_sites, &python}, std::pair{&h.sites, &native}})
        for (std::int64_t id : *ids)
            if (auto found = index->find(id); found != index->end())
                out.push_back({found->second, bytes_held(r, *found->second, h)});
    std::stable_sort(out.begin(), out.end(),
                     [](const HeldSite& a, const HeldSite& b) { return a.bytes > b.bytes; });
    return out;
}

bool part_of_holder_finding(const Report& r, const Holder& h) {
    if (h.cls != SiteClass::growing && h.cls != SiteClass::plateau) return false;
    return std::any_of(r.holders.begin(), r.holders.end(), [&](const Holder& outer) {
        bool finding = outer.cls == SiteClass::growing ||
                       (h.cls == SiteClass::plateau && outer.cls == SiteClass::plateau &&
                        outer.bound.has_value());
        return &outer != &h && finding && path_inside(h.path.c_str(), outer.path.c_str());
    });
}

} // namespace mg::report
