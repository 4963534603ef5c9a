// SPDX-License-Identifier: GPL-2.0-or-later
// Comparing two reports of the same program (docs/memgrow-report.md): sites
// are matched by their key (report/site_key.hpp), and the verdict says whether
// NEW is worse than BASE, so that a nightly job can gate on it.
#pragma once

#include "report/model.hpp"
#include "report/site_key.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mg::report {

// The sites of one report that share a key, merged: one stack can appear
// more than once (two calls on one line, or frames that differ only by
// address), and a diff compares keys, not sites.
struct KeyedSite {
    SiteKey key;
    const Site* site = nullptr;         // the one with the most live bytes: its frames are shown
    SiteClass cls = SiteClass::stable;  // the highest class of all its sites
    SiteClass gate = SiteClass::stable; // the highest of its unsuppressed sites
    bool suppressed = false;            // every one of its sites is suppressed
    std::int64_t live_bytes = 0;
    std::size_t sites = 0;
};

std::map<SiteKey, KeyedSite> index_sites(const Report& r);

// The key of a site that moved to other lines (docs/memgrow-report.md): its
// key without line numbers, and the path of its largest holder without
// them; empty for a site without holders. A NEW key and a BASE key that only
// the other report has are the same finding when they alone share it.
std::string moved_key(const Report& r, const KeyedSite& k);

// --max-growth: how much the live bytes of leaked and growing sites may rise
// from BASE to NEW, in bytes (suffixes K, M, G: powers of 1024) or as a
// percentage of BASE's bytes ("10%").
struct Budget {
    enum class Kind { none, bytes, percent } kind = Kind::none;
    double value = 0;
    std::string text; // as given

    // The allowed rise over `base_bytes`.
    double allowed(std::int64_t base_bytes) const {
        return kind == Kind::percent ? static_cast<double>(base_bytes) * value / 100.0 : value;
    }
};

// Throws std::invalid_argument naming what is wrong.
Budget parse_budget(const std::string& text);

struct SiteChange {
    SiteKey key;
    std::optional<KeyedSite> base, next;
    bool moved = false; // base and next have different keys but one holder (moved_key)
    std::int64_t delta() const {
        return (next ? next->live_bytes : 0) - (base ? base->live_bytes : 0);
    }
};

struct DiffResult {
    std::vector<SiteChange> added;   // keys only NEW has
    std::vector<SiteChange> gone;    // keys only BASE has
    std::vector<SiteChange> changed; // in both, with another class or live byte count, or moved
    // Live bytes of the unsuppressed leaked and growing sites.
    std::int64_t base_problem_bytes = 0, new_problem_bytes = 0;
    std::vector<std::string> failures; // why the gate fails; empty: it passes
    bool failed() const { return !failures.empty(); }
};

// The rules: NEW fails when it has an unsuppressed leaked or growing site
// whose key BASE did not have as leaked or growing, or (with a budget) when
// the total of those sites' live bytes, or one such site's, rose above it.
DiffResult diff_reports(const Report& base, const Report& next, const Budget& budget = {});

// What a person calls the program of a report: its executable's base name,
// and for a Python interpreter the script (or `-m` module) it ran.
std::string program_of(const Report& r);

// A warning when BASE and NEW are reports of different programs (every site
// would be new or gone), else empty.
std::string different_programs(const Report& base, const Report& next);

struct DiffPrintOptions {
    std::size_t top = 10;   // sites listed per section
    std::size_t frames = 4; // frames per site
};

std::string print_diff(const DiffResult& d, const Report& base, const Report& next,
                       const DiffPrintOptions& options);

} // namespace mg::report
