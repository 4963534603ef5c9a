// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report's merge, SARIF and JUnit stages: merging the three reports
// one run of tests/regress/fork_workers writes (a parent and two forked
// workers; tests/unit/reports/fork/, made by Makefile.am), the innermost-
// user-frame rule, and the SARIF and JUnit text on hand-made sites.
#define BOOST_TEST_MODULE report_merge
#include <boost/test/unit_test.hpp>

#include "tests/unit/read_file.hpp"

#include "report/diff.hpp"
#include "report/junit.hpp"
#include "report/load.hpp"
#include "report/text.hpp"
#include "report/locate.hpp"
#include "report/merge.hpp"
#include "report/sarif.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace mg::report;
using nlohmann::json;

namespace {

const std::string kFork = std::string(MG_TEST_REPORT_DIR) + "/fork";

std::vector<MergeInput> fork_inputs() {
    std::vector<MergeInput> out;
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(kFork))
        if (e.path().extension() == ".json") names.push_back(e.path().string());
    std::sort(names.begin(), names.end());
    for (const std::string& n : names)
        out.push_back({n, read(n)});
    BOOST_REQUIRE_EQUAL(out.size(), 3u);
    return out;
}

Frame frame(const char* function, const char* file, int line, const char* object) {
    Frame f;
    if (function) f.function = function;
    if (file) f.file = file;
    f.line = line;
    if (object) f.object = object;
    return f;
}

} // namespace

BOOST_AUTO_TEST_CASE(merge_keeps_every_process_and_sums_the_leaks) {
    auto inputs = fork_inputs();
    std::vector<Report> parts;
    std::size_t sites = 0;
    std::int64_t definite = 0, definite_blocks = 0, reachable = 0;
    for (const MergeInput& in : inputs) {
        parts.push_back(parse_report(in.text, in.file));
        sites += parts.back().sites.size();
        BOOST_REQUIRE(parts.back().leak_check);
        definite += parts.back().leak_check->definite.bytes;
        definite_blocks += parts.back().leak_check->definite.blocks;
        reachable += parts.back().leak_check->reachable.bytes;
    }
    json merged = merge_reports(inputs);
    Report m = parse_report(merged.dump(), "merged.json"); // still a format-1 report
    BOOST_TEST(m.version == 1);
    BOOST_REQUIRE_EQUAL(m.processes.size(), 3u);
    BOOST_TEST(m.sites.size() == sites);
    std::set<std::int64_t> pids;
    for (const Process& p : m.processes)
        pids.insert(p.pid);
    BOOST_TEST(pids.size() == 3u);
    // The parent (whose parent is not among them) comes first and is the top level.
    BOOST_TEST(pids.count(m.processes[0].ppid) == 0u);
    BOOST_TEST(m.processes[1].ppid == m.processes[0].pid);
    BOOST_TEST(m.processes[2].ppid == m.processes[0].pid);
    BOOST_TEST(m.pid == m.processes[0].pid);
    // Every site names its process, and its pid is that process's.
    std::vector<std::size_t> per_process(3, 0);
    for (std::size_t i = 0; i < m.sites.size(); ++i) {
        const Site& s = m.sites[i];
        BOOST_REQUIRE(s.process && s.pid);
        BOOST_TEST(s.id == static_cast<std::int64_t>(i));
        BOOST_TEST(*s.pid == m.processes[static_cast<std::size_t>(*s.process)].pid);
        ++per_process[static_cast<std::size_t>(*s.process)];
    }
    for (std::size_t p = 0; p < 3; ++p) {
        auto it = std::find_if(parts.begin(), parts.end(),
                               [&](const Report& r) { return r.pid == m.processes[p].pid; });
        BOOST_REQUIRE(it != parts.end());
        BOOST_TEST(per_process[p] == it->sites.size());
        BOOST_TEST(merged["processes"][p]["buckets"].size() == it->buckets.size());
    }
    BOOST_REQUIRE(m.leak_check);
    BOOST_TEST(m.leak_check->definite.bytes == definite);
    BOOST_TEST(m.leak_check->definite.blocks == definite_blocks);
    BOOST_TEST(m.leak_check->reachable.bytes == reachable);
    // Each worker overwrote the parent's 100 pointers of 64 bytes: a leak.
    BOOST_TEST(definite == 2 * 100 * 64);
}

