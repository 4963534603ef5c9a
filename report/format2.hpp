// Format 2's compact parts (docs/output-format.md) turned back into the
// format-1 layout: a frame row into a frame object, a site row into a site
// object (series dense again). The loader checks the result as it checks a
// format-1 report; `expand` writes it. Templates over nlohmann's json (the
// loader) and ordered_json (expand keeps the tool's order of fields).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace mg::report::format2 {

// What is wrong with a row, and where below the row's own pointer.
struct RowError : std::runtime_error {
    RowError(std::string at_, const std::string& message)
        : std::runtime_error(message), at(std::move(at_)) {}
    std::string at; // "/3" (the row's fourth field), "" for the row itself
};

// A site row: id, stack node, class, seven byte and block counts, the live
// series' change points, the allocated series' non-zero buckets, and an
// object of whatever differs from the defaults.
constexpr std::size_t kRowFields = 13;
constexpr const char* kCounts[] = {"live_bytes",      "live_blocks",      "peak_bytes",
                                   "allocated_bytes", "allocated_blocks", "at_exit_bytes",
                                   "at_exit_blocks"};
constexpr const char* kLostKinds[] = {"definite", "indirect", "possible"};

template <class J> const char* kind_of(const J& v) {
    if (v.is_number_float()) return "a fractional number";
    if (v.is_number()) return "an integer";
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
}

template <class J> std::int64_t row_integer(const J& v, const std::string& at) {
    if (!v.is_number_integer())
        throw RowError(at, std::string("expected an integer, found ") + kind_of(v));
    if (v.is_number_unsigned() && v.template get<std::uint64_t>() > INT64_MAX)
        throw RowError(at, "integer out of range");
    return v.template get<std::int64_t>();
}

// A frame row [function, file, line, object, ip] as a format-1 frame; a
// null ip marks a Python frame.
template <class J> J frame_object(const J& row) {
    if (!row.is_array() || row.size() < 5)
        throw RowError("", std::string("expected a frame row [function, file, line, object, "
                                       "ip], found ") +
                               kind_of(row));
    J f = J::object();
    f["function"] = row[0];
    f["file"] = row[1];
    f["line"] = row[2];
    f["object"] = row[3];
    f["python"] = row[4].is_null();
    f["ip"] = row[4];
    return f;
}

// A series stored as pairs [bucket, value, ...]: `changes` holds the value
// from its bucket on (0 before the first pair), otherwise the value of that
// bucket alone (0 elsewhere). Dense again, n buckets long.
template <class J> J dense(const J& pairs, std::size_t n, bool changes, const std::string& at) {
    if (!pairs.is_array())
        throw RowError(at, std::string("expected an array, found ") + kind_of(pairs));
    if (pairs.size() % 2) throw RowError(at, "a sparse series holds pairs [bucket, value, ...]");
    J out = J::array();
    std::int64_t value = 0;
    std::size_t next = 0;
    for (std::size_t i = 0; i < pairs.size(); i += 2) {
        std::int64_t b = row_integer(pairs[i], at + "/" + std::to_string(i));
        if (b < static_cast<std::int64_t>(next) || b >= static_cast<std::int64_t>(n))
            throw RowError(at + "/" + std::to_string(i), "bucket " + std::to_string(b) +
                                                             " is out of order or past the " +
                                                             std::to_string(n) + " buckets");
        for (; next < static_cast<std::size_t>(b); ++next)
            out.push_back(changes ? value : 0);
        value = row_integer(pairs[i + 1], at + "/" + std::to_string(i + 1));
        out.push_back(value);
        next = static_cast<std::size_t>(b) + 1;
    }
    for (; next < n; ++next)
        out.push_back(changes ? value : 0);
    return out;
}

// The evidence of a quiet stable site, which format 2 leaves out.
template <class J> J default_growth() {
    J g = J::object();
    g["class"] = "stable";
    g["rule"] = "none";
    g["rate"] = 0;
    g["rate_per_bucket"] = 0;
    g["rate_per_mark"] = nullptr;
    g["confidence"] = 0;
    g["trend_z"] = 0;
    g["began_at"] = nullptr;
    g["stopped_at"] = nullptr;
    g["marks_used"] = 0;
    g["marks_adding"] = 0;
    g["released_at_end"] = false;
    g["staircase_steps"] = 0;
    g["next_step_at"] = nullptr;
    return g;
}

