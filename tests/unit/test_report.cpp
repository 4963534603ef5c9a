// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report's stages: loading (good, broken and foreign files), site
// keys and the diff rules, on hand-made reports and on reports the tool wrote
// earlier in this check (tests/unit/reports/, made by Makefile.am from two
// builds of tests/regress/gains_leak.c).
#define BOOST_TEST_MODULE report
#include <boost/test/unit_test.hpp>

#include "tests/unit/read_file.hpp"

#include "report/diff.hpp"
#include "report/expand.hpp"
#include "report/flame.hpp"
#include "report/gains.hpp"
#include "report/holders.hpp"
#include "report/load.hpp"
#include "report/show.hpp"
#include "report/site_key.hpp"
#include "report/text.hpp"
#include "report/verdict.hpp"

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

using namespace mg::report;
using nlohmann::json;

namespace {

const std::string kReports = MG_TEST_REPORT_DIR;
const std::string kSource = std::string(MG_TEST_DATA_DIR) + "/../../regress/gains_leak.c";

// The 1-based line of `marker` in a source file.
int line_of(const std::string& path, const std::string& marker) {
    std::istringstream in(read(path));
    std::string text;
    for (int n = 1; std::getline(in, text); ++n)
        if (text.find(marker) != std::string::npos) return n;
    BOOST_FAIL(marker << " not in " << path);
    return 0;
}

json frame(const std::string& function, int line, const std::string& ip,
           const std::string& object = "/build/a/prog") {
    return {{"function", function}, {"file", "src/prog.c"}, {"line", line},
            {"object", object},     {"python", false},      {"ip", ip}};
}

json site(const std::string& cls, std::int64_t live, json frames, bool suppressed = false,
          const std::string& space = "host") {
    return {{"id", 0},
            {"space", space},
            {"class", cls},
            {"live_bytes", live},
            {"live_blocks", 1},
            {"peak_bytes", live},
            {"allocated_bytes", live},
            {"allocated_blocks", 1},
            {"at_exit_bytes", live},
            {"at_exit_blocks", 1},
            {"suppressed", suppressed},
            {"growth",
             {{"class", cls == "leaked" ? "stable" : cls},
              {"rule", "none"},
              {"rate", 0},
              {"rate_per_bucket", 0},
              {"rate_per_mark", nullptr},
              {"confidence", 0}}},
            {"series", {0, live / 2, live}},
            {"frames", std::move(frames)}};
}

json report(json sites) {
    return {{"memgrow", 1},
            {"command", {"./prog"}},
            {"pid", 42},
            {"time_unit", "B"},
            {"teardown_at", 300},
            {"buckets", {{{"end", 100}}, {{"end", 200}}, {{"end", 300}}}},
            {"sites", std::move(sites)}};
}

// A report's text with format 2's "revision" first, as the tool writes it
// (the tables and rows are read with it; nlohmann's json orders keys by name).
std::string text_of(json j) {
    auto it = j.find("revision");
    if (it == j.end()) return j.dump();
    std::string revision = it->dump();
    j.erase("revision");
    std::string rest = j.dump();
    return "{\"revision\":" + revision + (rest == "{}" ? "}" : "," + rest.substr(1));
}

Report parse(const json& j, const std::string& name = "test.json") {
    return parse_report(text_of(j), name);
}

// The LoadError that parsing `text` throws (fails the test if none).
LoadError load_error(const std::string& text, const std::string& name = "bad.json") {
    try {
        parse_report(text, name);
    } catch (const LoadError& e) {
        return e;
    }
    BOOST_FAIL("no LoadError for " << text.substr(0, 60));
    throw;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

const json kX = {frame("grow", 10, "0x1000"), frame("main", 30, "0x2000")};
const json kY = {frame("lose", 20, "0x1100"), frame("main", 31, "0x2100")};

} // namespace

// --- loading ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(loads_a_minimal_report) {
    Report r = parse(report({site("growing", 1000, kX)}));
    BOOST_TEST(r.version == 1);
    BOOST_TEST(r.pid == 42);
    BOOST_TEST(r.buckets.size() == 3u);
    BOOST_REQUIRE(r.sites.size() == 1u);
    BOOST_TEST(class_name(r.sites[0].cls) == "growing");
    BOOST_TEST(r.sites[0].frames.size() == 2u);
    BOOST_TEST(*r.sites[0].frames[0].function == "grow");
    BOOST_TEST(*r.sites[0].frames[0].line == 10);
}

// A device allocator's blocks and reserve (docs/cuda.md, "The reserve").
BOOST_AUTO_TEST_CASE(loads_device_memory) {
    json j = report({site("growing", 1000, kX)});
    j["device_memory"] = {{{"device", 1},
                           {"allocated_bytes", 512},
                           {"reserved_bytes", 2097152},
                           {"allocated", {0, 1024, 512}},
                           {"reserved", {2097152, 2097152, 2097152}},
                           {"mark_allocated", {1024}},
                           {"mark_reserved", {2097152}}}};
    Report r = parse(j);
    BOOST_REQUIRE(r.device_memory.size() == 1u);
    const DeviceMemory& d = r.device_memory[0];
    BOOST_TEST(d.device == 1);
    BOOST_TEST(d.reserved_bytes == 2097152);
    BOOST_TEST(d.allocated == (std::vector<std::int64_t>{0, 1024, 512}),
               boost::test_tools::per_element());
    BOOST_TEST(d.mark_reserved.size() == 1u);
    BOOST_TEST(parse(report({site("growing", 1000, kX)})).device_memory.empty());
    j["device_memory"][0]["reserved"] = {1, 2};
    BOOST_TEST(contains(load_error(text_of(j)).what(), "/device_memory/0/reserved"));
}

BOOST_AUTO_TEST_CASE(unknown_fields_and_null_frame_fields_are_accepted) {
    json j = report({site("stable", 8,
                          {{{"function", nullptr},
                            {"file", nullptr},
                            {"line", nullptr},
                            {"object", nullptr},
                            {"ip", "0x1"},
                            {"later_field", {1, 2}}}})});
    j["a_field_from_the_future"] = {{"x", 1}};
    j["sites"][0]["another"] = "yes";
    Report r = parse(j);
    BOOST_TEST(!r.sites[0].frames[0].function.has_value());
    BOOST_TEST(!r.sites[0].frames[0].line.has_value());
}

BOOST_AUTO_TEST_CASE(a_report_the_tool_wrote_loads) {
    Report r = load_report(kReports + "/base.json");
    BOOST_TEST(r.version == 2); // the default format
    BOOST_TEST(!r.sites.empty());
    BOOST_TEST(r.leak_check.has_value());
    BOOST_TEST(r.sites[0].series.size() == r.buckets.size());
    BOOST_TEST(r.sites[0].frames.in_tree());
    // The same run in format 1 (another process: another pid) loads to the
    // same sites.
    Report v1 = load_report(kReports + "/v1/base.json");
    BOOST_TEST(v1.version == 1);
    BOOST_REQUIRE(v1.sites.size() == r.sites.size());
    for (std::size_t i = 0; i < r.sites.size(); ++i) {
        BOOST_TEST(site_key(v1.sites[i]) == site_key(r.sites[i]));
        BOOST_TEST(v1.sites[i].series.dense() == r.sites[i].series.dense());
        BOOST_TEST((v1.sites[i].cls == r.sites[i].cls));
        BOOST_TEST(v1.sites[i].growth->rule == r.sites[i].growth->rule);
        BOOST_TEST(v1.sites[i].lost.has_value() == r.sites[i].lost.has_value());
        BOOST_TEST(v1.sites[i].frames.size() == r.sites[i].frames.size());
        if (!r.sites[i].frames.empty())
            BOOST_TEST(v1.sites[i].frames[0].ip == r.sites[i].frames[0].ip);
    }
}

