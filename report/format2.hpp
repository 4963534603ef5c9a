// SPDX-License-Identifier: GPL-2.0-or-later
// Format 2's compact parts (docs/output-format.md) turned back into the
// format-1 layout: a frame row into a frame object, a site row into a site
// object (series dense again). The loader checks the result as it checks a
// format-1 report; `expand` writes it. Templates over nlohmann's json (the
// loader) and ordered_json (expand keeps the tool's order of fields).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
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
// Format 2's encodings ("revision"; docs/output-format.md): 1, a report
// without the field, holds ids, class names, absolute callers and lost
// objects; 2 holds id gaps, class codes, callers as distances back, "leak"
// arrays and sub-site steps.
constexpr int kLatestRevision = 2;
constexpr const char* kClassCodes[] = {"stable", "plateau", "growing", "leaked"};
// A site's "leak": the three lost kinds in bytes, then in blocks, then
// reachable_bytes and indirect_through; a Python site's: the bytes only.
constexpr std::size_t kSiteLeak = 8, kPythonLeak = 3;

// A folded row (sites the report folds, docs/output-format.md): its stack
// node, its listed Python site or null, then these counts.
constexpr const char* kFoldedCounts[] = {"sites",         "live_bytes",      "live_blocks",
                                         "peak_bytes",    "allocated_bytes", "allocated_blocks",
                                         "at_exit_bytes", "at_exit_blocks"};
constexpr std::size_t kFoldedFields = 2 + std::size(kFoldedCounts);

template <class J> const char* kind_of(const J& v) {
    if (v.is_number_float()) return "a fractional number";
    if (v.is_number()) return "an integer";
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
}

// Digits beyond 64 bits (a pid of 2^70) reach the parser as a double: an
// integer all the same, out of range, not a fractional number.
template <class J> bool is_huge_integer(const J& v) {
    if (!v.is_number_float()) return false;
    const double d = v.template get<double>();
    return std::fabs(d) >= 0x1p63 && std::isfinite(d) && std::trunc(d) == d;
}

