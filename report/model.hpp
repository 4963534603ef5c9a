// SPDX-License-Identifier: GPL-2.0-or-later
// A memgrow JSON report (docs/output-format.md, format version 1 or 2) loaded into
// plain structs: what every memgrow-report command reads (show and diff now;
// merge, html and the CI formats later), so none of them touches JSON.
#pragma once

#include "../core/classify.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace mg::report {

// Site classes and their names are the tool's own (core/classify.hpp): a
// larger value wins when sites merge.
using mg::class_name;
using mg::SiteClass;

inline std::optional<SiteClass> parse_class(const std::string& name) {
    for (SiteClass c :
         {SiteClass::leaked, SiteClass::growing, SiteClass::plateau, SiteClass::stable})
        if (name == class_name(c)) return c;
    return std::nullopt;
}

// Leaked and growing are what a CI gate fails on; plateau and stable are not.
inline bool is_problem(SiteClass c) {
    return c == SiteClass::leaked || c == SiteClass::growing;
}

struct Frame {
    std::optional<std::string> function; // null when unknown
    std::optional<std::string> file;
    std::optional<std::int64_t> line;
    std::optional<std::string> object;
    bool python = false;
    std::string ip; // differs between builds: never part of a site key; empty for Python frames
};

// Format 2's stack tree (docs/output-format.md), shared by the sites of one
// report: node i is its innermost frame `frames[node_frame[i]]` and its
// caller's node `node_parent[i]` (kNoNode for an outermost frame).
struct StackTree {
    static constexpr std::uint32_t kNoNode = 0xffffffffu;
    std::vector<Frame> frames;
    std::vector<std::uint32_t> node_frame, node_parent, node_depth; // depth: frames to the root
};

// A site's frames, innermost first: its own (format 1, merged reports) or a
// node of its report's StackTree (format 2), read alike. A million format-2
// sites share their callers' frames instead of holding a million copies.
class FrameList {
  public:
    class const_iterator {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Frame;
        using difference_type = std::ptrdiff_t;
        using pointer = const Frame*;
        using reference = const Frame&;
        const_iterator() = default;
        const_iterator(const Frame* own, const StackTree* tree, std::uint32_t node)
            : own_(own), tree_(tree), node_(node) {}
        reference operator*() const {
            return tree_ ? tree_->frames[tree_->node_frame[node_]] : *own_;
        }
        pointer operator->() const { return &**this; }
        const_iterator& operator++() {
            if (tree_)
                node_ = tree_->node_parent[node_];
            else
                ++own_;
            return *this;
        }
        const_iterator operator++(int) {
            const_iterator old = *this;
            ++*this;
            return old;
        }
        bool operator==(const const_iterator& o) const {
            return own_ == o.own_ && node_ == o.node_;
        }
        bool operator!=(const const_iterator& o) const { return !(*this == o); }

      private:
        const Frame* own_ = nullptr;
        const StackTree* tree_ = nullptr;
        std::uint32_t node_ = StackTree::kNoNode;
    };
    using iterator = const_iterator;
    using value_type = Frame;

    FrameList() = default;
    FrameList(std::vector<Frame> own) : own_(std::move(own)) {} // NOLINT: a vector is a list
    FrameList(std::initializer_list<Frame> own) : own_(own) {}
    FrameList(std::shared_ptr<const StackTree> tree, std::uint32_t node)
        : tree_(std::move(tree)), node_(node) {}

    // A format-2 site read before its report's tree is whole: the node
    // now, the tree once it is (link).
    static FrameList unlinked(std::uint32_t node) {
        FrameList f;
        f.node_ = node;
        return f;
    }
    void link(std::shared_ptr<const StackTree> tree) { tree_ = std::move(tree); }

    bool in_tree() const { return tree_ != nullptr; }
    const StackTree* tree() const { return tree_.get(); }
    std::uint32_t node() const { return node_; }
    std::size_t size() const {
        if (!tree_) return own_.size();
        return node_ == StackTree::kNoNode ? 0 : tree_->node_depth[node_];
    }
    bool empty() const { return size() == 0; }
    const_iterator begin() const {
        return tree_ ? const_iterator(nullptr, tree_.get(), node_)
                     : const_iterator(own_.data(), nullptr, StackTree::kNoNode);
    }
    const_iterator end() const {
        return tree_ ? const_iterator(nullptr, tree_.get(), StackTree::kNoNode)
                     : const_iterator(own_.data() + own_.size(), nullptr, StackTree::kNoNode);
    }
    // Walks from the innermost frame: O(i) in a tree.
    const Frame& operator[](std::size_t i) const {
        if (!tree_) return own_[i];
        auto it = begin();
        while (i--)
            ++it;
        return *it;
    }
    const Frame& front() const { return *begin(); }
    const Frame& back() const { return (*this)[size() - 1]; }
    void push_back(Frame f) {
        materialise();
        own_.push_back(std::move(f));
    }
    void pop_back() {
        materialise();
        own_.pop_back();
    }
    // The frames as a vector of their own (a copy from a tree).
    operator std::vector<Frame>() const { return {begin(), end()}; } // NOLINT: reads as one