BOOST_AUTO_TEST_CASE(merged_reports_merge_again_and_diff_across_pids) {
    auto inputs = fork_inputs();
    json merged = merge_reports(inputs);
    // Merging a merged report with nothing else keeps it as it is.
    json again = merge_reports({{"merged.json", merged.dump()}});
    BOOST_TEST(again["processes"].size() == 3u);
    BOOST_TEST(again["sites"] == merged["sites"]);
    // Diff keys carry no pid: a merged report diffs clean against itself
    // with its workers' pids changed.
    json renamed = merged;
    for (json& s : renamed["sites"])
        s["pid"] = s["pid"].get<std::int64_t>() + 1000;
    DiffResult d =
        diff_reports(parse_report(merged.dump(), "a"), parse_report(renamed.dump(), "b"));
    BOOST_TEST(d.added.empty());
    BOOST_TEST(d.gone.empty());
    BOOST_TEST(!d.failed());
}

BOOST_AUTO_TEST_CASE(merge_rejects_the_same_report_twice_and_names_a_bad_file) {
    auto inputs = fork_inputs();
    inputs.push_back(inputs[0]);
    inputs.back().file = "copy.json";
    try {
        merge_reports(inputs);
        BOOST_FAIL("no error");
    } catch (const LoadError& e) {
        BOOST_TEST(e.file == "copy.json");
    }
    try {
        merge_reports({inputs[0], {"broken.json", "{\"memgrow\": 1, "}});
        BOOST_FAIL("no error");
    } catch (const LoadError& e) {
        BOOST_TEST(e.file == "broken.json");
    }
}

// Issue 32: the same bytes twice are refused before any parse (an 84 MB
// report took 15 s and 2.4 GB): even a broken report given twice is named
// as given twice, not parsed.
BOOST_AUTO_TEST_CASE(the_same_bytes_twice_are_refused_before_parsing) {
    const std::string broken = "{\"memgrow\": 1, \"pid\": ";
    try {
        merge_reports({{"a.json", broken}, {"other.json", "{}"}, {"b.json", broken}});
        BOOST_FAIL("no error");
    } catch (const LoadError& e) {
        BOOST_TEST(e.file == "b.json");
        BOOST_TEST(e.message == "the same report given twice: its bytes are those of a.json",
                   e.message);
    }
}

