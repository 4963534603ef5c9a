// SPDX-License-Identifier: GPL-2.0-or-later
// Merging reports of several processes (report/merge.hpp).
#include "report/merge.hpp"

#include "report/expand.hpp"
#include "report/json_depth.hpp"
#include "report/load.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

namespace mg::report {

namespace {

using nlohmann::json;

// The top-level fields that describe one process and its clock.
const char* const kProcessFields[] = {
    "pid",      "ppid",  "command", "time_unit",  "bucket_width", "warmup_end", "teardown_at",
    "teardown", "marks", "buckets", "leak_check", "fork",         "pages",      "device_memory"};

struct Proc {
    json info;                      // what goes to processes[i]
    std::vector<json> sites;        // its sites, as written
    std::vector<json> python_sites; // its Python sites, as written
    std::vector<json> folded;       // its folded groups, as written
    std::vector<json> errors;       // its errors, as written
    std::string file;
    std::size_t order = 0; // position among all inputs' processes
    std::int64_t pid = 0, ppid = 0;
};

std::int64_t int_of(const json& obj, const char* key) {
    auto it = obj.find(key);
    return it != obj.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

// The processes of one input: itself, or those of a merged report.
void add_input(const MergeInput& in, std::vector<Proc>& out) {
    parse_report(in.text, in.file); // throws a LoadError that names the file
    // Format 2 merges in the format-1 layout the merged report is written in.
    json root = expand_document(parse_limited<json>(in.text));
    auto procs = root.find("processes");
    if (procs == root.end()) {
        Proc p;
        for (const char* key : kProcessFields)
            if (auto it = root.find(key); it != root.end()) p.info[key] = *it;
        p.info["report"] = in.file;
        p.sites = root["sites"].get<std::vector<json>>();
        if (auto py = root.find("python_sites"); py != root.end() && py->is_array())
            p.python_sites = py->get<std::vector<json>>();
        if (auto e = root.find("errors"); e != root.end() && e->is_array())
            p.errors = e->get<std::vector<json>>();
        if (auto f = root.find("folded"); f != root.end() && f->is_array())
            p.folded = f->get<std::vector<json>>();
        p.file = in.file;
        p.pid = int_of(root, "pid");
        p.ppid = int_of(root, "ppid");
        out.push_back(std::move(p));
        return;
    }
    // A merged report: its sites and errors already name their process
    // (the loader checked the indices of the sites).
    std::size_t first = out.size();
    for (const json& info : *procs) {
        Proc p;
        p.info = info;
        p.info.erase("process");
        p.info.erase("sites");
        p.file = in.file;
        p.pid = int_of(info, "pid");
        p.ppid = int_of(info, "ppid");
        out.push_back(std::move(p));
    }
    auto owner = [&](const json& item, const std::string& where) -> Proc& {
        std::int64_t i = int_of(item, "process");
        if (!item.contains("process") || i < 0 || static_cast<std::size_t>(i) >= procs->size())
            throw LoadError(in.file, "a merged report's entry names no valid \"process\"", where);
        return out[first + static_cast<std::size_t>(i)];
    };
    const json& sites = root["sites"];
    for (std::size_t i = 0; i < sites.size(); ++i)
        owner(sites[i], "/sites/" + std::to_string(i)).sites.push_back(sites[i]);
    if (auto py = root.find("python_sites"); py != root.end() && py->is_array())
        for (std::size_t i = 0; i < py->size(); ++i)
            owner((*py)[i], "/python_sites/" + std::to_string(i)).python_sites.push_back((*py)[i]);
    if (auto e = root.find("errors"); e != root.end() && e->is_array())
        for (std::size_t i = 0; i < e->size(); ++i)
            owner((*e)[i], "/errors/" + std::to_string(i)).errors.push_back((*e)[i]);
    if (auto f = root.find("folded"); f != root.end() && f->is_array())
        for (std::size_t i = 0; i < f->size(); ++i)
            owner((*f)[i], "/folded/" + std::to_string(i)).folded.push_back((*f)[i]);
}

// Parents before children: the depth of each process in the tree its pids
// and ppids make (0 when its parent is not among the inputs).
std::vector<std::size_t> depths(const std::vector<Proc>& procs) {
    std::map<std::int64_t, std::size_t> by_pid;
    for (std::size_t i = 0; i < procs.size(); ++i)
        by_pid.emplace(procs[i].pid, i);
    std::vector<std::size_t> out(procs.size(), 0);
    for (std::size_t i = 0; i < procs.size(); ++i) {
        std::size_t at = i, depth = 0;
        // Bounded: a pid reused within the inputs could make a cycle.
        while (depth < procs.size()) {
            auto parent = by_pid.find(procs[at].ppid);
            if (parent == by_pid.end() || parent->second == at) break;
            at = parent->second;
            ++depth;
        }
        out[i] = depth;
    }
    return out;
}

// Counts from untrusted inputs: a sum that would overflow stays at the
// largest value instead (a wrapped total would be a lie, and UB).
std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

void add_count(json& sum, const json& lc, const char* key) {
    auto it = lc.find(key);
    if (it == lc.end() || !it->is_object()) return;
    json& s = sum[key];
    if (!s.is_object()) s = json::object();
    for (const char* field : {"bytes", "blocks"})
        s[field] = saturating_add(s.value(field, std::int64_t{0}), int_of(*it, field));
}

} // namespace

json merge_reports(const std::vector<MergeInput>& inputs) {
    // The same report given twice (a name repeated, a copy) is refused before
    // anything is parsed: the process check below found it only after the
    // parse, 15 s and 2.4 GB into an 84 MB report.
    std::unordered_map<std::size_t, std::size_t> by_hash; // of the bytes -> first input
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        auto [first, fresh] = by_hash.emplace(std::hash<std::string>{}(inputs[i].text), i);
        if (!fresh && inputs[first->second].text == inputs[i].text)
            throw LoadError(inputs[i].file,
                            fmt::format("the same report given twice: its bytes are those of {}",
                                        inputs[first->second].file));
    }
    std::vector<Proc> procs;
    for (const MergeInput& in : inputs)
        add_input(in, procs);
    if (procs.empty()) throw std::invalid_argument("nothing to merge");
    for (std::size_t i = 0; i < procs.size(); ++i) {
        procs[i].order = i;
        for (std::size_t j = 0; j < i; ++j)
            if (procs[j].pid == procs[i].pid && procs[j].ppid == procs[i].ppid &&
                procs[j].info.value("teardown_at", json()) ==
                    procs[i].info.value("teardown_at", json()) &&
                procs[j].info.value("command", json()) == procs[i].info.value("command", json()))
                throw LoadError(procs[i].file,
                                fmt::format("process {} is already in the merge (from {}): the "
                                            "same report given twice?",
                                            procs[i].pid, procs[j].file));
    }
    std::vector<std::size_t> depth = depths(procs);
    std::vector<std::size_t> order(procs.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return depth[a] < depth[b]; });