BOOST_AUTO_TEST_CASE(a_truncated_report_names_the_file_and_position) {
    std::string text = read(kReports + "/base.json");
    std::string cut = text.substr(0, text.size() / 2);
    LoadError e = load_error(cut, "cut.json");
    BOOST_TEST(e.file == "cut.json");
    BOOST_REQUIRE(e.byte.has_value());
    BOOST_TEST(*e.byte <= cut.size());
    BOOST_TEST(e.line >= 1u);
    BOOST_TEST(contains(e.message, "truncated"), e.message);
    BOOST_TEST(contains(e.what(), "cut.json:"), e.what());
}

BOOST_AUTO_TEST_CASE(malformed_json_gives_line_and_column) {
    LoadError e = load_error("{\"memgrow\": 1,\n  \"sites\": [}\n");
    BOOST_REQUIRE(e.byte.has_value());
    BOOST_TEST(e.line == 2u);
    BOOST_TEST(e.column == 13u);
    BOOST_TEST(contains(e.what(), "bad.json:2:13:"), e.what());
}

BOOST_AUTO_TEST_CASE(an_unknown_version_is_named) {
    LoadError e = load_error(R"({"memgrow": 3})");
    BOOST_TEST(contains(e.message, "version 3"), e.message);
    e = load_error(R"({"memgrow": "1"})");
    BOOST_TEST(contains(e.message, "not an integer"), e.message);
}

BOOST_AUTO_TEST_CASE(json_that_is_not_a_report_is_refused) {
    for (const char* text : {"{}", "[1, 2]", "\"memgrow\"", "null", R"({"name": "x"})"}) {
        LoadError e = load_error(text);
        BOOST_TEST(contains(e.message, "not a memgrow report"), text << ": " << e.message);
    }
}

BOOST_AUTO_TEST_CASE(non_json_files_are_refused) {
    LoadError png = load_error(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16), "p.png");
    BOOST_TEST(contains(png.what(), "p.png"));
    BOOST_TEST(contains(png.message, "not valid JSON"), png.message);
    BOOST_TEST(!contains(png.message, "\x89")); // raw bytes are escaped
    LoadError empty = load_error("");
    BOOST_TEST(contains(empty.message, "empty"), empty.message);
    // Deep nesting must not overflow the stack.
    load_error(std::string(200000, '['));
}

BOOST_AUTO_TEST_CASE(a_field_of_the_wrong_type_is_located) {
    json j = report({site("stable", 8, kX)});
    j["sites"][0]["live_bytes"] = "8";
    LoadError e = load_error(j.dump());
    BOOST_TEST(e.pointer == "/sites/0/live_bytes");
    BOOST_TEST(contains(e.message, "expected an integer, found a string"), e.message);
    j = report({site("stable", 8, kX)});
    j["sites"][0]["frames"][1]["line"] = 3.5;
    BOOST_TEST(load_error(j.dump()).pointer == "/sites/0/frames/1/line");
    j = report({site("huge", 8, kX)});
    BOOST_TEST(contains(load_error(j.dump()).message, "unknown class \"huge\""));
    j = report({site("stable", 8, kX)});
    j["sites"][0].erase("series");
    e = load_error(j.dump());
    BOOST_TEST(e.pointer == "/sites/0");
    BOOST_TEST(contains(e.message, "\"series\" is missing"), e.message);
}

// Issue 32: a number beyond 64 bits is an integer out of range, not "a
// fractional number", wherever it stands.
BOOST_AUTO_TEST_CASE(an_integer_beyond_64_bits_is_out_of_range) {
    const std::string huge = "1180591620717411303424"; // 2^70
    std::string text = report({site("stable", 8, kX)}).dump();
    text.replace(text.find("\"pid\":42"), 8, "\"pid\":" + huge);
    LoadError e = load_error(text);
    BOOST_TEST(e.pointer == "/pid");
    BOOST_TEST(e.message == "integer out of range", e.message);
    text = report({site("stable", 8, kX)}).dump();
    text.replace(text.find("\"live_bytes\":8"), 14, "\"live_bytes\":-" + huge);
    BOOST_TEST(load_error(text).message == "integer out of range");
    // A fraction is still a fraction.
    json j = report({site("stable", 8, kX)});
    j["pid"] = 4.5;
    BOOST_TEST(contains(load_error(j.dump()).message, "found a fractional number"));
}

// Issue 32: an unknown field is skipped however deep it nests (a newer
// writer's), without being built; a known field that deep is an error there.
BOOST_AUTO_TEST_CASE(unknown_fields_are_skipped_at_any_depth) {
    std::string deep = "1";
    for (int i = 0; i < 40; ++i)
        deep = (i % 2 ? "[" : "{\"a\":") + deep + (i % 2 ? "]" : "}");
    json j = report({site("growing", 1000, kX)});
    std::string text = j.dump();
    text.insert(1, "\"from_the_future\":" + deep + ",");
    const std::string in_frame = "\"function\":\"grow\",";
    text.insert(text.find(in_frame) + in_frame.size(), "\"later\":" + deep + ",");
    Report r = parse_report(text, "deep.json");
    BOOST_TEST(r.sites.size() == 1u);
    BOOST_TEST(*r.sites[0].frames[0].function == "grow");
    // 200,000 levels of an unknown field: skipped, not built.
    std::string very = std::string(100000, '[') + std::string(100000, ']');
    text = j.dump();
    text.insert(1, "\"x\":" + very + ",");
    BOOST_TEST(parse_report(text, "very.json").sites.size() == 1u);
    // A known field whose value nests that deep is refused where it is.
    text = j.dump();
    text.replace(text.find("\"pid\":42"), 8, "\"pid\":" + deep);
    LoadError e = load_error(text);
    BOOST_TEST(e.pointer == "/pid");
    BOOST_TEST(e.message == "expected an integer, found an array", e.message);
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_named) {
    try {
        load_report("/nonexistent/memgrow.json");
        BOOST_FAIL("no error");
    } catch (const LoadError& e) {
        BOOST_TEST(e.file == "/nonexistent/memgrow.json");
        BOOST_TEST(contains(e.what(), "/nonexistent/memgrow.json: cannot open"), e.what());
    }
}

// --- site keys -------------------------------------------------------------

BOOST_AUTO_TEST_CASE(keys_ignore_addresses_and_directories) {
    Report a = parse(report({site("stable", 8, kX)}));
    json moved = {frame("grow", 10, "0x9990", "/other/build/prog"),
                  frame("main", 30, "0x9999", "/other/build/prog")};
    moved[0]["file"] = "/abs/path/src/prog.c";
    Report b = parse(report({site("stable", 8, moved)}));
    BOOST_TEST(site_key(a.sites[0]) == site_key(b.sites[0]));
    BOOST_TEST(site_key(a.sites[0]) == "host: grow (prog.c:10) <- main (prog.c:30)");
}

BOOST_AUTO_TEST_CASE(keys_differ_by_line_frame_and_space) {
    Report r = parse(report({
        site("stable", 8, kX),
        site("stable", 8, {frame("grow", 11, "0x1000"), frame("main", 30, "0x2000")}),
        site("stable", 8, {frame("grow", 10, "0x1000"), frame("main", 33, "0x2000")}),
        site("stable", 8, {frame("grow", 10, "0x1000")}),
        site("stable", 8, kX, false, "device"),
    }));
    std::set<SiteKey> keys;
    for (const Site& s : r.sites)
        keys.insert(site_key(s));
    BOOST_TEST(keys.size() == r.sites.size());
}

