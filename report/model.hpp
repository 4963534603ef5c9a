// A memgrow JSON report (docs/output-format.md, format version 1) loaded into
// plain structs: what every memgrow-report command reads (show and diff now;
// merge, html and the CI formats later), so none of them touches JSON.
#pragma once

#include "../core/classify.hpp"

#include <cstdint>
#include <optional>
#include <string>
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
    std::int64_t staircase_steps = 0;         // a resize staircase's steps (0: none)
    std::optional<std::int64_t> next_step_at; // when its next step is due (or was, overdue)
};

struct Lost {
    std::int64_t definite = 0, indirect = 0, possible = 0;
};

struct Site {
    std::int64_t id = 0;
    std::string space; // host, device, managed, pinned
    std::optional<std::int64_t> device;
    SiteClass cls = SiteClass::stable;
    std::int64_t live_bytes = 0, live_blocks = 0, peak_bytes = 0;
    std::int64_t allocated_bytes = 0, allocated_blocks = 0;
    std::int64_t at_exit_bytes = 0, at_exit_blocks = 0;
    bool suppressed = false;
    std::string suppression;
    std::optional<Lost> lost; // only with a leak scan
    Growth growth;
    std::vector<std::int64_t> series;      // live bytes at the end of each bucket
    std::vector<std::int64_t> mark_series; // live bytes per mark bucket (marked programs)
    std::vector<Frame> frames;             // innermost first
    // A merged report's sites (memgrow-report merge) name their process:
    // `pid` and the index into Report::processes.
    std::optional<std::int64_t> pid, process;
    // A Python site (`python_sites`): the "id"s of its native sub-sites,
    // its frames the Python stack. Empty for a native site.
    bool python = false;
    std::vector<std::int64_t> sub_sites;
};

struct SpaceBucket {
    std::string space; // host, device, managed, pinned
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
};

// One process of a merged report (`processes[i]`, memgrow-report merge).
struct Process {
    std::int64_t pid = 0, ppid = 0;
    std::vector<std::string> command;
    std::string time_unit, teardown;
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
    std::vector<Site> sites;
    std::vector<Site> python_sites; // the Python sites (a process with Python frames)
    std::vector<Error> errors;
    std::vector<Process> processes; // a merged report's processes; empty otherwise
};

} // namespace mg::report
