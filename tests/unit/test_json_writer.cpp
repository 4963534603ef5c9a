// SPDX-License-Identifier: GPL-2.0-or-later
// The report's JSON writer: what the tool writes must parse, whatever the
// strings and numbers it is given.
#define BOOST_TEST_MODULE json_writer
#include <boost/test/unit_test.hpp>

#include "core/format.hpp"
#include "core/intern_table.hpp"
#include "core/json_writer.hpp"
#include "core/sorted_ids.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>
#include <string>

using namespace mg;

namespace {

void append(void* ctx, const char* data, usize len) {
    static_cast<std::string*>(ctx)->append(data, len);
}

template <class F> nlohmann::json write(F body) {
    std::string out;
    {
        JsonWriter w(append, &out);
        body(w);
    }
    return nlohmann::json::parse(out);
}

} // namespace

BOOST_AUTO_TEST_CASE(nested_objects_and_arrays) {
    auto j = write([](JsonWriter& w) {
        w.begin_object();
        w.member("name", "site");
        w.member("n", static_cast<i64>(-42));
        w.key("series");
        w.begin_array();
        for (int i = 0; i < 3; ++i)
            w.integer(i);
        w.end_array();
        w.key("empty");
        w.begin_object();
        w.end_object();
        w.key("nothing");
        w.null();
        w.member_bool("yes", true);
        w.end_object();
    });
    BOOST_TEST(j["name"] == "site");
    BOOST_TEST(j["n"] == -42);
    BOOST_TEST(j["series"].size() == 3u);
    BOOST_TEST(j["series"][2] == 2);
    BOOST_TEST(j["empty"].is_object());
    BOOST_TEST(j["nothing"].is_null());
    BOOST_TEST(j["yes"] == true);
}

BOOST_AUTO_TEST_CASE(strings_are_escaped_and_valid_utf8) {
    const char nasty[] = "q\"b\\n\nt\tc\x01 \xc3\xa9 bad\xff\xfe end \xe2\x82";
    auto j = write([&](JsonWriter& w) {
        w.begin_array();
        w.string(nasty);
        w.string(nullptr);
        w.end_array();
    });
    std::string s = j[0];
    BOOST_TEST(s.find("q\"b\\n\nt\tc\x01 \xc3\xa9 bad") == 0u);
    BOOST_TEST(s.find("\xef\xbf\xbd") != std::string::npos); // U+FFFD replaced the bad bytes
    BOOST_TEST(j[1].is_null());
}

BOOST_AUTO_TEST_CASE(numbers_round_trip) {
    const double values[] = {0.0, 1.5, -2.25, 0.000123, 123456.789, 1e20, -3e17, 1.0 / 3};
    auto j = write([&](JsonWriter& w) {
        w.begin_array();
        for (double v : values)
            w.number(v);
        w.number(0.0 / 0.0);
        w.number(1e308 * 10);
        w.uinteger(18446744073709551615ull);
        w.integer(-9223372036854775807ll - 1);
        w.end_array();
    });
    for (size_t i = 0; i < sizeof values / sizeof *values; ++i) {
        double got = j[i];
        double want = values[i];
        BOOST_TEST(got == want,
                   boost::test_tools::tolerance(1e-6 + 1e-9 * (want < 0 ? -want : want)));
    }
    BOOST_TEST(j[8].is_null());
    BOOST_TEST(j[9].is_null());
    BOOST_TEST(j[10].get<unsigned long long>() == 18446744073709551615ull);
    BOOST_TEST(j[11].get<long long>() == -9223372036854775807ll - 1);
}

BOOST_AUTO_TEST_CASE(large_output_is_flushed_in_chunks) {
    auto j = write([](JsonWriter& w) {
        w.begin_array();
        for (int i = 0; i < 100000; ++i)
            w.integer(i);
        w.end_array();
    });
    BOOST_TEST(j.size() == 100000u);
    BOOST_TEST(j[99999] == 99999);
}

// ---- core/intern_table.hpp: the frame table and stack tree of format 2.

