// SPDX-License-Identifier: GPL-2.0-or-later
// SARIF 2.1.0 output (report/sarif.hpp).
#include "report/sarif.hpp"

#include "report/errors_view.hpp"
#include "report/locate.hpp"
#include "report/site_key.hpp"

#include <cctype>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

namespace mg::report {

namespace {

using nlohmann::json;

constexpr const char* kSchema = "https://json.schemastore.org/sarif-2.1.0.json";

bool is_absolute(const std::string& p) {
    return !p.empty() && p[0] == '/';
}

// The source root as an absolute path without a trailing slash.
std::string normal_root(const std::string& root) {
    std::string r = std::filesystem::absolute(root).lexically_normal().string();
    while (r.size() > 1 && r.back() == '/')
        r.pop_back();
    return r;
}

json artifact_location(const std::string& file, const std::string& root) {
    if (root.empty()) return {{"uri", uri_encode(file)}};
    if (!is_absolute(file)) return {{"uri", uri_encode(file)}, {"uriBaseId", "SRCROOT"}};
    if (file.size() > root.size() + 1 && file.compare(0, root.size(), root) == 0 &&
        file[root.size()] == '/')
        return {{"uri", uri_encode(file.substr(root.size() + 1))}, {"uriBaseId", "SRCROOT"}};
    return {{"uri", "file://" + uri_encode(file)}};
}

json physical_location(const Frame& f, const std::string& root) {
    json loc = {{"artifactLocation", artifact_location(*f.file, root)}};
    if (f.line && *f.line >= 1) loc["region"] = {{"startLine", *f.line}};
    return loc;
}

json rule(const char* id, const char* name, const char* short_text, const char* full_text,
          const char* level) {
    return {{"id", id},
            {"name", name},
            {"shortDescription", {{"text", short_text}}},
            {"fullDescription", {{"text", full_text}}},
            {"defaultConfiguration", {{"level", level}}}};
}

json stack_locations(const std::vector<Frame>& frames, std::optional<std::size_t> at,
                     const std::string& root) {
    json related = json::array();
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const Frame& f = frames[i];
        if ((at && i == *at) || !f.file || f.file->empty()) continue;
        related.push_back(
            {{"id", static_cast<std::int64_t>(i)},
             {"physicalLocation", physical_location(f, root)},
             {"message", {{"text", fmt::format("frame {}: {}", i, frame_label(f))}}}});
    }
    return related;
}

// Each error of errors[] (every report) is a result whose rule is its kind
// (InvalidFree, Addr4, ...), located at its innermost user frame, in
// memcheck's words; a rule per kind present, appended to `rules`.
void add_error_results(const std::vector<Report>& reports, const std::string& root, json& rules,
                       json& results) {
    for (const Report& r : reports) {
        for (const Error& e : r.errors) {
            std::size_t index = 0;
            while (index < rules.size() && rules[index]["id"] != e.kind)
                ++index;
            if (index == rules.size())
                rules.push_back(
                    {{"id", e.kind},
                     {"name", e.kind},
                     {"shortDescription", {{"text", e.kind + " (memcheck's error kind)"}}},
                     {"defaultConfiguration", {{"level", "error"}}}});
            json result = {{"ruleId", e.kind},
                           {"ruleIndex", index},
                           {"level", "error"},
                           {"message", {{"text", error_text(e)}}}};
            auto at = error_frame(e);
            json locations = json::array();
            if (at) {
                const Frame& f = e.frames[*at];
                json loc = {{"physicalLocation", physical_location(f, root)}};
                if (f.function)
                    loc["logicalLocations"] = {
                        {{"fullyQualifiedName", *f.function}, {"kind", "function"}}};
                locations.push_back(std::move(loc));
            }
            result["locations"] = std::move(locations);
            json related = stack_locations(e.frames, at, root);
            if (!related.empty()) result["relatedLocations"] = std::move(related);
            std::int64_t pid = e.process && *e.process >= 0 &&
                                       static_cast<std::size_t>(*e.process) < r.processes.size()
                                   ? r.processes[static_cast<std::size_t>(*e.process)].pid
                                   : r.pid;
            result["properties"] = {
                {"kind", e.kind},       {"count", e.count},
                {"address", e.address}, {"pid", pid},
                {"report", r.path},     {"user_frame", at && is_user_frame(e.frames[*at])}};
            results.push_back(std::move(result));
        }
    }
}

} // namespace

