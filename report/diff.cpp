// SPDX-License-Identifier: GPL-2.0-or-later
// The diff rules: matching sites by key, and the verdict.
#include "report/diff.hpp"
#include "report/holders.hpp"
#include "report/locate.hpp"

#include "report/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace mg::report {

std::map<SiteKey, KeyedSite> index_sites(const Report& r) {
    std::map<SiteKey, KeyedSite> out;
    // A Python process is keyed by its Python sites, so that a baseline
    // survives an interpreter whose native paths differ.
    for (const Site* sp : leading_sites(r)) {
        const Site& s = *sp;
        SiteKey key = (s.python ? "python " : "") + site_key(s);
        auto [it, fresh] = out.try_emplace(key);
        KeyedSite& k = it->second;
        if (fresh) {
            k.key = key;
            k.suppressed = true;
        }
        if (!k.site || s.live_bytes > k.site->live_bytes) k.site = &s;
        k.cls = std::max(k.cls, s.cls);
        if (!s.suppressed) {
            k.gate = std::max(k.gate, s.cls);
            k.suppressed = false;
        }
        k.live_bytes += s.live_bytes;
        ++k.sites;
    }
    return out;
}

std::string moved_key(const Report& r, const KeyedSite& k) {
    const Site& s = *k.site;
    const std::vector<HeldBy>& held = held_by(r, s);
    if (held.empty()) return {};
    std::string key = (s.python ? "python " : "") + s.space.str() + ":";
    for (const Frame& f : s.frames) {
        Frame no_line = f;
        no_line.line.reset();
        key += " " + frame_label(no_line);
    }
    return key + " held by " + holder_path_key(held.front().path);
}

std::string program_of(const Report& r) {
    if (r.command.empty()) return {};
    std::string program = base_name(r.command[0]);
    if (program.rfind("python", 0) != 0) return program;
    for (std::size_t i = 1; i < r.command.size(); ++i) {
        const std::string& a = r.command[i];
        if (a == "-m" && i + 1 < r.command.size()) return program + " -m " + r.command[i + 1];
        if (a == "-c") return program + " -c";
        if (!a.empty() && a[0] != '-') return program + " " + base_name(a);
    }
    return program;
}

std::string different_programs(const Report& base, const Report& next) {
    const std::string a = program_of(base), b = program_of(next);
    if (a == b) return {};
    return fmt::format("BASE and NEW are reports of different programs ({} and {}): their sites "
                       "cannot be expected to match",
                       terminal_text(a), terminal_text(b));
}

Budget parse_budget(const std::string& text) {
    Budget b;
    b.text = text;
    const char* begin = text.c_str();
    char* end = nullptr;
    double v = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(v) || v < 0 || text.find_first_of("xXpP") != text.npos)
        throw std::invalid_argument("--max-growth: expected bytes (64K, 10M, 1G) or a "
                                    "percentage (5%), got '" +
                                    text + "'");
    std::string suffix = end;
    b.kind = Budget::Kind::bytes;
    double scale = 1;
    if (suffix == "%") {
        b.kind = Budget::Kind::percent;
    } else if (!suffix.empty()) {
        char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
        std::string rest = suffix.substr(1);
        scale = unit == 'K' ? 1024.0 : unit == 'M' ? 1048576.0 : unit == 'G' ? 1073741824.0 : 0;
        if (unit == 'B' && rest.empty()) scale = 1;
        if (scale == 0 || !(rest.empty() || rest == "B" || rest == "iB"))
            throw std::invalid_argument("--max-growth: unknown unit '" + suffix + "' in '" + text +
                                        "' (use K, M, G or %)");
    }
    b.value = v * scale;
    return b;
}

