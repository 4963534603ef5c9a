// SPDX-License-Identifier: GPL-2.0-or-later
// The site table's data on the page (report/html.hpp): every listed site as
// one small array, frames and stacks interned once, so that a report of
// 30,000 sites costs a couple of megabytes and no DOM until a page of the
// table is drawn.
#include "report/html.hpp"

#include "report/holders.hpp"
#include "report/locate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

namespace mg::report {

namespace {

using nlohmann::json;

// Strings, frames and stacks, each stored once. A stack is a tree node: its
// innermost frame and its caller's node (-1 for the outermost), so stacks
// that share their callers share those nodes.
class Interner {
  public:
    json strings = json::array();
    json frames = json::array();
    json nodes = json::array(); // flat: frame, parent, frame, parent, ...

    std::int64_t string(const std::optional<std::string>& s) {
        if (!s) return -1;
        auto [it, added] = string_ids_.try_emplace(*s, strings.size());
        if (added) strings.push_back(*s);
        return static_cast<std::int64_t>(it->second);
    }

    std::int64_t frame(const Frame& f) {
        FrameKey key{string(f.function), string(f.file), f.line ? *f.line : -1, string(f.object),
                     f.python};
        auto [it, added] = frame_ids_.try_emplace(key, frames.size());
        if (added)
            frames.push_back(
                json::array({key.function, key.file, key.line, key.object, f.python ? 1 : 0}));
        return static_cast<std::int64_t>(it->second);
    }

    // The node of the whole stack (its innermost frame); -1 without frames.
    std::int64_t stack(const std::vector<Frame>& fs) {
        std::int64_t parent = -1;
        for (auto f = fs.rbegin(); f != fs.rend(); ++f) {
            std::int64_t id = frame(*f);
            // Frame and caller indices stay far below 2^32.
            std::uint64_t key =
                static_cast<std::uint64_t>(id) << 32 | static_cast<std::uint32_t>(parent + 1);
            auto [it, added] = node_ids_.try_emplace(key, nodes.size() / 2);
            if (added) {
                nodes.push_back(id);
                nodes.push_back(parent);
            }
            parent = static_cast<std::int64_t>(it->second);
        }
        return parent;
    }

  private:
    struct FrameKey {
        std::int64_t function, file, line, object;
        bool python;
        bool operator==(const FrameKey& o) const {
            return function == o.function && file == o.file && line == o.line &&
                   object == o.object && python == o.python;
        }
    };
    struct FrameHash {
        std::size_t operator()(const FrameKey& k) const {
            std::uint64_t h = 1469598103934665603ull; // FNV-1a over the fields
            for (std::int64_t v :
                 {k.function, k.file, k.line, k.object, static_cast<std::int64_t>(k.python)})
                h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ull;
            return static_cast<std::size_t>(h);
        }
    };
    std::unordered_map<std::string, std::size_t> string_ids_;
    std::unordered_map<FrameKey, std::size_t, FrameHash> frame_ids_;
    std::unordered_map<std::uint64_t, std::size_t> node_ids_;
};

std::int64_t lost_of(const Site& s) {
    return s.lost ? s.lost->definite + s.lost->indirect + s.lost->possible : 0;
}

// A finite number JSON can hold (a rate may be inf or NaN in a hostile file).
double finite(double v) {
    return std::isfinite(v) ? v : 0;
}

// A site's holders for its row: [path, root, about, bytes, blocks, share]
// each, the strings interned; about: holder_about where the tool read more
// than the root (holder_read), else empty (the root says it).
json held_rows(Interner& in, const Report& r, const Site& s) {
    json out = json::array();
    for (const HeldBy& h : held_by(r, s))
        out.push_back({in.string(h.path), in.string(h.root),
                       in.string(holder_read(h) ? holder_about(h) : std::string()), h.bytes,
                       h.blocks, finite(h.share)});
    return out;
}

} // namespace

json site_table_data(const Report& r, const std::vector<const Site*>& listed, std::size_t subs) {
    Interner in;
    std::unordered_map<std::int64_t, const Site*> by_id;
    for (const Site& s : r.sites)
        by_id.emplace(s.id, &s);
    json rows = json::array();
    for (const Site* s : listed) {
        auto title = name_frame(*s);
        json sub_rows = json::array();
        if (s->python) { // its largest live native sub-sites, with their stacks
            std::vector<const Site*> live;
            for (std::int64_t id : s->sub_sites) {
                auto found = by_id.find(id);
                if (found != by_id.end() && found->second->live_bytes > 0)
                    live.push_back(found->second);
            }
            std::stable_sort(live.begin(), live.end(), [](const Site* a, const Site* b) {
                return a->live_bytes > b->live_bytes;
            });
            for (std::size_t i = 0; i < std::min(subs, live.size()); ++i)
                sub_rows.push_back({live[i]->id, static_cast<int>(live[i]->cls),
                                    live[i]->live_bytes, live[i]->live_blocks,
                                    in.stack(live[i]->frames)});
        }
        std::string space =
            s->device ? fmt::format("{} {}", s->space.str(), *s->device) : s->space.str();
        rows.push_back({s->id, s->python ? 1 : 0, static_cast<int>(s->cls), in.string(space),
                        s->live_bytes, s->peak_bytes, lost_of(*s), finite(s->growth->rate),
                        finite(s->growth->confidence), title ? in.frame(s->frames[*title]) : -1,
                        in.stack(s->frames),
                        s->python ? static_cast<std::int64_t>(s->sub_sites.size()) : 0,
                        std::move(sub_rows), s->suppressed ? 1 : 0, held_rows(in, r, *s)});
    }
    return {{"s", std::move(in.strings)},
            {"f", std::move(in.frames)},
            {"n", std::move(in.nodes)},
            {"rows", std::move(rows)}};
}

} // namespace mg::report