  private:
    void materialise() {
        if (!tree_) return;
        own_ = std::vector<Frame>(begin(), end());
        tree_.reset();
        node_ = StackTree::kNoNode;
    }
    std::vector<Frame> own_;
    std::shared_ptr<const StackTree> tree_;
    std::uint32_t node_ = StackTree::kNoNode;
};

// A string that many sites hold (a space, a suppression's name): one copy for
// the process, the site keeps a pointer to it. Assigned from any string.
class Interned {
  public:
    Interned() : s_(&pool("")) {}
    Interned(const std::string& s) : s_(&pool(s)) {} // NOLINT: reads as the string
    Interned(const char* s) : s_(&pool(s)) {}        // NOLINT
    const std::string& str() const { return *s_; }
    operator const std::string&() const { return *s_; } // NOLINT
    bool empty() const { return s_->empty(); }
    friend bool operator==(const Interned& a, const Interned& b) { return a.s_ == b.s_; }
    friend bool operator!=(const Interned& a, const Interned& b) { return a.s_ != b.s_; }

  private:
    // Never shrinks: a site may outlive its report (merge copies sites).
    static const std::string& pool(const std::string& s) {
        static std::unordered_set<std::string> strings;
        return *strings.insert(s).first;
    }
    const std::string* s_;
};

// A value many sites share (a million quiet sites have the same growth
// evidence): read as a const T, replaced whole; a default one reads as T{}.
template <class T> class Shared {
  public:
    Shared() = default;
    Shared(T v) : p_(std::make_shared<const T>(std::move(v))) {} // NOLINT: a T is a Shared<T>
    const T& operator*() const { return p_ ? *p_ : fallback(); }
    const T* operator->() const { return &**this; }

  private:
    static const T& fallback() {
        static const T t{};
        return t;
    }
    std::shared_ptr<const T> p_;
};

// Live bytes per bucket held as change points, as format 2 stores them: a
// level holds from its bucket until the next point, 0 before the first. A
// million sites that changed in a bucket or two keep a point or two each,
// not every bucket; what is shown reads it dense.
class Series {
  public:
    struct Point {
        std::uint32_t bucket;
        std::int64_t value;
        bool operator==(const Point& o) const { return bucket == o.bucket && value == o.value; }
    };
    Series() = default;
    Series(const std::vector<std::int64_t>& dense) { // NOLINT: a dense series is a series
        for (std::size_t i = 0; i < dense.size(); ++i)
            change(static_cast<std::uint32_t>(i), dense[i]);
        resize(dense.size());
    }
    // The level from `bucket` on is `value` (buckets in increasing order);
    // a point that changes nothing is not kept, so equal series compare equal.
    void change(std::uint32_t bucket, std::int64_t value) {
        if (value != (points_.empty() ? 0 : points_.back().value))
            points_.push_back({bucket, value});
    }
    void reserve(std::size_t points) { points_.reserve(points); }
    void resize(std::size_t buckets) { buckets_ = static_cast<std::uint32_t>(buckets); }
    std::size_t size() const { return buckets_; }
    bool empty() const { return buckets_ == 0; }
    const std::vector<Point>& points() const { return points_; }
    std::vector<std::int64_t> dense() const {
        std::vector<std::int64_t> out(buckets_, 0);
        for (std::size_t i = 0; i < points_.size(); ++i) {
            std::size_t to = i + 1 < points_.size() ? points_[i + 1].bucket : buckets_;
            std::fill(out.begin() + points_[i].bucket,
                      out.begin() + std::min<std::size_t>(to, buckets_), points_[i].value);
        }
        return out;
    }
    friend bool operator==(const Series& a, const Series& b) {
        return a.buckets_ == b.buckets_ && a.points_ == b.points_;
    }
    friend bool operator!=(const Series& a, const Series& b) { return !(a == b); }

  private:
    std::vector<Point> points_;
    std::uint32_t buckets_ = 0;
};

