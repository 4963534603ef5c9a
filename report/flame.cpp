// SPDX-License-Identifier: GPL-2.0-or-later
// Merging a report's stacks into the flame graph's tree: one pass over the
// sites, each adding its three values to every node on its path.
#include "report/flame.hpp"

#include "report/gains.hpp"
#include "report/site_key.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace mg::report {

namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

struct Node {
    std::uint32_t parent, name;
    std::array<std::int64_t, 3> value{};
    std::array<std::int64_t, 3> largest{}; // the largest site beneath, by each metric
    std::array<std::uint8_t, 3> cls{};     // and its class
};

class Tree {
  public:
    Tree() { nodes_.push_back({kNone, name("all")}); }

    std::uint32_t name(const std::string& label) {
        auto [it, added] = name_index_.emplace(label, static_cast<std::uint32_t>(names_.size()));
        if (added) names_.push_back(label);
        return it->second;
    }
    std::uint32_t child(std::uint32_t parent, std::uint32_t name) {
        std::uint64_t key = (std::uint64_t(parent) << 32) | name;
        auto [it, added] = children_.emplace(key, static_cast<std::uint32_t>(nodes_.size()));
        if (added) nodes_.push_back({parent, name});
        return it->second;
    }
    void add(std::uint32_t node, const std::array<std::int64_t, 3>& v, SiteClass c) {
        for (; node != kNone; node = nodes_[node].parent) {
            Node& n = nodes_[node];
            for (int m = 0; m < 3; ++m) {
                n.value[m] += v[m];
                if (v[m] > n.largest[m]) {
                    n.largest[m] = v[m];
                    n.cls[m] = static_cast<std::uint8_t>(c);
                }
            }
        }
    }
    const std::vector<Node>& nodes() const { return nodes_; }
    const std::vector<std::string>& names() const { return names_; }

  private:
    std::vector<Node> nodes_;
    std::vector<std::string> names_;
    std::unordered_map<std::string, std::uint32_t> name_index_;
    std::unordered_map<std::uint64_t, std::uint32_t> children_;
};

std::string node_label(const Frame& f) {
    return frame_label(f) + (f.python ? " [python]" : "");
}

} // namespace

nlohmann::json flame_data(const Report& r, double min_share) {
    Tree tree;
    const auto warmup = warmup_bucket(r);
    // Format 2's sites share their callers' stack nodes: the tree node of a
    // stack node is found once and reused by every site beneath it.
    std::vector<std::uint32_t> of_stack_node;
    std::vector<std::uint32_t> label_of_frame;
    std::vector<const Frame*> path;
    for (const Site& s : r.sites) {
        std::array<std::int64_t, 3> v{gained_bytes(s, warmup), s.live_bytes, leaked_bytes(s)};
        if (!v[0] && !v[1] && !v[2]) continue;
        std::uint32_t node = 0;
        if (s.frames.in_tree()) {
            // Walk up to a stack node already placed, then back down.
            const StackTree& st = *s.frames.tree();
            if (of_stack_node.empty()) {
                of_stack_node.assign(st.node_frame.size(), kNone);
                label_of_frame.assign(st.frames.size(), kNone);
            }
            std::vector<std::uint32_t> up;
            std::uint32_t n = s.frames.node();
            while (n != StackTree::kNoNode && of_stack_node[n] == kNone) {
                up.push_back(n);
                n = st.node_parent[n];
            }
            node = n == StackTree::kNoNode ? 0 : of_stack_node[n];
            for (auto it = up.rbegin(); it != up.rend(); ++it) {
                std::uint32_t f = st.node_frame[*it];
                if (label_of_frame[f] == kNone)
                    label_of_frame[f] = tree.name(node_label(st.frames[f]));
                node = of_stack_node[*it] = tree.child(node, label_of_frame[f]);
            }
        } else {
            path.clear();
            for (const Frame& f : s.frames)
                path.push_back(&f);
            for (auto it = path.rbegin(); it != path.rend(); ++it)
                node = tree.child(node, tree.name(node_label(**it)));
        }
        tree.add(node, v, s.cls);
    }

    // Keep the nodes with a visible share of some total; a parent comes
    // before its children, so one pass renumbers.
    const auto& nodes = tree.nodes();
    const auto& totals = nodes[0].value;
    std::vector<std::int64_t> kept_as(nodes.size(), -1);
    nlohmann::json rows = nlohmann::json::array();
    std::vector<std::uint32_t> names_used;
    std::unordered_map<std::uint32_t, std::size_t> name_out;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const Node& n = nodes[i];
        if (i && kept_as[n.parent] < 0) continue;
        bool visible = i == 0;
        for (int m = 0; m < 3; ++m)
            visible =
                visible || (n.value[m] > 0 && double(n.value[m]) >= min_share * double(totals[m]));
        if (!visible) continue;
        auto [it, added] = name_out.emplace(n.name, names_used.size());
        if (added) names_used.push_back(n.name);
        kept_as[i] = static_cast<std::int64_t>(kept++);
        for (auto v : {i ? kept_as[n.parent] : std::int64_t(-1), std::int64_t(it->second),
                       n.value[0], n.value[1], n.value[2], std::int64_t(n.cls[0]),
                       std::int64_t(n.cls[1]), std::int64_t(n.cls[2])})
            rows.push_back(v);
    }
    nlohmann::json names = nlohmann::json::array();
    for (std::uint32_t n : names_used)
        names.push_back(tree.names()[n]);
    return {{"names", std::move(names)},
            {"nodes", std::move(rows)},
            {"totals", {totals[0], totals[1], totals[2]}},
            {"left_out", nodes.size() - kept}};
}

} // namespace mg::report