BOOST_AUTO_TEST_CASE(innermost_user_frame_skips_system_and_unknown_frames) {
    Site s;
    s.frames = {
        frame("malloc", nullptr, 0, "/usr/lib/valgrind/vgpreload_memgrow-amd64-linux.so"),
        frame("operator new", "new_op.cc", 50, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
        frame("std::vector::push", "/usr/include/c++/12/bits/vector.tcc", 10, "/home/u/prog"),
        frame("strdup", "strdup.c", 42, "/opt/glibc/lib/libc.so.6"),
        frame("<module>", "<frozen importlib._bootstrap>", 3, nullptr),
        frame("remember", "src/app.c", 24, "/home/u/prog"),
        frame("main", "src/app.c", 59, "/home/u/prog")};
    auto at = locate_site(s);
    BOOST_REQUIRE(at);
    BOOST_TEST(at->frame == 5u);
    BOOST_TEST(at->user);
    BOOST_TEST(is_system_object("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));
    BOOST_TEST(is_system_object("libpython3.11.so.1.0"));
    BOOST_TEST(!is_system_object("/home/u/libmine.so"));
    // A Python frame of the user's script counts; the standard library does not.
    Frame py = frame("main", "/home/u/train.py", 7, nullptr);
    py.python = true;
    BOOST_TEST(is_user_frame(py));
    BOOST_TEST(!is_user_frame(frame("get", "/usr/lib/python3.11/queue.py", 9, nullptr)));
    // No user frame: the innermost one with a file; none with a file: nothing.
    Site sys;
    sys.frames = {frame("malloc", nullptr, 0, "/lib/libc.so.6"),
                  frame("operator new", "new_op.cc", 50, "/usr/lib/libstdc++.so.6")};
    at = locate_site(sys);
    BOOST_REQUIRE(at);
    BOOST_TEST(at->frame == 1u);
    BOOST_TEST(!at->user);
    sys.frames.pop_back();
    BOOST_TEST(!locate_site(sys));
}

BOOST_AUTO_TEST_CASE(sarif_results_locations_and_source_root) {
    Report r;
    r.path = "r.json";
    r.pid = 7;
    r.time_unit = "B";
    Site leaked;
    leaked.cls = SiteClass::leaked;
    leaked.space = "host";
    leaked.live_bytes = 100;
    leaked.lost = Lost{100, 0, 0};
    leaked.frames = {frame("malloc", nullptr, 0, "/lib/libc.so.6"),
                     frame("lose", "/src/proj/a b.c", 12, "/src/proj/prog"),
                     frame("main", "/src/proj/main.c", 3, "/src/proj/prog")};
    Site growing = leaked;
    growing.cls = SiteClass::growing;
    growing.lost.reset();
    growing.frames = {frame("grow", "lib/g.c", 5, "/src/proj/prog")};
    Site hidden = growing;
    hidden.suppressed = true;
    Site stable = growing;
    stable.cls = SiteClass::stable;
    r.sites = {leaked, growing, hidden, stable};
    json log = sarif_log({r}, {"/src/proj", "1.0"});
    BOOST_TEST(log["version"] == "2.1.0");
    const json& results = log["runs"][0]["results"];
    BOOST_REQUIRE_EQUAL(results.size(), 2u);
    BOOST_TEST(results[0]["ruleId"] == "memgrow/leaked");
    BOOST_TEST(results[0]["level"] == "error");
    const json& loc = results[0]["locations"][0]["physicalLocation"];
    BOOST_TEST(loc["artifactLocation"]["uri"] == "a%20b.c");
    BOOST_TEST(loc["artifactLocation"]["uriBaseId"] == "SRCROOT");
    BOOST_TEST(loc["region"]["startLine"] == 12);
    BOOST_TEST(results[0]["relatedLocations"].size() == 1u); // main; malloc has no file
    BOOST_TEST(results[1]["ruleId"] == "memgrow/growing");
    BOOST_TEST(results[1]["level"] == "warning");
    BOOST_TEST(results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
               "lib/g.c");
    BOOST_TEST(log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] == "file:///src/proj/");
    // Without a source root the paths stay as the report has them.
    json plain = sarif_log({r}, {});
    BOOST_TEST(plain["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
                    ["artifactLocation"]["uri"] == "/src/proj/a%20b.c");
    BOOST_TEST(!plain["runs"][0].contains("originalUriBaseIds"));
}

BOOST_AUTO_TEST_CASE(junit_counts_and_escaping) {
    Report r;
    r.path = "r&<.json";
    r.pid = 9;
    r.command = {"./prog", "--x=\"1\""};
    Site bad;
    bad.cls = SiteClass::leaked;
    bad.space = "host";
    bad.frames = {frame("f<int>", "a.c", 1, "/p/prog")};
    Site hidden = bad;
    hidden.suppressed = true;
    hidden.suppression = "known";
    r.sites = {bad, hidden};
    std::string xml = junit_xml({r});
    BOOST_TEST(xml.find("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\"") !=
               std::string::npos);
    BOOST_TEST(xml.find("f&lt;int&gt;") != std::string::npos);
    BOOST_TEST(xml.find("r&amp;&lt;.json") != std::string::npos);
    BOOST_TEST(xml.find("--x=&quot;1&quot;") != std::string::npos);
    BOOST_TEST(xml.find("f<int>") == std::string::npos);
    // Nothing failing: one passing testcase.
    r.sites = {};
    xml = junit_xml({r});
    BOOST_TEST(xml.find("tests=\"1\" failures=\"0\"") != std::string::npos);
    BOOST_TEST(xml.find("no leaked or growing sites") != std::string::npos);
    BOOST_TEST(markup_escape(std::string("a\x01"
                                         "b")) == "a\xef\xbf\xbd"
                                                  "b");
}