namespace {

// Problems first, then by how much changed.
bool more_important(const SiteChange& a, const SiteChange& b) {
    auto rank = [](const SiteChange& c) {
        return static_cast<int>((c.next ? c.next : c.base)->gate);
    };
    if (rank(a) != rank(b)) return rank(a) > rank(b);
    if (std::llabs(a.delta()) != std::llabs(b.delta()))
        return std::llabs(a.delta()) > std::llabs(b.delta());
    return a.key < b.key;
}

// The sites that moved: (BASE key, NEW key) of the keys only one report has
// that alone share a moved_key.
std::vector<std::pair<SiteKey, SiteKey>> moved_pairs(const Report& base, const Report& next,
                                                     const std::map<SiteKey, KeyedSite>& before,
                                                     const std::map<SiteKey, KeyedSite>& after) {
    std::map<std::string, std::pair<std::vector<SiteKey>, std::vector<SiteKey>>> by_moved_key;
    for (const auto& [key, k] : before)
        if (!after.count(key))
            if (std::string m = moved_key(base, k); !m.empty())
                by_moved_key[m].first.push_back(key);
    for (const auto& [key, k] : after)
        if (!before.count(key))
            if (std::string m = moved_key(next, k); !m.empty())
                by_moved_key[m].second.push_back(key);
    std::vector<std::pair<SiteKey, SiteKey>> out;
    for (const auto& [m, keys] : by_moved_key)
        if (keys.first.size() == 1 && keys.second.size() == 1)
            out.emplace_back(keys.first[0], keys.second[0]);
    return out;
}

std::string site_words(const KeyedSite& k) {
    return fmt::format("{} site {}", class_name(k.gate), stack_line(*k.site, 4));
}

} // namespace

DiffResult diff_reports(const Report& base, const Report& next, const Budget& budget) {
    auto before = index_sites(base);
    auto after = index_sites(next);
    DiffResult d;
    for (const auto& [key, k] : before)
        if (is_problem(k.gate)) d.base_problem_bytes += k.live_bytes;
    for (const auto& [key, k] : after)
        if (is_problem(k.gate)) d.new_problem_bytes += k.live_bytes;

    // Each NEW key's BASE site: the same key, else the one that moved there.
    std::map<SiteKey, const KeyedSite*> matched;
    for (const auto& [key, k] : after)
        if (auto was = before.find(key); was != before.end()) matched[key] = &was->second;
    for (const auto& [base_key, next_key] : moved_pairs(base, next, before, after))
        matched[next_key] = &before.at(base_key);

    for (const auto& [key, k] : after) {
        auto found = matched.find(key);
        const KeyedSite* was = found == matched.end() ? nullptr : found->second;
        bool moved = was && was->key != key;
        if (!was) {
            d.added.push_back({key, std::nullopt, k});
        } else if (moved || was->cls != k.cls || was->gate != k.gate ||
                   was->live_bytes != k.live_bytes) {
            d.changed.push_back({key, *was, k, moved});
        }
        // Rule 1: a leaked or growing site that BASE did not have as one.
        bool was_problem = was && is_problem(was->gate);
        if (is_problem(k.gate) && !was_problem) {
            if (!was)
                d.failures.push_back(
                    fmt::format("new {}: {} bytes live", site_words(k), with_commas(k.live_bytes)));
            else
                d.failures.push_back(fmt::format("{} (was {}): {} bytes live", site_words(k),
                                                 class_name(was->gate), with_commas(k.live_bytes)));
        }
        // Rule 2, per site: its live bytes rose above the budget.
        if (budget.kind != Budget::Kind::none && is_problem(k.gate)) {
            std::int64_t had = was ? was->live_bytes : 0;
            std::int64_t rise = k.live_bytes - had;
            if (rise > 0 && static_cast<double>(rise) > budget.allowed(had))
                d.failures.push_back(
                    fmt::format("{}: {} -> {} bytes live ({}), over --max-growth={}", site_words(k),
                                with_commas(had), with_commas(k.live_bytes),
                                with_commas(rise, true), budget.text));
        }
    }
    std::set<SiteKey> found_again;
    for (const auto& match : matched)
        found_again.insert(match.second->key);
    for (const auto& [key, k] : before)
        if (!found_again.count(key)) d.gone.push_back({key, k, std::nullopt});

    // Rule 2, in total.
    std::int64_t rise = d.new_problem_bytes - d.base_problem_bytes;
    if (budget.kind != Budget::Kind::none && rise > 0 &&
        static_cast<double>(rise) > budget.allowed(d.base_problem_bytes))
        d.failures.push_back(fmt::format("leaked and growing sites hold {} -> {} bytes ({}), "
                                         "over --max-growth={}",
                                         with_commas(d.base_problem_bytes),
                                         with_commas(d.new_problem_bytes), with_commas(rise, true),
                                         budget.text));

    std::sort(d.added.begin(), d.added.end(), more_important);
    std::sort(d.gone.begin(), d.gone.end(), more_important);
    std::sort(d.changed.begin(), d.changed.end(), more_important);
    return d;
}

} // namespace mg::report
