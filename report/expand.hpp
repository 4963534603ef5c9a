// SPDX-License-Identifier: GPL-2.0-or-later
// A format-2 report in the format-1 layout (memgrow-report expand, and merge,
// which writes format 1): every site with its frames inline, series dense.
// A format-1 report comes back as it is.
#pragma once

#include "report/format2.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mg::report {

// `root` must have loaded (load_report checks it): the checks here only keep
// a bad file from crashing, they do not explain it.
template <class J> J expand_document(const J& root) {
    auto version = root.find("memgrow");
    if (version == root.end() || *version != 2) return root;
    J frames = J::array();
    if (auto f = root.find("frames"); f != root.end())
        for (const J& row : *f)
            frames.push_back(format2::frame_object(row));
    int revision = format2::revision_of(root);
    std::vector<std::int64_t> stacks;
    if (auto s = root.find("stacks"); s != root.end())
        for (const J& v : *s) {
            std::int64_t x = v.template get<std::int64_t>();
            // Revision 2: the caller as a distance back, made an index.
            if (revision >= 2 && stacks.size() % 2)
                x = format2::caller_of(static_cast<std::int64_t>(stacks.size() / 2), x, "");
            stacks.push_back(x);
        }
    // A node's frames, innermost first: its frame, then its caller's.
    auto frames_of = [&](const J& node) {
        J out = J::array();
        if (node.is_null()) return out;
        for (std::int64_t n = node.template get<std::int64_t>();
             n >= 0 && static_cast<std::size_t>(2 * n + 1) < stacks.size(); n = stacks[2 * n + 1])
            out.push_back(frames[static_cast<std::size_t>(stacks[2 * n])]);
        return out;
    };
    std::size_t buckets = root.contains("buckets") ? root["buckets"].size() : 0;
    bool leak_scan = root.contains("leak_check");
    auto quiet = root.find("quiet_growth");
    const J* quiet_growth = quiet == root.end() ? nullptr : &*quiet;
    std::size_t mark_buckets =
        root.contains("mark_buckets") ? root["mark_buckets"].template get<std::size_t>() : 0;
    J out = J::object();
    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string& key = it.key();
        // Format 2's own fields: the tables, the row counts, the defaults.
        if (format2::own_field(key)) continue;
        if (key == "memgrow") {
            out[key] = 1;
        } else if (key == "sites" || key == "python_sites") {
            J list = J::array();
            std::int64_t next_id = 0;
            for (const J& row : it.value()) {
                list.push_back(format2::site_object(row, key == "python_sites", buckets, leak_scan,
                                                    frames_of(row[1]), quiet_growth, mark_buckets,
                                                    revision, next_id));
                if (revision >= 2) next_id = format2::after(list.back()["id"]);
            }
            out[key] = std::move(list);
        } else if (key == "folded") {
            J list = J::array();
            for (const J& row : it.value())
                list.push_back(format2::folded_object(row, frames_of(row[0])));
            out[key] = std::move(list);
        } else if (key == "fork" && it.value().is_object()) {
            // A forked child's copy-on-write: its writers' stacks as frames.
            J fork = it.value();
            if (auto w = fork.find("writers"); w != fork.end() && w->is_array())
                for (J& writer : *w)
                    if (writer.is_object()) {
                        J frames_of_writer = frames_of(writer.value("stack", J()));
                        writer.erase("stack");
                        writer["frames"] = std::move(frames_of_writer);
                    }
            out[key] = std::move(fork);
        } else {
            out[key] = it.value();
        }
    }
    return out;
}

} // namespace mg::report