BOOST_AUTO_TEST_CASE(intern_table_gives_dense_ids_in_order_of_first_sight) {
    FrameInternTable t(std::malloc, std::free);
    BOOST_TEST(t.intern(7, 1, 40) == 0u);
    BOOST_TEST(t.intern(7, 2) == 1u);
    BOOST_TEST(t.intern(7, 1, 41) == 0u);
    BOOST_TEST(t.payload(0) == 40u); // the first sight's
    // An index sized ahead keeps the ids it holds.
    BOOST_REQUIRE(t.reserve(50000));
    BOOST_TEST(t.intern(7, 2) == 1u);
    // Past several growths of the index and the keys.
    for (u64 i = 0; i < 100000; ++i)
        BOOST_REQUIRE(t.intern(i, i * 3) == i + 2);
    for (u64 i = 0; i < 100000; i += 997)
        BOOST_REQUIRE(t.intern(i, i * 3) == i + 2);
    BOOST_TEST(t.size() == 100002u);
    BOOST_TEST(t.first(5) == 3u);
    BOOST_TEST(t.second(5) == 9u);
    t.reset();
    BOOST_TEST(t.size() == 0u);
    BOOST_TEST(t.intern(1, 1) == 0u);
    t.reset();
    // Nodes: 32-bit keys, no payload; past several chunks of keys.
    NodeInternTable n(std::malloc, std::free);
    for (u32 i = 0; i < 100000; ++i)
        BOOST_REQUIRE(n.intern(i % 7, i) == i);
    for (u32 i = 0; i < 100000; i += 991)
        BOOST_REQUIRE(n.intern(i % 7, i) == i);
    BOOST_TEST(n.first(99999) == 99999u % 7);
    BOOST_TEST(n.second(99999) == 99999u);
    // Without its index the table keeps its ids, and the next intern finds
    // the old keys again (an index rebuilt for all of them) and adds new ones.
    n.drop_index();
    BOOST_TEST(n.size() == 100000u);
    BOOST_TEST(n.second(4242) == 4242u);
    BOOST_TEST(n.intern(4242 % 7, 4242) == 4242u);
    for (u32 i = 0; i < 100000; i += 1009)
        BOOST_REQUIRE(n.intern(i % 7, i) == i);
    BOOST_TEST(n.intern(3, 100000) == 100000u);
    n.reset();
}

// The tool's stack tree: the same stack gives the same node, another stack
// another node, and each node reads back as its stack, whatever order the
// stacks come in (the memo of the last stack must not change any of that).
BOOST_AUTO_TEST_CASE(stack_tree_interns_stacks_as_nodes_sharing_their_callers) {
    StackTree tree(std::malloc, std::free);
    auto other = std::make_unique<StackTree::Memo>();
    std::mt19937_64 rng(7);
    std::map<std::vector<u64>, u32> seen;
    auto read = [&](u32 node) {
        std::vector<u64> w;
        for (; node != StackTree::kEmpty; node = tree.caller(node))
            w.push_back(tree.word(node));
        return w;
    };
    bool full = true;
    BOOST_TEST(tree.intern(nullptr, 0, &full) == StackTree::kEmpty);
    BOOST_TEST(!full);
    for (int k = 0; k < 20000; ++k) {
        // Callers from a few shared chains, innermost words from many;
        // some deeper than the memo keeps.
        u32 depth = 1 + rng() % (k % 50 == 0 ? 700 : 24);
        std::vector<u64> w(depth);
        u64 chain = rng() % 5;
        for (u32 i = 0; i < depth; ++i) {
            bool outer = i + 6 >= depth;
            w[i] = outer ? 1000 * chain + (depth - i) : rng() % (i < 2 ? 40 : 4);
        }
        // Two callers, each with its memo of the last stack it interned.
        u32 node = k % 3 ? tree.intern(w.data(), depth, &full)
                         : tree.intern(w.data(), depth, &full, *other);
        BOOST_REQUIRE(!full);
        auto [it, added] = seen.emplace(w, node);
        BOOST_REQUIRE(it->second == node); // same stack, same node
        if (added) {
            BOOST_REQUIRE(read(node) == w);
            if (tree.caller(node) != StackTree::kEmpty) BOOST_REQUIRE(tree.caller(node) < node);
        }
    }
    // One node per distinct suffix (a stack's callers from some frame out):
    // no more (callers shared), no fewer.
    std::set<u32> distinct;
    std::set<std::pair<u64, u64>> suffixes; // two independent hashes of each
    for (auto& [w, node] : seen) {
        distinct.insert(node);
        u64 h1 = 1, h2 = 2;
        for (size_t i = w.size(); i-- > 0;) {
            h1 = h1 * 0x9e3779b97f4a7c15ull + w[i] + 1;
            h2 = (h2 ^ (w[i] + 0x632be59bd9b4e019ull)) * 0xc2b2ae3d27d4eb4full;
            suffixes.emplace(h1, h2);
        }
    }
    BOOST_TEST(distinct.size() == seen.size()); // another stack, another node
    BOOST_TEST(tree.size() == suffixes.size());
    tree.reset();
}