std::string uri_encode(const std::string& path) {
    std::string out;
    for (unsigned char c : path) {
        if (std::isalnum(c) || std::string_view("-._~/!$&'()*+,;=@:").find(static_cast<char>(c)) !=
                                   std::string_view::npos)
            out += static_cast<char>(c);
        else
            out += fmt::format("%{:02X}", c);
    }
    return out;
}

json sarif_log(const std::vector<Report>& reports, const SarifOptions& o) {
    std::string root = o.source_root.empty() ? std::string() : normal_root(o.source_root);
    json driver = {
        {"name", "memgrow"},
        {"informationUri", "https://valgrind.org/docs/manual/manual-core.html"},
        {"rules",
         {rule("memgrow/leaked", "Leaked", "Memory allocated here was leaked",
               "memgrow's leak scan found blocks allocated at this site definitely or "
               "indirectly lost when the process exited.",
               "error"),
          rule("memgrow/growing", "Growing", "Memory allocated here kept growing",
               "The live bytes of this allocation site rose steadily over the run (memgrow's "
               "trend or per-mark rule): memory that is kept and never released.",
               "warning")}}};
    if (!o.version.empty()) driver["version"] = o.version;

    json results = json::array();
    for (const Report& r : reports) {
        for (const Site* sp : leading_sites(r)) {
            const Site& s = *sp;
            if (!is_problem(s.cls) || s.suppressed) continue;
            bool leaked = s.cls == SiteClass::leaked;
            json result = {{"ruleId", leaked ? "memgrow/leaked" : "memgrow/growing"},
                           {"ruleIndex", leaked ? 0 : 1},
                           {"level", leaked ? "error" : "warning"}};
            auto at = locate_site(s);
            // Led by the site's name, as in show and the log.
            result["message"] = {
                {"text", fmt::format("{}: {}", s.python ? python_headline(r, s) : site_title(s),
                                     evidence_text(r, s))}};
            json locations = json::array();
            if (at) {
                const Frame& f = s.frames[at->frame];
                json loc = {{"physicalLocation", physical_location(f, root)}};
                if (f.function)
                    loc["logicalLocations"] = {
                        {{"fullyQualifiedName", *f.function}, {"kind", "function"}}};
                locations.push_back(std::move(loc));
            }
            result["locations"] = std::move(locations);
            // The rest of the stack, innermost first, as related locations.
            json related = stack_locations(
                s.frames, at ? std::optional<std::size_t>(at->frame) : std::nullopt, root);
            if (!related.empty()) result["relatedLocations"] = std::move(related);
            result["partialFingerprints"] = {{"memgrowSiteKey/v1", site_key(s)}};
            json props = {{"class", class_name(s.cls)},
                          {"space", s.space.str()},
                          {"pid", site_pid(r, s)},
                          {"live_bytes", s.live_bytes},
                          {"peak_bytes", s.peak_bytes},
                          {"growth_rate", s.growth->rate},
                          {"confidence", s.growth->confidence},
                          {"report", r.path},
                          {"user_frame", at && at->user},
                          {"python_site", s.python}};
            if (const std::vector<HeldBy>& holders = held_by(r, s); !holders.empty()) {
                json held = json::array();
                for (const HeldBy& h : holders)
                    held.push_back({{"path", h.path}, {"root", h.root}, {"bytes", h.bytes}});
                props["held_by"] = std::move(held);
            }
            if (s.lost)
                props["lost"] = {{"definite", s.lost->definite},
                                 {"indirect", s.lost->indirect},
                                 {"possible", s.lost->possible}};
            result["properties"] = std::move(props);
            results.push_back(std::move(result));
        }
    }
    add_error_results(reports, root, driver["rules"], results);
    json run = {{"tool", {{"driver", std::move(driver)}}},
                {"columnKind", "utf16CodeUnits"},
                {"results", std::move(results)}};
    if (!root.empty())
        run["originalUriBaseIds"] = {{"SRCROOT", {{"uri", "file://" + uri_encode(root) + "/"}}}};
    return {{"$schema", kSchema}, {"version", "2.1.0"}, {"runs", json::array({std::move(run)})}};
}

} // namespace mg::report