BOOST_AUTO_TEST_CASE(keys_match_across_two_builds_the_tool_ran) {
    Report base = load_report(kReports + "/base.json");
    Report next = load_report(kReports + "/new.json");
    auto before = index_sites(base), after = index_sites(next);
    bool moved = false;
    for (const auto& [key, k] : before) {
        BOOST_TEST(after.count(key) == 1u, "base site not in the new build: " << key);
        if (after.count(key) && !k.site->frames.empty() &&
            k.site->frames.back().ip != after.at(key).site->frames.back().ip)
            moved = true;
    }
    BOOST_TEST(moved, "the two builds' addresses should differ");
    // The one key the new build adds is its leak.
    std::string leak = "gains_leak.c:" + std::to_string(line_of(kSource, "LEAK_HERE"));
    std::vector<SiteKey> added;
    for (const auto& [key, k] : after)
        if (!before.count(key)) added.push_back(key);
    BOOST_REQUIRE(added.size() == 1u);
    BOOST_TEST(contains(added[0], "forget (" + leak + ")"), added[0]);
    BOOST_TEST(class_name(after.at(added[0]).cls) == "leaked");
}

// --- diff rules ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_new_leaked_site_fails) {
    Report base = parse(report({site("growing", 1000, kX)}));
    Report next = parse(report({site("growing", 1000, kX), site("leaked", 40, kY)}));
    DiffResult d = diff_reports(base, next);
    BOOST_TEST(d.added.size() == 1u);
    BOOST_TEST(d.gone.empty());
    BOOST_TEST(d.changed.empty());
    BOOST_REQUIRE(d.failures.size() == 1u);
    BOOST_TEST(contains(d.failures[0], "new leaked site lose (prog.c:20)"), d.failures[0]);
    // The other way round, the leak is gone: that passes.
    DiffResult back = diff_reports(next, base);
    BOOST_TEST(back.gone.size() == 1u);
    BOOST_TEST(!back.failed());
}

BOOST_AUTO_TEST_CASE(a_site_that_starts_growing_fails_one_that_stays_bad_passes) {
    Report stable = parse(report({site("stable", 1000, kX)}));
    Report growing = parse(report({site("growing", 1000, kX)}));
    Report leaked = parse(report({site("leaked", 1000, kX)}));
    Report plateau = parse(report({site("plateau", 1000, kX)}));
    DiffResult d = diff_reports(stable, growing);
    BOOST_TEST(d.changed.size() == 1u);
    BOOST_TEST(d.failed());
    BOOST_TEST(contains(d.failures.at(0), "(was stable)"), d.failures.at(0));
    BOOST_TEST(diff_reports(plateau, growing).failed());
    BOOST_TEST(!diff_reports(growing, leaked).failed());
    BOOST_TEST(!diff_reports(leaked, growing).failed());
    BOOST_TEST(!diff_reports(growing, plateau).failed());
    BOOST_TEST(!diff_reports(growing, growing).failed());
}

BOOST_AUTO_TEST_CASE(suppressed_sites_do_not_fail) {
    Report base = parse(report({site("stable", 8, kX)}));
    Report next = parse(report({site("stable", 8, kX), site("leaked", 40, kY, true)}));
    DiffResult d = diff_reports(base, next);
    BOOST_TEST(d.added.size() == 1u);
    BOOST_TEST(!d.failed());
    BOOST_TEST(d.new_problem_bytes == 0);
}

BOOST_AUTO_TEST_CASE(sites_with_one_key_merge) {
    // Two calls on one line: two sites in the report, one key.
    Report base = parse(report({site("growing", 100, kX)}));
    Report next = parse(report({site("growing", 100, kX), site("stable", 50, kX)}));
    auto idx = index_sites(next);
    BOOST_REQUIRE(idx.size() == 1u);
    BOOST_TEST(idx.begin()->second.live_bytes == 150);
    BOOST_TEST(idx.begin()->second.sites == 2u);
    BOOST_TEST(class_name(idx.begin()->second.gate) == "growing");
    BOOST_TEST(!diff_reports(base, next).failed());
}

BOOST_AUTO_TEST_CASE(the_budget_limits_growth_in_bytes_or_percent) {
    Report base = parse(report({site("growing", 1000, kX)}));
    Report next = parse(report({site("growing", 3000, kX)}));
    BOOST_TEST(!diff_reports(base, next).failed()); // no budget: only new problems fail
    BOOST_TEST(diff_reports(base, next, parse_budget("1K")).failed());
    BOOST_TEST(!diff_reports(base, next, parse_budget("2K")).failed());
    BOOST_TEST(diff_reports(base, next, parse_budget("100%")).failed());
    BOOST_TEST(!diff_reports(base, next, parse_budget("200%")).failed());
    DiffResult d = diff_reports(base, next, parse_budget("0"));
    BOOST_TEST(d.failures.size() == 2u); // the site and the total
    BOOST_TEST(contains(d.failures.back(), "1,000 -> 3,000 bytes (+2,000)"), d.failures.back());
    // Shrinking never fails.
    BOOST_TEST(!diff_reports(next, base, parse_budget("0")).failed());
}