    json out = json::object();
    out["memgrow"] = 1;
    // The top level describes the first process (the root of the tree): its
    // command, pid, clock and buckets, so that show and diff read it as ever.
    const Proc& root = procs[order.front()];
    for (const char* key : kProcessFields)
        if (std::string(key) != "leak_check" && std::string(key) != "fork")
            if (auto it = root.info.find(key); it != root.info.end()) out[key] = *it;
    out["merged"] = true;
    json processes = json::array(), sites = json::array(), errors = json::array();
    json python_sites = json::array(), folded = json::array();
    json leak = json::object();
    std::size_t scanned = 0;
    std::string mode;
    for (std::size_t n = 0; n < order.size(); ++n) {
        Proc& p = procs[order[n]];
        json info = p.info;
        info["process"] = n;
        info["sites"] = p.sites.size();
        processes.push_back(std::move(info));
        std::map<std::int64_t, std::size_t> new_id; // its sites' ids, old to merged
        for (json& s : p.sites) {
            // The site's id in its own report (kept when merging a merged one).
            if (!s.contains("process_site")) s["process_site"] = s.value("id", json());
            new_id[int_of(s, "id")] = sites.size();
            s["id"] = sites.size();
            s["pid"] = p.pid;
            s["process"] = n;
            sites.push_back(std::move(s));
        }
        std::map<std::int64_t, std::size_t> new_py; // its Python sites' ids, old to merged
        // A forked child's copied pages name its sites: by their merged ids.
        if (auto f = processes.back().find("fork"); f != processes.back().end() && f->is_object())
            if (auto c = f->find("copied"); c != f->end() && c->is_array())
                for (json& share : *c)
                    if (auto id = share.find("site"); id != share.end() && id->is_number_integer())
                        if (auto m = new_id.find(id->get<std::int64_t>()); m != new_id.end())
                            *id = m->second;
        for (json& ps : p.python_sites) {
            new_py[int_of(ps, "id")] = python_sites.size();
            json subs = json::array();
            if (auto it = ps.find("sites"); it != ps.end() && it->is_array())
                for (const json& id : *it)
                    if (auto m = new_id.find(id.is_number_integer() ? id.get<std::int64_t>() : -1);
                        m != new_id.end())
                        subs.push_back(m->second);
            ps["sites"] = std::move(subs);
            ps["id"] = python_sites.size();
            ps["pid"] = p.pid;
            ps["process"] = n;
            python_sites.push_back(std::move(ps));
        }
        for (json& f : p.folded) {
            auto py = new_py.find(f.value("python_site", json()).is_number_integer()
                                      ? f["python_site"].get<std::int64_t>()
                                      : -1);
            f["python_site"] = py == new_py.end() ? json() : json(py->second);
            f["pid"] = p.pid;
            f["process"] = n;
            folded.push_back(std::move(f));
        }
        for (json& e : p.errors) {
            e["pid"] = p.pid;
            e["process"] = n;
            errors.push_back(std::move(e));
        }
        auto lc = p.info.find("leak_check");
        if (lc == p.info.end() || !lc->is_object()) continue;
        ++scanned;
        std::string m = lc->value("mode", std::string());
        mode = scanned == 1 || m == mode ? m : "mixed";
        for (const char* key : {"scans", "scanned_bytes"})
            leak[key] = saturating_add(leak.value(key, std::int64_t{0}), int_of(*lc, key));
        for (const char* key : {"definite", "indirect", "possible", "reachable", "suppressed"})
            add_count(leak, *lc, key);
    }
    if (scanned) {
        leak["mode"] = mode;
        leak["processes"] = scanned;
        out["leak_check"] = std::move(leak);
    }
    out["processes"] = std::move(processes);
    out["sites"] = std::move(sites);
    if (!python_sites.empty()) out["python_sites"] = std::move(python_sites);
    if (!folded.empty()) out["folded"] = std::move(folded);
    out["errors"] = std::move(errors);
    return out;
}

} // namespace mg::report