template <class J> J zero_lost() {
    J l = J::object();
    for (const char* k : kLostKinds)
        l[k] = 0;
    return l;
}

// A site row (a Python site's when `python`) as the format-1 site object,
// with `frames` as its frames. `buckets`: the report's bucket count;
// `leak_scan`: the report has "leak_check" (every site then has "lost");
// `quiet`: the report's "quiet_growth" (null: none); `mark_buckets`: the
// length of the mark series.
template <class J>
J site_object(const J& row, bool python, std::size_t buckets, bool leak_scan, J frames,
              const J* quiet = nullptr, std::size_t mark_buckets = 0) {
    if (!row.is_array())
        throw RowError("", std::string("expected a site row (an array), found ") + kind_of(row));
    if (row.size() < kRowFields)
        throw RowError("", "a site row has " + std::to_string(kRowFields) + " fields, this one " +
                               std::to_string(row.size()));
    const J& extra = row[12];
    if (!extra.is_object())
        throw RowError("/12", std::string("expected an object, found ") + kind_of(extra));
    auto get = [&](const char* key) -> const J* {
        auto it = extra.find(key);
        return it == extra.end() ? nullptr : &*it;
    };
    J s = J::object();
    s["id"] = row[0];
    const J* space = get("space");
    s["space"] = space ? *space : J("host");
    if (const J* device = get("device")) s["device"] = *device;
    s["class"] = row[2];
    for (std::size_t i = 0; i < 7; ++i)
        s[kCounts[i]] = row[3 + i];
    const J* supp = get("suppressed");
    s["suppressed"] = supp ? *supp : J(false);
    if (const J* name = get("suppression")) s["suppression"] = *name;
    if (leak_scan) {
        const J* lost = get("lost");
        s["lost"] = lost ? *lost : zero_lost<J>();
        if (!python) {
            const J* blocks = get("lost_blocks");
            s["lost_blocks"] = blocks ? *blocks : zero_lost<J>();
            for (const char* k : {"reachable_bytes", "indirect_through"}) {
                const J* v = get(k);
                s[k] = v ? *v : J(0);
            }
            const J* ls = get("lost_suppressed");
            s["lost_suppressed"] = ls ? *ls : J(false);
        }
    }
    const J* growth = get("growth");
    s["growth"] = growth ? *growth : quiet ? *quiet : default_growth<J>();
    s["series"] = dense(row[10], buckets, true, "/10");
    if (!python) {
        J alloc = dense(row[11], buckets, false, "/11");
        J freed = J::array();
        for (std::size_t i = 0; i < buckets; ++i) {
            // What left the site within the bucket: the level before, plus
            // what came, minus the level after (the tool derives it so too).
            // Wrapping (unsigned) arithmetic: a hand-edited file's extremes
            // must not overflow (the fuzzer's finding).
            std::uint64_t before = i ? s["series"][i - 1].template get<std::uint64_t>() : 0;
            freed.push_back(
                static_cast<std::int64_t>(before + alloc[i].template get<std::uint64_t>() -
                                          s["series"][i].template get<std::uint64_t>()));
        }
        s["allocated_series"] = std::move(alloc);
        s["freed_series"] = std::move(freed);
    }
    if (const J* marks = get("mark_series"))
        s["mark_series"] = dense(*marks, mark_buckets, true, "/12/mark_series");
    else if (mark_buckets) // a marked report leaves out a series with no change
        s["mark_series"] = dense(J::array(), mark_buckets, true, "/12/mark_series");
    s["frames"] = std::move(frames);
    if (python) {
        const J* subs = get("sites");
        s["sites"] = subs ? *subs : J::array();
        const J* omitted = get("omitted_sites");
        s["omitted_sites"] = omitted ? *omitted : J(0);
    }
    // Fields format 2 does not reshape (lost_by_teardown, and what later
    // versions add) are format 1's as they are: extend, never rename.
    for (auto it = extra.begin(); it != extra.end(); ++it)
        if (s.find(it.key()) == s.end()) s[it.key()] = *it;
    return s;
}

} // namespace mg::report::format2
