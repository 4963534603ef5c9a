// SPDX-License-Identifier: GPL-2.0-or-later
// speedscope's JSON (https://www.speedscope.app/file-format-schema.json):
// frames once in `shared.frames`, each profile a list of stacks (outermost
// frame first, as indices into the frames) with one weight each.
#include "report/exports.hpp"

#include "report/gains.hpp"
#include "report/site_key.hpp"

#include <map>
#include <vector>

namespace mg::report {

nlohmann::json speedscope_file(const Report& r, const std::string& exporter) {
    using json = nlohmann::json;
    json frames = json::array();
    std::map<std::string, std::size_t> frame_index; // by label: one frame per line of code
    auto frame_of = [&](const Frame& f) {
        std::string key = (f.python ? "py " : "") + frame_label(f);
        auto [it, added] = frame_index.emplace(key, frames.size());
        if (added) {
            json fr = {{"name", f.function.value_or("???")}};
            if (f.file)
                fr["file"] = *f.file;
            else if (f.object)
                fr["file"] = *f.object;
            if (f.line) fr["line"] = *f.line;
            frames.push_back(std::move(fr));
        }
        return it->second;
    };

    struct Profile {
        const char* name;
        json samples = json::array(), weights = json::array();
        std::int64_t total = 0;
    };
    Profile live{"live bytes at teardown"}, gained{"bytes gained after the warm-up"};
    const auto warmup = warmup_bucket(r);
    for (const Site& s : r.sites) {
        std::int64_t values[2] = {s.live_bytes, gained_bytes(s, warmup)};
        if (!values[0] && !values[1]) continue;
        std::vector<std::size_t> stack;
        for (const Frame& f : s.frames)
            stack.push_back(frame_of(f));
        json outermost_first = std::vector<std::size_t>(stack.rbegin(), stack.rend());
        Profile* profiles[2] = {&live, &gained};
        for (int i = 0; i < 2; ++i) {
            if (!values[i]) continue;
            profiles[i]->samples.push_back(outermost_first);
            profiles[i]->weights.push_back(values[i]);
            profiles[i]->total += values[i];
        }
    }

    std::string command;
    for (const std::string& c : r.command)
        command += (command.empty() ? "" : " ") + c;
    json out = {{"$schema", "https://www.speedscope.app/file-format-schema.json"},
                {"name", "memgrow: " + (command.empty() ? r.path : command)},
                {"exporter", exporter},
                {"activeProfileIndex", 1},
                {"shared", {{"frames", std::move(frames)}}},
                {"profiles", json::array()}};
    for (Profile* p : {&live, &gained})
        out["profiles"].push_back({{"type", "sampled"},
                                   {"name", p->name},
                                   {"unit", "bytes"},
                                   {"startValue", 0},
                                   {"endValue", p->total},
                                   {"samples", std::move(p->samples)},
                                   {"weights", std::move(p->weights)}});
    return out;
}

} // namespace mg::report