BOOST_AUTO_TEST_CASE(sorted_ids_are_found_or_not) {
    const u32 ids[] = {2, 5, 9, 100, 4000000000u};
    BOOST_TEST(find_sorted_id(ids, 5, 2) == 0u);
    BOOST_TEST(find_sorted_id(ids, 5, 9) == 2u);
    BOOST_TEST(find_sorted_id(ids, 5, 4000000000u) == 4u);
    for (u32 absent : {0u, 3u, 99u, 101u, 4000000001u})
        BOOST_TEST(find_sorted_id(ids, 5, absent) == 5u);
    BOOST_TEST(find_sorted_id(ids, 0, 2) == 0u);
}

BOOST_AUTO_TEST_CASE(sparse_series_keep_changes_and_non_zero_buckets) {
    const long long levels[] = {0, 0, 64, 64, 64, 0, 0, 32};
    std::vector<long long> got;
    for_each_change(levels, 8, [&](u32 i, long long v) { got.push_back(i), got.push_back(v); });
    BOOST_TEST(got == (std::vector<long long>{2, 64, 5, 0, 7, 32}));
    got.clear();
    const unsigned long long alloc[] = {0, 5, 0, 0, 9};
    for_each_nonzero(alloc, 5,
                     [&](u32 i, unsigned long long v) { got.push_back(i), got.push_back(v); });
    BOOST_TEST(got == (std::vector<long long>{1, 5, 4, 9}));
}

// One site's rate reads the same in the log, `show` and the HTML page: 4
// significant digits as printf's %+.4g gives them (no exponent from 0.001
// on), whole with commas from 1,000 on.
BOOST_AUTO_TEST_CASE(rates_have_four_significant_digits_or_commas) {
    std::mt19937_64 rng(45);
    std::uniform_real_distribution<double> exponent(-3, 2.999);
    for (int i = 0; i < 20000; ++i) {
        double v = std::pow(10.0, exponent(rng)) * (i % 3 ? 1 : -1);
        char ours[kDecimalBuf], theirs[64];
        format_rate(v, ours);
        std::snprintf(theirs, sizeof theirs, "%+.4g", v);
        if (std::strchr(theirs, 'e')) continue; // 999.95 and up round to an exponent there
        // Ties may round the other way (binary fractions): equal or one unit apart.
        BOOST_TEST_CONTEXT(v) {
            BOOST_TEST(std::fabs(std::atof(ours) - std::atof(theirs)) <= std::fabs(v) * 1.01e-3);
            BOOST_TEST(std::strlen(ours) <= std::strlen(theirs));
        }
    }
    // A reader of the report prints what the log printed, near a tie too
    // (6 decimals once turned the log's +0.02173 into show's +0.02174).
    std::uniform_real_distribution<double> tie(-0.6e-9, 0.6e-9);
    for (int i = 0; i < 200000; ++i) {
        double v = std::pow(10.0, exponent(rng) - 2);
        if (i % 2) v = (std::round(v * 1e5) + 0.5) / 1e5 + tie(rng); // a 4-digit tie at 0.0x
        char logged[kDecimalBuf], written[kDecimalBuf], shown[kDecimalBuf];
        format_rate(v, logged);
        format_decimal(v, json_decimals(v), written);
        format_rate(std::strtod(written, nullptr), shown);
        BOOST_TEST_CONTEXT(v << " written " << written) {
            BOOST_TEST(std::string(logged) == std::string(shown));
        }
    }
    auto rate = [](double v) {
        char out[kDecimalBuf];
        format_rate(v, out);
        return std::string(out);
    };
    BOOST_TEST(rate(0.0736193) == "+0.07362");
    BOOST_TEST(rate(0.25) == "+0.25");
    BOOST_TEST(rate(0) == "+0");
    BOOST_TEST(rate(999.6) == "+1,000");
    BOOST_TEST(rate(21418.2) == "+21,418");
    BOOST_TEST(rate(-1234567.8) == "-1,234,568");
    BOOST_TEST(rate(-0.0001234) == "-0.0001234");
}