template <class J> std::int64_t row_integer(const J& v, const std::string& at) {
    if (is_huge_integer(v)) throw RowError(at, "integer out of range");
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

// The report's format-2 revision: 1 without the field. Anything but 1 or 2
// is refused.
template <class J> int revision_of(const J& root) {
    auto it = root.find("revision");
    if (it == root.end()) return 1;
    if (!it->is_number_integer() || *it < 1 || *it > kLatestRevision)
        throw RowError("", "unsupported format-2 revision " + it->dump() +
                               " (this memgrow-report reads revisions 1 and 2)");
    return it->template get<int>();
}

// The top-level fields of format 2 that format 1 does not have.
inline bool own_field(const std::string& key) {
    return key == "frames" || key == "stacks" || key == "site_count" ||
           key == "python_site_count" || key == "quiet_growth" || key == "mark_buckets" ||
           key == "revision" || key == "folded_count";
}

// Revision 2's caller of node `node`: `back` nodes before it (0: none, -1
// returned). A caller before the first node, or not before its callee, is
// refused.
inline std::int64_t caller_of(std::int64_t node, std::int64_t back, const std::string& at) {
    if (back < 0 || back > node)
        throw RowError(at, "caller " + std::to_string(back) + " nodes back from node " +
                               std::to_string(node) + " is not an earlier node");
    return back == 0 ? -1 : node - back;
}

// The id after `id` (0 after the largest: a gap from it cannot be valid
// anyway, only the gap's own check refuses it).
template <class J> std::int64_t after(const J& id) {
    std::int64_t x = id.is_number_integer() ? id.template get<std::int64_t>() : 0;
    return x == INT64_MAX ? 0 : x + 1;
}

// A row's id: revision 2 writes the gap after the previous row's id
// (`next`: that id + 1), revision 1 the id.
template <class J>
std::int64_t row_id(const J& v, int revision, std::int64_t next, const std::string& at) {
    std::int64_t x = row_integer(v, at);
    if (revision < 2) return x;
    if (x < 0 || x > INT64_MAX - next) throw RowError(at, "an id gap cannot be negative or huge");
    return next + x;
}

// A row's class: revision 2 writes its code (0 stable, 1 plateau, 2
// growing, 3 leaked), revision 1 its name (checked by the loader).
template <class J> J row_class(const J& v, int revision, const std::string& at) {
    if (revision < 2) return v;
    std::int64_t c = row_integer(v, at);
    if (c < 0 || c > 3)
        throw RowError(at, "class code " + std::to_string(c) +
                               " is not 0 to 3 (stable, plateau, "
                               "growing, leaked)");
    return J(kClassCodes[c]);
}

// Revision 2's "leak" array, checked: `n` integers.
template <class J> void check_leak(const J& leak, std::size_t n, const std::string& at) {
    if (!leak.is_array() || leak.size() != n)
        throw RowError(at, "expected \"leak\" as an array of " + std::to_string(n) +
                               " counts, found " + kind_of(leak));
    for (std::size_t i = 0; i < n; ++i)
        row_integer(leak[i], at + "/" + std::to_string(i));
}

// Revision 2's sub-site ids, each written as the step from the one before
// (the first from 0), back to ids.
template <class J> J sub_site_ids(const J& steps, const std::string& at) {
    if (!steps.is_array())
        throw RowError(at, std::string("expected an array, found ") + kind_of(steps));
    J out = J::array();
    std::int64_t id = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        std::int64_t d = row_integer(steps[i], at + "/" + std::to_string(i));
        if (d < 0 || d > INT64_MAX - id)
            throw RowError(at + "/" + std::to_string(i), "sub-site ids rise: a step cannot be "
                                                         "negative or huge");
        id += d;
        out.push_back(id);
    }
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

// A site row (a Python site's when `python`) as the format-1 site object
// in two parts, `head` (up to its frames) and `tail` (after them), so that
// expand can write a site's frames between them as text. `buckets`: the
// report's bucket count; `leak_scan`: the report has "leak_check" (every site
// then has "lost"); `quiet`: the report's "quiet_growth" (null: none);
// `mark_buckets`: the length of the mark series; `revision`: the encoding;
// `next_id`: the previous row's id + 1 (revision 2's rows hold the gap).
template <class J> struct SiteParts { J head, tail; };

template <class J>
SiteParts<J> site_parts(const J& row, bool python, std::size_t buckets, bool leak_scan,
                        const J* quiet = nullptr, std::size_t mark_buckets = 0, int revision = 1,
                        std::int64_t next_id = 0) {
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
    // Revision 2's compact fields, which format 1 spells out.
    auto compact = [&](const std::string& key) {
        return revision >= 2 && (key == "leak" || (python && key == "sites"));
    };
    J s = J::object();
    s["id"] = revision >= 2 ? J(row_id(row[0], revision, next_id, "/0")) : row[0];
    const J* space = get("space");
    s["space"] = space ? *space : J("host");
    if (const J* device = get("device")) s["device"] = *device;
    s["class"] = row_class(row[2], revision, "/2");
    for (std::size_t i = 0; i < 7; ++i)
        s[kCounts[i]] = row[3 + i];
    const J* supp = get("suppressed");
    s["suppressed"] = supp ? *supp : J(false);
    if (const J* name = get("suppression")) s["suppression"] = *name;
    if (leak_scan) {
        const J* leak = revision >= 2 ? get("leak") : nullptr;
        if (leak) check_leak(*leak, python ? kPythonLeak : kSiteLeak, "/12/leak");
        auto kinds = [&](std::size_t from) {
            J l = J::object();
            for (std::size_t k = 0; k < 3; ++k)
                l[kLostKinds[k]] = (*leak)[from + k];
            return l;
        };
        const J* lost = get("lost");
        s["lost"] = leak ? kinds(0) : lost ? *lost : zero_lost<J>();
        if (!python) {
            const J* blocks = get("lost_blocks");
            s["lost_blocks"] = leak ? kinds(3) : blocks ? *blocks : zero_lost<J>();
            const char* keys[] = {"reachable_bytes", "indirect_through"};
            for (std::size_t k = 0; k < 2; ++k) {
                const J* v = get(keys[k]);
                s[keys[k]] = leak ? (*leak)[6 + k] : v ? *v : J(0);
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
    J t = J::object();
    if (python) {
        const J* subs = get("sites");
        t["sites"] = !subs ? J::array() : revision >= 2 ? sub_site_ids(*subs, "/12/sites") : *subs;
        const J* omitted = get("omitted_sites");
        t["omitted_sites"] = omitted ? *omitted : J(0);
    }
    // Fields format 2 does not reshape (lost_by_teardown, and what later
    // versions add) are format 1's as they are: extend, never rename.
    for (auto it = extra.begin(); it != extra.end(); ++it)
        if (!compact(it.key()) && it.key() != "frames" && s.find(it.key()) == s.end() &&
            t.find(it.key()) == t.end())
            t[it.key()] = *it;
    return {std::move(s), std::move(t)};
}

// A folded row as its format-1 object, with `frames` as its frames.
template <class J> J folded_object(const J& row, J frames) {
    if (!row.is_array() || row.size() != kFoldedFields)
        throw RowError("", std::string("expected a folded row [stack, python_site, sites, "
                                       "live_bytes, ...], found ") +
                               kind_of(row));
    J f = J::object();
    f["python_site"] = row[1];
    for (std::size_t i = 0; i < std::size(kFoldedCounts); ++i)
        f[kFoldedCounts[i]] = row[2 + i];
    f["frames"] = std::move(frames);
    return f;
}

// The whole format-1 site object, with `frames` as its frames.
template <class J>
J site_object(const J& row, bool python, std::size_t buckets, bool leak_scan, J frames,
              const J* quiet = nullptr, std::size_t mark_buckets = 0, int revision = 1,
              std::int64_t next_id = 0) {
    SiteParts<J> p =
        site_parts(row, python, buckets, leak_scan, quiet, mark_buckets, revision, next_id);
    p.head["frames"] = std::move(frames);
    for (auto it = p.tail.begin(); it != p.tail.end(); ++it)
        p.head[it.key()] = std::move(*it);
    return std::move(p.head);
}

} // namespace mg::report::format2