BOOST_AUTO_TEST_CASE(budgets_parse) {
    BOOST_TEST(parse_budget("4096").value == 4096.0);
    BOOST_TEST(parse_budget("10M").value == 10.0 * 1024 * 1024);
    BOOST_TEST(parse_budget("64KiB").value == 64.0 * 1024);
    BOOST_TEST(parse_budget("1.5k").value == 1536.0);
    BOOST_TEST(parse_budget("1G").value == 1024.0 * 1024 * 1024);
    BOOST_TEST((parse_budget("5%").kind == Budget::Kind::percent));
    BOOST_TEST(parse_budget("5%").allowed(200) == 10.0);
    for (const char* bad : {"", "abc", "-1", "10X", "5%%", "inf", "nan", "0x10", "1T"})
        BOOST_CHECK_THROW(parse_budget(bad), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(diff_of_reports_the_tool_wrote) {
    Report base = load_report(kReports + "/base.json");
    Report base2 = load_report(kReports + "/base2.json");
    Report next = load_report(kReports + "/new.json");

    DiffResult same = diff_reports(base, base2);
    BOOST_TEST(same.added.empty());
    BOOST_TEST(same.gone.empty());
    BOOST_TEST(!same.failed());

    DiffResult d = diff_reports(base, next);
    BOOST_TEST(d.failed());
    std::string leak = "forget (gains_leak.c:" + std::to_string(line_of(kSource, "LEAK_HERE"));
    BOOST_REQUIRE(d.failures.size() == 1u);
    BOOST_TEST(contains(d.failures[0], "new leaked site " + leak), d.failures[0]);
    std::string text = print_diff(d, base, next, {});
    BOOST_TEST(contains(text, "result: FAIL"), text);
    // A format-1 baseline against a format-2 run gates the same way.
    Report old_base = load_report(kReports + "/v1/base.json");
    BOOST_TEST(!diff_reports(old_base, base2).failed());
    DiffResult mixed = diff_reports(old_base, next);
    BOOST_REQUIRE(mixed.failures.size() == 1u);
    BOOST_TEST(contains(mixed.failures[0], "new leaked site " + leak), mixed.failures[0]);
}

// --- text ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(numbers_and_sparklines) {
    BOOST_TEST(with_commas(0) == "0");
    BOOST_TEST(with_commas(1234567) == "1,234,567");
    BOOST_TEST(with_commas(-1000) == "-1,000");
    BOOST_TEST(with_commas(999, true) == "+999");
    BOOST_TEST(with_commas(INT64_MIN) == "-9,223,372,036,854,775,808");
    BOOST_TEST(sparkline({0, 1, 2, 3, 4, 5, 6, 7}, 8, false) == "▁▂▃▄▅▆▇█");
    BOOST_TEST(sparkline({0, 7}, 8, true) == "_#");
    BOOST_TEST(sparkline({0, 0, 0}, 8, false) == "▁▁▁");
    BOOST_TEST(sparkline({}, 8, false) == "");
    // Columns take the largest value of their slice: a spike survives.
    BOOST_TEST(sparkline({0, 0, 0, 9, 0, 0, 0, 0}, 4, true) == "_#__");
}

// Issue 32: names from a report reach the terminal escaped: nothing in
// them can end a line, move the cursor or reverse the text that follows.
BOOST_AUTO_TEST_CASE(show_escapes_control_and_bidi_characters) {
    const std::string evil = std::string("gr\0ow", 5) + "\u202e" + "cod\nLEAKED 9 of 9\x1b[2J";
    json frames = {frame(evil, 10, "0x1000"), frame("main", 30, "0x2000")};
    json j = report({site("growing", 1000, frames)});
    j["command"] = {"./prog", evil};
    std::string out = show_report(parse(j), ShowOptions{});
    const std::string escaped = "gr\\x00ow\\u202ecod\\nLEAKED 9 of 9\\x1b[2J";
    BOOST_TEST(contains(out, "command: ./prog " + escaped), out);
    BOOST_TEST(contains(out, "at " + escaped + " (prog.c:10)"), out);
    BOOST_TEST(!contains(out, std::string(1, '\0')));
    BOOST_TEST(!contains(out, "\u202e"));
    BOOST_TEST(!contains(out, "\x1b"));
    BOOST_TEST(!contains(out, "\nLEAKED 9"));
    BOOST_TEST(terminal_text("caf\u00e9 \u65e5\u672c a\\b\t\u200b\xc2\x85") ==
               "caf\u00e9 \u65e5\u672c a\\\\b\\t\\u200b\\u0085");
    BOOST_TEST(terminal_text("\xff\xc0\x80") == "\\xff\\xc0\\x80"); // not UTF-8
}

// Issue 32: a diff of two different programs says so.
BOOST_AUTO_TEST_CASE(a_diff_of_two_programs_warns) {
    json a = report({site("growing", 1000, kX)}), b = a;
    b["command"] = {"/other/build/prog", "--port", "80"};
    BOOST_TEST(different_programs(parse(a), parse(b)).empty()); // one program, two builds
    b["command"] = {"./server"};
    BOOST_TEST(contains(different_programs(parse(a), parse(b)), "(prog and server)"));
    a["command"] = {"/usr/bin/python3.11", "-u", "app.py"};
    b["command"] = {"python3.11", "/srv/app.py", "--fast"};
    BOOST_TEST(different_programs(parse(a), parse(b)).empty());
    b["command"] = {"python3.11", "-m", "worker"};
    BOOST_TEST(contains(different_programs(parse(a), parse(b)),
                        "(python3.11 app.py and python3.11 -m worker)"));
}

BOOST_AUTO_TEST_CASE(show_filters_and_prints) {
    Report r = parse(report({site("growing", 1000, kX), site("leaked", 40, kY),
                             site("stable", 8, kX, false, "device")}));
    ShowOptions o;
    std::string all = show_report(r, o);
    BOOST_TEST(contains(all, "LEAKED 1 of 1"), all);
    BOOST_TEST(contains(all, "GROWING 1 of 1"), all);
    BOOST_TEST(contains(all, "at grow (prog.c:10)"), all);
    BOOST_TEST(contains(all, "▁▅█"), all);
    o.classes = {SiteClass::growing};
    BOOST_TEST(!contains(show_report(r, o), "LEAKED"));
    o = {};
    o.spaces = {"device"};
    BOOST_TEST(site_matches(r.sites[2], o));
    BOOST_TEST(!site_matches(r.sites[0], o));
    o = {};
    o.files = {"prog.c"};
    BOOST_TEST(site_matches(r.sites[0], o));
    o.files = {"rog.c"};
    BOOST_TEST(!site_matches(r.sites[0], o));
    o = {};
    o.functions = {"los"};
    BOOST_TEST(site_matches(r.sites[1], o));
    BOOST_TEST(!site_matches(r.sites[0], o));
}

// Issue 43 (C5): show printed "growing 2800000" and "GROWING 1 of 2800000".
BOOST_AUTO_TEST_CASE(show_prints_every_count_with_separators) {
    json sites = json::array();
    for (int i = 0; i < 1234; ++i)
        sites.push_back(site("growing", 1000 + i, kX));
    sites.push_back(site("leaked", 40, kY, true));
    sites.push_back(site("leaked", 40, kY, true));
    json j = report(sites);
    json& largest = j["sites"][1233];
    largest["frames"] = json::array();
    for (int i = 0; i < 1005; ++i)
        largest["frames"].push_back(frame("f", i, "0x1000"));
    j["buckets"] = json::array();
    for (int i = 1; i <= 1002; ++i)
        j["buckets"].push_back({{"end", i}});
    j["teardown_at"] = 1002;
    ShowOptions o;
    o.top = 10;
    o.frames = 4;
    std::string out = show_report(parse(j), o);
    for (const char* counts : {"growing 1,234 (", "GROWING 1 of 1,234:", "GROWING 10 of 1,234:",
                               "; 2 suppressed not shown", "1,002 buckets", "... 1,001 more frames",
                               "(clock 1,002 bytes allocated)"})
        BOOST_TEST(contains(out, counts), counts);
    BOOST_TEST(!contains(out, "1234"));
}

// Issue 43 (C5): a bucket 32,768 units narrower than nothing and a run that
// ended at clock -1 were shown as they were.
BOOST_AUTO_TEST_CASE(a_clock_is_never_negative_nor_a_bucket_empty) {
    auto refused = [](const std::function<void(json&)>& change, const std::string& pointer,
                      const std::string& message) {
        json j = report({site("growing", 8, kX)});
        change(j);
        LoadError e = load_error(j.dump());
        BOOST_TEST(e.pointer == pointer);
        BOOST_TEST(contains(e.message, message), e.message);
    };
    refused([](json& j) { j["bucket_width"] = -32768; }, "/bucket_width",
            "a bucket is at least 1 clock unit wide, not -32768");
    refused([](json& j) { j["bucket_width"] = 0; }, "/bucket_width", "not 0");
    refused([](json& j) { j["teardown_at"] = -1; }, "/teardown_at", "a negative clock value (-1)");
    refused([](json& j) { j["warmup_end"] = -5; }, "/warmup_end", "negative clock");
    refused([](json& j) { j["buckets"][1]["end"] = -200; }, "/buckets/1/end", "negative clock");
    refused(
        [](json& j) {
            j["marks"] = {{"count", 1}, {"first_at", -3}};
        },
        "/marks/first_at", "negative clock");
    refused([](json& j) { j["sites"][0]["growth"]["began_at"] = -100; }, "/sites/0/growth/began_at",
            "negative clock");
    refused([](json& j) { j["sites"][0]["growth"]["next_step_at"] = -1; },
            "/sites/0/growth/next_step_at", "negative clock");
    json j = report({site("growing", 8, kX)});
    j["bucket_width"] = 1;
    j["warmup_end"] = 0;
    BOOST_TEST(parse(j).bucket_width == 1);
}

// ---- format 2 (docs/output-format.md): a frame table, a stack tree, rows.

namespace {

// Two sites sharing their caller `main`: grow <- main and lose <- main.
json report_v2() {
    json frames = {{"main", "src/prog.c", 30, "/build/a/prog", "0x2000"},
                   {"grow", "src/prog.c", 10, "/build/a/prog", "0x1000"},
                   {"lose", "src/prog.c", 20, "/build/a/prog", "0x1100"}};
    return {
        {"memgrow", 2},
        {"command", {"./prog"}},
        {"pid", 42},
        {"time_unit", "B"},
        {"teardown_at", 300},
        {"buckets", {{{"end", 100}}, {{"end", 200}}, {{"end", 300}}}},
        {"frames", frames},
        {"stacks", {0, -1, 1, 0, 2, 0}},
        {"sites",
         {{0,
           1,
           "growing",
           300,
           3,
           300,
           300,
           3,
           300,
           3,
           {0, 100, 1, 200, 2, 300},
           {0, 100, 1, 100, 2, 100},
           {{"growth", {{"class", "growing"}, {"rule", "trend"}, {"rate", 1}, {"confidence", 1}}}}},
          {1, 2, "stable", 64, 1, 64, 64, 1, 64, 1, {1, 64}, {1, 64}, json::object()}}}};
}

// report_v2() in revision 2's encoding (docs/output-format.md): callers as
// distances back, ids as gaps, class codes; a leak scan's "leak" arrays and a
// Python site's sub-site steps.
json report_v2_revision2() {
    json j = report_v2();
    j["revision"] = 2;
    j["stacks"] = {0, 0, 1, 1, 2, 2}; // node 2's caller is node 0, two back
    j["sites"][0][0] = 0;
    j["sites"][0][2] = 2; // growing
    j["sites"][1][0] = 0;
    j["sites"][1][2] = 0; // stable
    j["leak_check"] = {{"mode", "full"}};
    j["sites"][1][12]["leak"] = {64, 0, 0, 1, 0, 0, 0, 0};
    j["sites"][1][12]["lost_suppressed"] = true;
    json py = {0,
               2,
               0,
               64,
               1,
               64,
               64,
               1,
               64,
               1,
               {1, 64},
               json::array(),
               {{"sites", {1}}, {"leak", {64, 0, 0}}}};
    j["python_sites"] = {py};
    return j;
}

} // namespace

BOOST_AUTO_TEST_CASE(format2_revision2_reads_as_revision1) {
    json j = report_v2_revision2();
    Report r = parse(j);
    BOOST_REQUIRE(r.sites.size() == 2u);
    BOOST_TEST(r.sites[0].id == 0);
    BOOST_TEST(r.sites[1].id == 1);
    BOOST_TEST((r.sites[0].cls == SiteClass::growing));
    BOOST_TEST((r.sites[1].cls == SiteClass::stable));
    // Node 2 ("lose") has node 0 ("main") as its caller: two back.
    BOOST_REQUIRE(r.sites[1].frames.size() == 2u);
    BOOST_TEST(*r.sites[1].frames[0].function == "lose");
    BOOST_TEST(*r.sites[1].frames[1].function == "main");
    BOOST_TEST(r.sites[1].lost->definite == 64);
    BOOST_TEST(r.python_sites[0].sub_sites == (std::vector<std::int64_t>{1}));
    BOOST_TEST(r.python_sites[0].lost->definite == 64);
    // Gaps: a site left out between two rows.
    j["sites"][1][0] = 3;
    BOOST_TEST(parse(j).sites[1].id == 4);
    // Expanded: the format-1 fields spelled out.
    json v1 = expand_document(report_v2_revision2());
    BOOST_TEST(!v1.contains("revision"));
    const json& s = v1["sites"][1];
    BOOST_TEST(s["id"] == 1);
    BOOST_TEST(s["class"] == "stable");
    BOOST_TEST(s["frames"].size() == 2u);
    BOOST_TEST(s["frames"][1]["function"] == "main");
    BOOST_TEST(s["lost"] == json({{"definite", 64}, {"indirect", 0}, {"possible", 0}}));
    BOOST_TEST(s["lost_blocks"]["definite"] == 1);
    BOOST_TEST(s["reachable_bytes"] == 0);
    BOOST_TEST(s["lost_suppressed"] == true);
    BOOST_TEST(!s.contains("leak"));
    BOOST_TEST(v1["sites"][0]["lost"]["definite"] == 0); // no "leak": nothing lost
    BOOST_TEST(v1["python_sites"][0]["sites"] == json({1}));
    BOOST_TEST(v1["python_sites"][0]["lost"]["definite"] == 64);
    // The same report in revision 1 expands to the same.
    json old = report_v2_revision2();
    old.erase("revision");
    old["stacks"] = {0, -1, 1, 0, 2, 0};
    old["sites"][0][2] = "growing";
    old["sites"][1][0] = 1;
    old["sites"][1][2] = "stable";
    old["sites"][1][12] = {{"lost", {{"definite", 64}, {"indirect", 0}, {"possible", 0}}},
                           {"lost_blocks", {{"definite", 1}, {"indirect", 0}, {"possible", 0}}},
                           {"reachable_bytes", 0},
                           {"indirect_through", 0},
                           {"lost_suppressed", true}};
    old["python_sites"][0][2] = "stable";
    old["python_sites"][0][12] = {{"sites", {1}},
                                  {"lost", {{"definite", 64}, {"indirect", 0}, {"possible", 0}}}};
    BOOST_TEST(expand_document(old) == v1);
}

BOOST_AUTO_TEST_CASE(format2_revision2_refuses_bad_callers_and_codes) {
    json j = report_v2_revision2();
    j["stacks"][3] = 2; // node 1's caller two back: before the first node
    LoadError e = load_error(text_of(j));
    BOOST_TEST(e.pointer == "/stacks/3");
    BOOST_TEST(contains(e.message, "not an earlier node"));
    j = report_v2_revision2();
    j["stacks"][3] = -1; // a caller after its callee
    BOOST_TEST(load_error(text_of(j)).pointer == "/stacks/3");
    j = report_v2_revision2();
    j["sites"][0][2] = 4;
    BOOST_TEST(load_error(text_of(j)).pointer == "/sites/0/2");
    j = report_v2_revision2();
    j["sites"][0][2] = "growing"; // a name where revision 2 has a code
    BOOST_TEST(load_error(text_of(j)).pointer == "/sites/0/2");
    j = report_v2_revision2();
    j["sites"][1][0] = -1;
    BOOST_TEST(load_error(text_of(j)).pointer == "/sites/1/0");
    j = report_v2_revision2();
    j["sites"][1][12]["leak"] = {64, 0};
    BOOST_TEST(load_error(text_of(j)).pointer == "/sites/1/12/leak");
    j = report_v2_revision2();
    j["sites"][1][12]["leak"][0] = -64; // a count is never negative
    LoadError negative = load_error(text_of(j));
    BOOST_TEST(negative.pointer == "/sites/1/12/leak/0");
    BOOST_TEST(contains(negative.message, "negative"));
    j = report_v2_revision2();
    j["python_sites"][0][12]["sites"] = {1, -1};
    BOOST_TEST(load_error(text_of(j)).pointer == "/python_sites/0/12/sites/1");
    j = report_v2_revision2();
    j["revision"] = 3;
    BOOST_TEST(contains(load_error(text_of(j)).message, "revision 3"));
    // The revision after the tables it describes.
    std::string text = text_of(report_v2_revision2());
    text.erase(text.find("\"revision\":2,"), 13);
    text.insert(text.size() - 1, ",\"revision\":2");
    BOOST_TEST(contains(load_error(text).message, "\"revision\": 2 missing, or after the rows"));
    // With no row to show it, the check of the whole file says so.
    json no_rows = report_v2_revision2();
    no_rows["sites"] = json::array();
    no_rows.erase("python_sites");
    text = text_of(no_rows);
    text.erase(text.find("\"revision\":2,"), 13);
    text.insert(text.size() - 1, ",\"revision\":2");
    BOOST_TEST(contains(load_error(text).message, "comes after"));
}

BOOST_AUTO_TEST_CASE(a_series_is_held_as_its_change_points) {
    const std::vector<std::int64_t> dense{0, 0, 5, 5, 5, 0, 7};
    Series s(dense);
    BOOST_TEST(s.points().size() == 3u);
    BOOST_TEST(s.size() == dense.size());
    BOOST_TEST(s.dense() == dense);
    BOOST_TEST(Series(std::vector<std::int64_t>(4, 0)).points().empty());
}

BOOST_AUTO_TEST_CASE(format2_loads_into_the_model_with_shared_stacks) {
    Report r = parse(report_v2());
    BOOST_TEST(r.version == 2);
    BOOST_REQUIRE(r.sites.size() == 2u);
    const Site& g = r.sites[0];
    BOOST_TEST((g.cls == SiteClass::growing));
    BOOST_TEST(g.growth->rule == "trend");
    BOOST_TEST(g.series.dense() == (std::vector<std::int64_t>{100, 200, 300}));
    BOOST_REQUIRE(g.frames.size() == 2u);
    BOOST_TEST(*g.frames[0].function == "grow");
    BOOST_TEST(*g.frames[1].function == "main");
    BOOST_TEST(g.frames[0].ip == "0x1000");
    const Site& l = r.sites[1];
    BOOST_TEST(l.series.dense() == (std::vector<std::int64_t>{0, 64, 64}));
    BOOST_TEST(l.series.points().size() == 1u); // held as its one change
    BOOST_TEST(l.growth->rule == "none");       // a quiet stable site's evidence is left out
    BOOST_TEST(l.space.str() == "host");
    // The same report in format 1 gives the same keys.
    json v1 = report(json::array({site("growing", 300, kX), site("stable", 64, kY)}));
    v1["sites"][1]["frames"][0]["function"] = "lose";
    v1["sites"][1]["frames"][0]["line"] = 20;
    v1["sites"][1]["frames"][1] = frame("main", 30, "0x2000");
    Report r1 = parse(v1);
    BOOST_TEST(site_key(r1.sites[0]) == site_key(g));
    BOOST_TEST(site_key(r1.sites[1]) == site_key(l));
}

BOOST_AUTO_TEST_CASE(format2_expands_to_the_format1_layout) {
    json v1 = expand_document(report_v2());
    BOOST_TEST(v1["memgrow"] == 1);
    BOOST_TEST(!v1.contains("frames"));
    BOOST_TEST(!v1.contains("stacks"));
    const json& s = v1["sites"][1];
    BOOST_TEST(s["frames"].size() == 2u);
    BOOST_TEST(s["frames"][0]["function"] == "lose");
    BOOST_TEST(s["frames"][1]["function"] == "main");
    BOOST_TEST(s["frames"][0]["python"] == false);
    BOOST_TEST(s["series"] == json({0, 64, 64}));
    BOOST_TEST(s["allocated_series"] == json({0, 64, 0}));
    BOOST_TEST(s["freed_series"] == json({0, 0, 0}));
    BOOST_TEST(s["growth"]["rule"] == "none");
    // And it loads as format 1 into the same model.
    Report a = parse(report_v2()), b = parse(v1);
    BOOST_TEST(b.version == 1);
    for (std::size_t i = 0; i < 2; ++i) {
        BOOST_TEST(site_key(a.sites[i]) == site_key(b.sites[i]));
        BOOST_TEST(a.sites[i].series.dense() == b.sites[i].series.dense());
        BOOST_TEST((a.sites[i].series == b.sites[i].series)); // the same change points
        BOOST_TEST(a.sites[i].live_bytes == b.sites[i].live_bytes);
    }
}

// Folded groups (docs/output-format.md, "What the report lists"): a row
// names its frame's node, a format-1 group holds its frames; both load
// alike, and a row of the wrong size or node is refused.
BOOST_AUTO_TEST_CASE(folded_groups_load_in_both_formats) {
    json j = report_v2();
    j["folded"] = {{1, nullptr, 3, 96, 3, 200, 500, 9, 32, 1},
                   {nullptr, 0, 1, 8, 1, 8, 8, 1, 0, 0}};
    Report r = parse(j);
    BOOST_REQUIRE(r.folded.size() == 2u);
    const Folded& f = r.folded[0];
    BOOST_TEST(!f.python_site);
    BOOST_TEST(f.sites == 3);
    BOOST_TEST(f.live_bytes == 96);
    BOOST_TEST(f.peak_bytes == 200);
    BOOST_TEST(f.allocated_bytes == 500);
    BOOST_TEST(f.at_exit_blocks == 1);
    BOOST_REQUIRE(f.frames.size() == 2u); // node 1: grow <- main
    BOOST_TEST(*f.frames[0].function == "grow");
    BOOST_TEST(r.folded[1].frames.empty());
    BOOST_TEST(*r.folded[1].python_site == 0);
    json v1 = expand_document(j);
    BOOST_TEST(v1["folded"][0]["frames"].size() == 2u);
    BOOST_TEST(v1["folded"][0]["live_bytes"] == 96);
    BOOST_TEST(v1["folded"][1]["python_site"] == 0);
    Report b = parse(v1);
    BOOST_REQUIRE(b.folded.size() == 2u);
    BOOST_TEST(b.folded[0].at_exit_bytes == 32);
    BOOST_TEST(*b.folded[0].frames[1].function == "main");
    j["folded"][0][0] = 9;
    BOOST_TEST(load_error(j.dump()).pointer == "/folded/0/0");
    j["folded"][0] = {1, nullptr, 3};
    BOOST_TEST(load_error(j.dump()).pointer == "/folded/0");
    j["folded"][0] = {1, nullptr, 3, -96, 3, 200, 500, 9, 32, 1};
    BOOST_TEST(load_error(j.dump()).pointer == "/folded/0/3");
}

BOOST_AUTO_TEST_CASE(format2_a_marked_row_without_mark_series_holds_zeros) {
    json j = report_v2();
    j["mark_buckets"] = 3;
    j["sites"][0][12]["mark_series"] = {1, 8};
    Report r = parse(j);
    BOOST_TEST(r.sites[0].mark_series.dense() == (std::vector<std::int64_t>{0, 8, 8}));
    BOOST_TEST(r.sites[1].mark_series.dense() == (std::vector<std::int64_t>{0, 0, 0}));
    json v1 = expand_document(j);
    BOOST_TEST(v1["sites"][0]["mark_series"] == json({0, 8, 8}));
    BOOST_TEST(v1["sites"][1]["mark_series"] == json({0, 0, 0}));
    // Unmarked: no mark series at all.
    BOOST_TEST(parse(report_v2()).sites[1].mark_series.empty());
    BOOST_TEST(!expand_document(report_v2())["sites"][1].contains("mark_series"));
}

BOOST_AUTO_TEST_CASE(format2_refuses_broken_stacks_and_rows) {
    json j = report_v2();
    j["stacks"][3] = 2; // node 1's caller is itself or later: a cycle
    BOOST_TEST(load_error(j.dump()).pointer == "/stacks/3");
    j = report_v2();
    j["stacks"][2] = 7; // no frame 7
    BOOST_TEST(load_error(j.dump()).pointer == "/stacks/2");
    j = report_v2();
    j["sites"][1][1] = 9; // no node 9
    BOOST_TEST(load_error(j.dump()).pointer == "/sites/1/1");
    j = report_v2();
    j["sites"][0][10] = {2, 300, 1, 200}; // buckets out of order
    BOOST_TEST(load_error(j.dump()).pointer == "/sites/0/10/2");
    j = report_v2();
    j["sites"][0][10] = {5, 300}; // past the buckets
    BOOST_TEST(load_error(j.dump()).pointer == "/sites/0/10/0");
    j = report_v2();
    j["sites"][1].erase(12);
    BOOST_TEST(load_error(j.dump()).pointer == "/sites/1");
    j = report_v2();
    j["sites"][0][3] = "many";
    BOOST_TEST(load_error(j.dump()).pointer == "/sites/0/3");
    j = report_v2();
    j["sites"][0][12]["growth"]["rate"] = "fast";
    BOOST_TEST(load_error(j.dump()).pointer == "/sites/0/12/growth/rate");
    // A format-1 report with a row, a format-2 report with a site object.
    j = report_v2();
    j["memgrow"] = 1;
    BOOST_TEST(contains(load_error(j.dump()).message, "format-1 site"));
    j = report_v2();
    j["sites"][1] = site("stable", 64, kY);
    BOOST_TEST(contains(load_error(j.dump()).message, "format-2 site row"));
    j = report_v2();
    j.erase("buckets");
    BOOST_TEST(contains(load_error(j.dump()).message, "\"buckets\" before its sites"));
}

// --- growth: the flame graph's tree, the verdict ----------------------------

BOOST_AUTO_TEST_CASE(gained_bytes_start_at_the_warm_ups_last_bucket) {
    json shrinking = site("stable", 50, kY);
    shrinking["series"] = {0, 100, 50};
    json j = report({site("growing", 1000, kX), shrinking});
    j["warmup_end"] = 250; // bucket 1 (ends at 200) is the warm-up's last
    Report r = parse(j);
    BOOST_TEST(*warmup_bucket(r) == 1u);
    BOOST_TEST(gained_bytes(r.sites[0], warmup_bucket(r)) == 500); // 1000 less 500
    BOOST_TEST(gained_bytes(r.sites[1], warmup_bucket(r)) == 0);   // 100 to 50: never negative
    j["warmup_end"] = 50;                                          // before every bucket
    r = parse(j);
    BOOST_TEST(!warmup_bucket(r));
    BOOST_TEST(gained_bytes(r.sites[0], warmup_bucket(r)) == 1000);
}

BOOST_AUTO_TEST_CASE(flame_merges_stacks_from_the_outermost_frame_and_cuts_slivers) {
    json a = site("growing", 6000, {frame("grow", 10, "0x1000"), frame("main", 30, "0x2000")});
    json b = site("plateau", 4000, {frame("fill", 12, "0x1200"), frame("main", 30, "0x2000")});
    json tiny = site("stable", 2, {frame("tiny", 14, "0x1400"), frame("main", 30, "0x2000")});
    Report r = parse(report({a, b, tiny}));
    json f = flame_data(r, 0.001); // 2 bytes of 10,002 is below 0.1%
    const json& n = f["nodes"];
    BOOST_REQUIRE(n.size() == 4u * 8u); // all, main, grow, fill
    auto name = [&](std::size_t i) { return f["names"][n[i * 8 + 1].get<std::size_t>()]; };
    BOOST_TEST(name(0) == "all");
    BOOST_TEST(name(1) == "main (prog.c:30)");
    BOOST_TEST(n[8].get<int>() == 0);                  // main's parent: the root
    BOOST_TEST(n[8 + 3].get<std::int64_t>() == 10002); // live under main, tiny included
    BOOST_TEST(n[8 + 6].get<int>() == 2);              // by live bytes: growing beneath
    BOOST_TEST(name(2) == "grow (prog.c:10)");
    BOOST_TEST(n[16].get<int>() == 1); // grow's parent: main
    BOOST_TEST(f["left_out"].get<int>() == 1);
    BOOST_TEST(f["totals"][1].get<std::int64_t>() == 10002);
}

BOOST_AUTO_TEST_CASE(the_verdict_names_the_growth_its_holder_and_the_limit) {
    json g = site("growing", 6000, kX);
    g["growth"]["rate_per_mark"] = 96;
    g["held_by"] = {{{"path", "journal"}, {"root", "global"}, {"bytes", 6000}, {"share", 1.0}}};
    json j = report({g, site("stable", 10, kY)});
    j["warmup_end"] = 200; // the level was 3,000 then
    j["projection"] = {{"limit_bytes", 2 * 1024 * 1024},
                       {"limit_source", "option"},
                       {"hours_to_limit", 0.12},
                       {"marks_to_limit", 21000}};
    std::string v = verdict_text(parse(j));
    BOOST_TEST(v == "Growing: grow (prog.c:10) gained 3.0 kB after the warm-up (+96 bytes per "
                    "mark), held by journal; the heap reaches the 2 MiB limit (--limit) in 0.12 "
                    "hours.");
    BOOST_TEST(verdict_text(parse(report({site("stable", 10, kY)}))) ==
               "Nothing grows or leaks: 1 sites, the heap peaked at 0 bytes.");
}

// --- holders (docs/holders.md) ---------------------------------------------

namespace {

json held(const std::string& path, std::int64_t bytes, const std::string& root = "global") {
    return {{"path", path},     {"root", root},   {"type", nullptr}, {"length", nullptr},
            {"bound", nullptr}, {"bytes", bytes}, {"blocks", 1},     {"share", 1.0}};
}

json held_site(const std::string& cls, std::int64_t live, json frames, const std::string& path) {
    json s = site(cls, live, std::move(frames));
    s["held_by"] = {held(path, live)};
    return s;
}

const json kXMoved = {frame("grow", 12, "0x1000"), frame("main", 33, "0x2000")};

} // namespace

BOOST_AUTO_TEST_CASE(held_by_and_holders_load_absent_fields_as_null) {
    json s = held_site("growing", 1000, kX, "journal");
    s["held_by"].push_back({{"path", "main (prog.c:30)"}}); // an older writer's few fields
    s["held_by"][0]["holder"] = 7;
    json j = report({s});
    j["holders"] = {{{"id", 7},
                     {"path", "journal"},
                     {"root", "global"},
                     {"type", "list"},
                     {"length", 1000},
                     {"bound", nullptr},
                     {"class", "growing"},
                     {"bytes", 1000},
                     {"blocks", 10},
                     {"rate", 0.5},
                     {"sites", {0}},
                     {"python_sites", json::array()}},
                    {{"id", 8}}};
    Report r = parse(j);
    const auto& h = held_by(r, r.sites.at(0));
    BOOST_REQUIRE(h.size() == 2u);
    BOOST_TEST(h[0].path == "journal");
    BOOST_TEST(h[0].bytes == 1000);
    BOOST_TEST(*h[0].holder == 7);
    BOOST_TEST(!h[0].type);
    BOOST_TEST(!h[1].holder);
    BOOST_TEST(h[1].root.empty());
    BOOST_TEST(h[1].bytes == 0);
    BOOST_REQUIRE(r.holders.size() == 2u);
    BOOST_TEST(*r.holders[0].type == "list");
    BOOST_TEST(*r.holders[0].length == 1000);
    BOOST_TEST(!r.holders[0].bound);
    BOOST_TEST(class_name(r.holders[0].cls) == "growing");
    BOOST_TEST(r.holders[0].sites == std::vector<std::int64_t>{0});
    BOOST_TEST(r.holders[1].path.empty());
    BOOST_TEST(class_name(r.holders[1].cls) == "stable");
    // A site without held_by has none.
    Report bare = parse(report({site("growing", 10, kX)}));
    BOOST_TEST(held_by(bare, bare.sites.at(0)).empty());
}

BOOST_AUTO_TEST_CASE(held_by_of_the_wrong_type_is_located) {
    json s = held_site("growing", 1000, kX, "journal");
    s["held_by"][0]["bytes"] = "many";
    LoadError e = load_error(report({s}).dump());
    BOOST_TEST(e.pointer == "/sites/0/held_by/0/bytes", e.what());
    json j = report({site("growing", 10, kX)});
    j["holders"] = {{{"id", 1}, {"sites", "0"}}};
    BOOST_TEST(load_error(j.dump()).pointer == "/holders/0/sites");
}

BOOST_AUTO_TEST_CASE(format2_rows_carry_held_by) {
    json j = report_v2();
    j["sites"][0][12] = {{"growth",
                          {{"rate", 1},
                           {"confidence", 1},
                           {"rule", "bounded holder"},
                           {"bound", 6000},
                           {"fill", 0.25},
                           {"bound_bytes", 256}}},
                         {"held_by", {held("RECENT", 64)}}};
    Report r = parse(j);
    BOOST_REQUIRE(held_by(r, r.sites.at(0)).size() == 1u);
    BOOST_TEST(held_by(r, r.sites[0]).front().path == "RECENT");
    BOOST_TEST(held_by(r, r.sites[1]).empty());
    BOOST_TEST(*r.sites[0].growth->bound == 6000);
    BOOST_TEST(*r.sites[0].growth->fill == 0.25);
    BOOST_TEST(*r.sites[0].growth->bound_bytes == 256);
}

BOOST_AUTO_TEST_CASE(holders_read_the_same_in_every_view) {
    HeldBy h;
    h.path = "journal";
    h.root = "global";
    h.bytes = 48000;
    h.blocks = 1000;
    h.share = 0.975;
    BOOST_TEST(held_by_text(h) == "journal (global), 48,000 bytes in 1,000 blocks, 97.5%");
    BOOST_TEST(!holder_read(h));
    h.length = 900; // a native array: no type, its slots
    h.bound = 4096;
    BOOST_TEST(holder_words(h) == "journal (global, 900 of 4,096 slots)");
    BOOST_TEST(holder_read(h));
    h.path = "service.TOKEN_STATS";
    h.type = "dict";
    h.length = 12000;
    h.bound.reset();
    BOOST_TEST(holder_words(h) == "service.TOKEN_STATS (dict, 12,000 items, no bound)");
    h.type = "collections.deque";
    h.length = 2000;
    h.bound = 6000;
    BOOST_TEST(holder_about(h) == "collections.deque, 2,000 of 6,000 items");
    BOOST_TEST(holder_steps("table \u2192 block from grow (a.c:4)") ==
               (std::vector<std::string>{"table", "block from grow (a.c:4)"}));
    BOOST_TEST(holder_steps("journal") == std::vector<std::string>{"journal"});
    BOOST_TEST(holder_path_key("main (a.c:88) \u2192 block from grow (a.c:4)") ==
               "main (a.c) \u2192 block from grow (a.c)");
    BOOST_TEST(holder_path_key("ring:3 (x:y)") == "ring:3 (x:y)");
}

BOOST_AUTO_TEST_CASE(a_site_that_moved_with_its_holder_is_the_same_finding) {
    Report base = parse(report({held_site("growing", 1000, kX, "main (prog.c:30)")}));
    Report moved = parse(report({held_site("growing", 1200, kXMoved, "main (prog.c:33)")}));
    DiffResult d = diff_reports(base, moved);
    BOOST_TEST(d.added.empty());
    BOOST_TEST(d.gone.empty());
    BOOST_REQUIRE(d.changed.size() == 1u);
    BOOST_TEST(d.changed[0].moved);
    BOOST_TEST(d.changed[0].delta() == 200);
    BOOST_TEST(!d.failed());
    std::string text = print_diff(d, base, moved, {});
    BOOST_TEST(contains(text, "moved from grow (prog.c:10) <- main (prog.c:30), held by main "
                              "(prog.c:33)"),
               text);
    // Another holder, or none: another finding, as before.
    Report other = parse(report({held_site("growing", 1000, kXMoved, "cache")}));
    BOOST_TEST(diff_reports(base, other).added.size() == 1u);
    BOOST_TEST(diff_reports(base, other).failed());
    Report bare = parse(report({site("growing", 1000, kXMoved)}));
    BOOST_TEST(diff_reports(base, bare).failed());
    // Two sites that share the moved key: none is matched.
    json kXOther = {frame("grow", 14, "0x1000"), frame("main", 35, "0x2000")};
    Report two = parse(report({held_site("growing", 10, kXMoved, "main (prog.c:33)"),
                               held_site("growing", 10, kXOther, "main (prog.c:33)")}));
    DiffResult d2 = diff_reports(base, two);
    BOOST_TEST(d2.added.size() == 2u);
    BOOST_TEST(d2.gone.size() == 1u);
    BOOST_TEST(d2.failed());
}

BOOST_AUTO_TEST_CASE(show_prints_held_by_and_leads_with_holders) {
    json s = held_site("growing", 1000, kX, "journal");
    s["held_by"][0]["holder"] = 3;
    json j = report({s, site("stable", 5, kY)});
    j["holders"] = {{{"id", 3},
                     {"path", "journal"},
                     {"root", "global"},
                     {"type", "list"},
                     {"length", 1000},
                     {"class", "growing"},
                     {"bytes", 1000},
                     {"blocks", 10},
                     {"rate", 0.25},
                     {"sites", {0, 99}}}}; // 99: not a site of the report, left out
    Report r = parse(j, "h.json");
    std::string text = show_report(r, {});
    BOOST_TEST(contains(text, "\n  held by: journal (global), 1,000 bytes in 1 blocks, 100%\n"),
               text);
    BOOST_TEST(contains(text,
                        "\nGROWING HOLDER 1 of 1: journal (list, 1,000 items, no bound) "
                        "keeps 1.0 kB in 1 site, +0.25 B per byte "
                        "allocated\n    site 0 growing, 1,000 bytes held: grow (prog.c:10)\n"),
               text);
    // The holders come before the sites.
    BOOST_TEST(text.find("GROWING HOLDER") < text.find("GROWING 1 of 1"));
    ShowOptions plateau_only;
    plateau_only.classes = {SiteClass::plateau};
    BOOST_TEST(!contains(show_report(r, plateau_only), "HOLDER"));
    // The log's numbers where the tool gives them: its share of its sites'
    // live bytes, in every site it keeps (the report lists the largest).
    j["holders"][0]["live_bytes"] = 2500000;
    j["holders"][0]["n_sites"] = 7;
    text = show_report(parse(j, "h.json"), {});
    BOOST_TEST(contains(text, "\nGROWING HOLDER 1 of 1: journal (list, 1,000 items, no bound) "
                              "keeps 2.5 MB in 7 sites, +0.25 B per byte allocated\n"),
               text);
}