struct Growth {
    std::optional<SiteClass> history_class; // `growth.class`: what the series alone gives
    std::string rule;                       // trend, refleak, staircase, level, none
    double rate = 0;                        // bytes per clock unit
    double rate_per_bucket = 0;
    std::optional<double> rate_per_mark;
    double confidence = 0;
    std::optional<std::int64_t> began_at, stopped_at;
    std::int64_t marks_used = 0, marks_adding = 0;
    bool released_at_end = false;
    bool after_marks = false; // growing by the clock after the last mark (the marks stopped)
    std::int64_t staircase_steps = 0;         // a resize staircase's steps (0: none)
    std::optional<std::int64_t> next_step_at; // when its next step is due (or was, overdue)
    // The rule "bounded holder" (docs/holders.md): the holders' bound, how
    // full they are (length / bound) and the site's bytes projected at it.
    std::optional<std::int64_t> bound, bound_bytes;
    std::optional<double> fill;
};

// What a holder is (docs/holders.md): its path from the root, the root's
// kind (global, stack, register, mapped, heap, thread) and, where the tool
// reads the object (Python), its type, length and bound (null: unbounded).
struct HolderName {
    std::string path, root;
    std::optional<std::string> type;
    std::optional<std::int64_t> length, bound;
};

// One entry of a site's `held_by`: a holder and how much of the site's
// memory it keeps; `holder`: its id in the report's `holders`, when listed.
struct HeldBy : HolderName {
    std::int64_t bytes = 0, blocks = 0;
    double share = 0;
    std::optional<std::int64_t> holder;
};

// One of the report's `holders`: a holder across sites, the finding that
// groups them. The loader fills in what a report leaves out: its sites
// (those whose held_by names it) and its class (the highest of the sites it
// keeps at least half of).
// A site a holder's finding prints beneath it, and the bytes of it the
// holder keeps.
struct HolderMember {
    bool python = false;
    std::int64_t id = 0, bytes = 0;
};

struct Holder : HolderName {
    std::int64_t id = 0;
    SiteClass cls = SiteClass::stable;
    std::int64_t bytes = 0, blocks = 0;
    std::optional<double> rate;                    // its bytes' growth per clock unit
    std::vector<std::int64_t> sites, python_sites; // the ids of the sites it keeps
    // Its share of its sites' live bytes, and how many sites it keeps (the
    // report lists the largest): what the log's finding says.
    std::optional<std::int64_t> live_bytes, n_sites;
    // The sites the log prints beneath its finding, in its order (older
    // reports: none, and each view picks them from `sites`).
    std::vector<HolderMember> members;
};

struct Lost {
    std::int64_t definite = 0, indirect = 0, possible = 0;
};

// A Lost or none (a report without a leak scan), in a Lost's 24 bytes
// where std::optional takes 32: a million sites are a big report's model.
// None is a negative count, which the loader refuses.
class MaybeLost {
  public:
    MaybeLost() = default;
    MaybeLost(const Lost& l) : v_(l) {} // NOLINT: a Lost is a MaybeLost
    explicit operator bool() const { return v_.definite >= 0; }
    bool has_value() const { return v_.definite >= 0; }
    const Lost& operator*() const { return v_; }
    const Lost* operator->() const { return &v_; }
    Lost* operator->() { return &v_; }
    void reset() { v_ = Lost{-1, 0, 0}; }

  private:
    Lost v_{-1, 0, 0};
};

// A million of these make a big report's model: what most sites share (the
// space, the quiet growth evidence, their callers' frames) is held once, the
// series as change points.
struct Site {
    std::int64_t id = 0;
    Interned space; // host, device, managed, pinned, mapped
    std::int64_t live_bytes = 0, live_blocks = 0, peak_bytes = 0;
    std::int64_t allocated_bytes = 0, allocated_blocks = 0;
    std::int64_t at_exit_bytes = 0, at_exit_blocks = 0;
    Interned suppression;
    MaybeLost lost; // only with a leak scan
    Shared<Growth> growth;
    Series series;      // live bytes at the end of each bucket
    Series mark_series; // live bytes per mark bucket (marked programs)
    FrameList frames;   // innermost first
    // A Python site (`python_sites`): the "id"s of its native sub-sites,
    // its frames the Python stack. Empty for a native site.
    std::vector<std::int64_t> sub_sites;
    // The small fields last, together, and 32-bit where that is enough: a
    // million sites are a big report's model (3x the file at most).
    std::optional<std::int32_t> device;
    // A merged report's sites (memgrow-report merge) name their process:
    // `pid` and the index into Report::processes.
    std::optional<std::int32_t> pid, process;
    SiteClass cls = SiteClass::stable;
    bool suppressed = false;
    bool python = false; // a Python site
    // Who holds its memory: an index into its report's `held_by` lists
    // (report_held_by), kNoHolders for most sites; 4 bytes that fit the
    // padding, where a list of its own took 16 more.
    static constexpr std::uint32_t kNoHolders = 0xffffffffu;
    std::uint32_t held_by = kNoHolders;
};

