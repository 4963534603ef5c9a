// The report's JSON writer: what the tool writes must parse, whatever the
// strings and numbers it is given.
#define BOOST_TEST_MODULE json_writer
#include <boost/test/included/unit_test.hpp>

#include "core/json_writer.hpp"

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
