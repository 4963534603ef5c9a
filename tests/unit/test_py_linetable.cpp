// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of CPython's location-table decoder (core/py_linetable.hpp)
// against tables captured from a real interpreter with the line co_lines()
// gives each code unit (tests/unit/data/py-linetables.json, written by
// make_py_linetables.py beside it), plus malformed tables.
#define BOOST_TEST_MODULE py_linetable
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "core/py_linetable.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace mg;

namespace {

std::string data_dir() {
    if (const char* d = std::getenv("MG_TEST_DATA")) return d;
    return MG_TEST_DATA_DIR;
}

std::vector<pyline::Run> decode(const std::vector<u8>& table, i32 first_line, bool* ok) {
    std::vector<pyline::Run> runs;
    *ok = pyline::decode(table.data(), table.size(), first_line,
                         [&](pyline::Run r) { runs.push_back(r); });
    return runs;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_unit_of_real_tables_has_cpythons_line) {
    std::ifstream in(data_dir() + "/py-linetables.json");
    BOOST_TEST_REQUIRE(in.good());
    const auto data = nlohmann::json::parse(in);
    BOOST_TEST_REQUIRE(data.at("cases").size() >= 6u);
    for (const auto& c : data.at("cases")) {
        BOOST_TEST_CONTEXT(c.at("name").get<std::string>()) {
            bool ok = false;
            auto runs = decode(c.at("table").get<std::vector<u8>>(), c.at("first_line"), &ok);
            BOOST_TEST(ok);
            const auto lines = c.at("lines").get<std::vector<i32>>();
            BOOST_TEST_REQUIRE(!runs.empty());
            BOOST_TEST(runs.back().end == lines.size());
            for (u32 unit = 0; unit < lines.size(); ++unit)
                BOOST_TEST(pyline::line_of(runs.data(), static_cast<u32>(runs.size()), unit) ==
                               lines[unit],
                           "unit " << unit);
            // Neighbouring runs never repeat a line: they are merged.
            for (std::size_t i = 1; i < runs.size(); ++i)
                BOOST_TEST(runs[i].line != runs[i - 1].line);
        }
    }
}

BOOST_AUTO_TEST_CASE(far_lines_use_multi_chunk_varints) {
    // Long form (code 14): line +4097 as svarint 8194 = chunks 2 | 64, 0x80 >> ...
    // 8194 = 0b10_000000_000010: chunks 2 (with continue), 0 (continue), 2.
    std::vector<u8> table = {0x80 | (14 << 3) | 1, 2 | 64, 0 | 64, 2, 1, 1, 1};
    bool ok = false;
    auto runs = decode(table, 10, &ok);
    BOOST_TEST(ok);
    BOOST_TEST_REQUIRE(runs.size() == 1u);
    BOOST_TEST(runs[0].end == 2u);
    BOOST_TEST(runs[0].line == 10 + 4097);
}

BOOST_AUTO_TEST_CASE(negative_deltas_and_no_location) {
    // line 5: code 13 (no columns) +2 -> 7; code 13 -3 -> 4; code 15 (none).
    std::vector<u8> table = {0x80 | (13 << 3) | 0, 4, 0x80 | (13 << 3) | 2, 7,
                             0x80 | (15 << 3) | 1};
    bool ok = false;
    auto runs = decode(table, 5, &ok);
    BOOST_TEST(ok);
    BOOST_TEST_REQUIRE(runs.size() == 3u);
    BOOST_TEST(pyline::line_of(runs.data(), 3, 0) == 7);
    BOOST_TEST(pyline::line_of(runs.data(), 3, 3) == 4);
    BOOST_TEST(pyline::line_of(runs.data(), 3, 4) == -1);
    BOOST_TEST(pyline::line_of(runs.data(), 3, 6) == -1); // past the end
}

BOOST_AUTO_TEST_CASE(malformed_tables_are_refused_keeping_the_good_prefix) {
    bool ok = true;
    // The second entry lacks the start bit.
    auto runs = decode({0x80 | (10 << 3), 1, 2, 0x10}, 1, &ok);
    BOOST_TEST(!ok);
    // A truncated one-line entry (its column bytes are missing).
    runs = decode({0x80 | (11 << 3), 1}, 1, &ok);
    BOOST_TEST(!ok);
    BOOST_TEST(runs.empty());
    // An endless varint stops at 32 bits instead of reading past the end.
    runs = decode({0x80 | (13 << 3), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1, &ok);
    BOOST_TEST(!ok);
}