// Sites a report folds instead of listing (docs/output-format.md, "What the
// report lists"): those of one Python site, or those one frame names,
// their counts summed.
struct Folded {
    FrameList frames; // the Python site's Python frames, or the frame that names them
    std::optional<std::int64_t> python_site; // the listed Python site they belong to
    std::int64_t sites = 0, live_bytes = 0, live_blocks = 0, peak_bytes = 0;
    std::int64_t allocated_bytes = 0, allocated_blocks = 0, at_exit_bytes = 0, at_exit_blocks = 0;
    std::optional<std::int32_t> pid, process; // a merged report's, as a site's
};

struct SpaceBucket {
    std::string space; // host, device, managed, pinned, mapped
    std::int64_t live_bytes = 0, allocated_bytes = 0, freed_bytes = 0;
};

struct Bucket {
    std::int64_t end = 0, live_bytes = 0, allocated_bytes = 0, freed_bytes = 0;
    std::vector<SpaceBucket> spaces; // `buckets[i].spaces`, by space name
};

struct Marks {
    std::int64_t count = 0, first_at = 0, per_bucket = 1;
};

struct ByteCount {
    std::int64_t bytes = 0, blocks = 0;
};

struct LeakCheck {
    std::string mode;
    std::int64_t scans = 0;
    ByteCount definite, indirect, possible, reachable, suppressed;
};

struct Error {
    std::string kind;
    std::int64_t count = 0;
    std::vector<Frame> frames;
    // memcheck's first line and, where the tool has one, its description of
    // the address (both empty in reports that predate them).
    std::string message, description, address;
    std::optional<std::int64_t> process; // a merged report's: index into Report::processes
};

// A forked child's copy-on-write (`fork`, docs/pages.md): what its first
// writes to inherited pages copied, and what those pages held.
struct ForkCopy {
    std::int64_t parent_pid = 0, inherited_bytes = 0, copied_bytes = 0;
    // (site id, bytes) and (region, bytes), largest first as written; in a
    // merged report the ids are the merged sites'.
    std::vector<std::pair<std::int64_t, std::int64_t>> sites;
    std::vector<std::pair<std::string, std::int64_t>> regions;
};

// What a dashboard sees of a process (`pages`, docs/pages.md): per bucket,
// the heap's and the mapped space's live bytes and the client's resident
// bytes; at teardown, the resident bytes then.
struct Pages {
    std::vector<std::int64_t> heap, mapped, resident;
    std::optional<std::int64_t> teardown_resident;
};

// A device allocator that announces its blocks through probes
// (`device_memory`, docs/cuda.md): per device, its blocks' bytes
// (`allocated`) and its segments' (`reserved`), now, per bucket and at the
// end of each complete mark bucket.
struct DeviceMemory {
    std::int64_t device = 0, allocated_bytes = 0, reserved_bytes = 0;
    std::vector<std::int64_t> allocated, reserved, mark_allocated, mark_reserved;
};

// One process of a merged report (`processes[i]`, memgrow-report merge).
struct Process {
    std::int64_t pid = 0, ppid = 0;
    std::vector<std::string> command;
    std::string time_unit, teardown;
    std::optional<ForkCopy> fork;
};

// The projection to a memory limit (`projection`, docs/live.md): only when
// one is known (--limit, or the cgroup's).
struct Projection {
    std::int64_t limit_bytes = 0;
    std::string limit_source; // option, cgroup
    std::optional<double> clock_to_limit, marks_to_limit, hours_to_limit;
};

struct Report {
    std::string path; // the file it was loaded from, for messages
    int version = 0;
    std::vector<std::string> command;
    std::int64_t pid = 0, ppid = 0;
    std::string time_unit; // B, i, ms
    std::int64_t bucket_width = 0, warmup_end = 0, teardown_at = 0;
    std::string teardown;
    Marks marks;
    std::vector<Bucket> buckets;
    std::optional<LeakCheck> leak_check;
    std::optional<Projection> projection;
    std::vector<Site> sites;
    std::vector<Site> python_sites; // the Python sites (a process with Python frames)
    std::vector<Folded> folded;     // what the report folds (empty: it lists every site)
    std::vector<Error> errors;
    std::vector<Process> processes; // a merged report's processes; empty otherwise
    std::optional<ForkCopy> fork;   // a forked child's
    std::optional<Pages> pages;
    std::vector<DeviceMemory> device_memory; // by device, as the tool lists them
    std::vector<Holder> holders;             // `holders`, as the tool orders them
    // The sites' `held_by` lists, largest holder first (Site::held_by).
    std::vector<std::vector<HeldBy>> held_by;
};

// Who holds site `s`'s memory: its `held_by` list in report `r`, empty when
// it has none.
inline const std::vector<HeldBy>& held_by(const Report& r, const Site& s) {
    static const std::vector<HeldBy> none;
    return s.held_by < r.held_by.size() ? r.held_by[s.held_by] : none;
}

} // namespace mg::report
