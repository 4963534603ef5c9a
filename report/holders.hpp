// SPDX-License-Identifier: GPL-2.0-or-later
// Who holds a site's memory (docs/holders.md), as every view writes it:
// show, html, sarif and diff read a site's `held_by` and the report's
// `holders` through these, so that a holder reads the same everywhere.
#pragma once

#include "report/model.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace mg::report {

// What a holder is, as the tool's log says it: "dict, 12,000 items, no
// bound", "collections.deque, 2,000 of 6,000 items", "global, 900 of 4,096
// slots" (a native array), or the root's kind alone ("global").
std::string holder_about(const HolderName& h);

// "journal (global)", "service.TOKEN_STATS (dict, 12,000 items, no bound)":
// the path, then holder_about.
std::string holder_words(const HolderName& h);

// Whether the tool read more of the holder than its root (a type, a
// length): then holder_about says more than the root's kind.
bool holder_read(const HolderName& h);

// "journal (global), 48,000 bytes in 1,000 blocks, 100%": the log's line.
std::string held_by_text(const HeldBy& h);

// The steps of a path from the root, as the tool writes them between " → ":
// {"table", "block from grow_table (cache.c:40)"}; one step for a path
// without them.
std::vector<std::string> holder_steps(const std::string& path);

// The path without its line numbers ("main (a.c:88)" -> "main (a.c)"): a
// holder named by code (a frame, a block's site) keeps its key when lines
// move (diff's moved sites).
std::string holder_path_key(const std::string& path);

// The bytes of site `s` (of report `r`) that holder `h` keeps: its `held_by` entry for the
// holder (by id, else by path), else all its live bytes.
std::int64_t bytes_held(const Report& r, const Site& s, const Holder& h);

// The sites a holder's finding names beneath it, each with the bytes of it
// the holder keeps, in the log's order: its `members` (older reports: its
// `sites` and `python_sites`, largest share first), those the indexes (by
// id) hold. How many more it keeps: n_sites less these.
struct HeldSite {
    const Site* site;
    std::int64_t bytes;
};
using SiteIndex = std::unordered_map<std::int64_t, const Site*>;
std::vector<HeldSite> holder_members(const Report& r, const Holder& h, const SiteIndex& native,
                                     const SiteIndex& python);

// Whether a holder is part of another's finding, as in the log: a growing
// one inside a growing one (`errors[*]` in `errors`), a plateau one inside
// a growing or a bounded one (core/holder_rule.hpp's path_inside).
bool part_of_holder_finding(const Report& r, const Holder& h);

} // namespace mg::report
