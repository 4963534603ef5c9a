// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of the classification rules (core/classify.hpp) and the
// statistics under them (core/trend.hpp, core/mathx.hpp).
//
// The canonical series and their expected classes are read at run time from
// classification-series.json, in the directory named by the environment
// variable MG_TEST_DATA, else by the macro MG_TEST_DATA_DIR, else data/ beside
// this source file. Build and run by hand, from the repository root:
//   g++ -std=c++17 -Wall -Wextra -O2 -I. -DMG_TEST_DATA_DIR="\"$PWD/tests/unit/data\""
//       tests/unit/test_classify.cpp -o /tmp/test_classify && /tmp/test_classify
#define BOOST_TEST_MODULE classify
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "core/classify.hpp"
#include "core/holder_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace mg;
using Series = std::vector<i64>;

namespace mg {
std::ostream& operator<<(std::ostream& os, SiteClass c) {
    return os << class_name(c);
}
} // namespace mg

namespace {

std::string data_dir() {
    if (const char* d = std::getenv("MG_TEST_DATA")) return d;
#ifdef MG_TEST_DATA_DIR
    return MG_TEST_DATA_DIR;
#else
    std::string src = __FILE__;
    return src.substr(0, src.find_last_of('/') + 1) + "data";
#endif
}

const nlohmann::json& canonical() {
    static const nlohmann::json j = [] {
        const std::string path = data_dir() + "/classification-series.json";
        std::ifstream in(path);
        BOOST_TEST_REQUIRE(in.good(), "cannot open " << path);
        return nlohmann::json::parse(in);
    }();
    return j;
}

Series canonical_series(const std::string& name) {
    return canonical().at("series").at(name).at("series").get<Series>();
}

// The caller's default warm-up: ceil(5% of the buckets).
unsigned default_warmup(std::size_t n) {
    return static_cast<unsigned>(std::ceil(0.05 * n));
}

Growth classify_clock(const Series& s, unsigned warmup) {
    ClassifyParams p;
    p.warmup_buckets = warmup;
    return classify(s.data(), static_cast<unsigned>(s.size()), nullptr, 0, p);
}

Growth classify_clock(const Series& s) {
    return classify_clock(s, default_warmup(s.size()));
}

Growth classify_marked(const Series& s, const Series& mark_live, unsigned mark_warmup) {
    ClassifyParams p;
    p.warmup_buckets = default_warmup(s.size());
    p.mark_warmup = mark_warmup;
    return classify(s.data(), static_cast<unsigned>(s.size()), mark_live.data(),
                    static_cast<unsigned>(mark_live.size()), p);
}

// Live bytes at each mark, from the per-mark deltas.
Series cumulative(const Series& deltas, i64 base = 4096) {
    Series live{base};
    for (i64 d : deltas)
        live.push_back(live.back() + d);
    return live;
}

Series make(unsigned n, i64 (*f)(unsigned)) {
    Series s(n);
    for (unsigned i = 0; i < n; ++i)
        s[i] = f(i);
    return s;
}

// Deterministic uniform noise in [-amplitude, amplitude] (a PCG-style LCG;
// the standard distributions differ between library implementations).
struct Noise {
    u64 state;
    i64 operator()(i64 amplitude) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = static_cast<double>(state >> 11) / 9007199254740992.0; // [0, 1)
        return static_cast<i64>((2 * u - 1) * static_cast<double>(amplitude));
    }
};

// What every verdict must satisfy whatever its class.
void check_evidence(const Growth& g, unsigned n) {
    BOOST_TEST(g.confidence >= 0.0);
    BOOST_TEST(g.confidence <= 1.0);
    switch (g.cls) {
    case SiteClass::stable:
        BOOST_TEST(std::string(g.rule) == "none");
        BOOST_TEST(g.steps == 0u);
        BOOST_TEST(g.next_step == -1.0);
        BOOST_TEST(g.rate == 0.0);
        BOOST_TEST(g.began == -1);
        BOOST_TEST(g.stopped == -1);
        break;
    case SiteClass::growing:
        BOOST_TEST((std::string(g.rule) == "trend" || std::string(g.rule) == "refleak" ||
                    std::string(g.rule) == "staircase" || std::string(g.rule) == "floor"));
        BOOST_TEST(g.confidence > 0.5);
        BOOST_TEST(g.stopped == -1);
        if (std::string(g.rule) != "refleak") {
            BOOST_TEST(g.rate > 0.0);
            BOOST_TEST(g.began >= 0);
            BOOST_TEST(g.began < static_cast<int>(n));
        }
        // A growing staircase's next step is not yet overdue.
        if (std::string(g.rule) == "staircase") BOOST_TEST(g.next_step > g.began);
        break;
    case SiteClass::plateau:
        BOOST_TEST(std::string(g.rule) == "level");
        BOOST_TEST(g.confidence > 0.0);
        BOOST_TEST(g.began >= 0);
        BOOST_TEST(g.began <= g.stopped);
        BOOST_TEST(g.stopped < static_cast<int>(n));
        break;
    case SiteClass::leaked:
        BOOST_FAIL("classify never decides leaked");
    }
}

} // namespace

BOOST_AUTO_TEST_SUITE(mathx_helpers)

BOOST_AUTO_TEST_CASE(sqrt_matches_libm_at_every_magnitude) {
    for (double x :
         {1e-300, 1e-20, 0.25, 1.0, 2.0, 3.99, 4.0, 10.0, 12345.678, 1e15, 0x1p50, 1e100, 1e300}) {
        BOOST_TEST_CONTEXT("x = " << x) {
            BOOST_TEST(mathx::sqrt(x) == std::sqrt(x), boost::test_tools::tolerance(1e-15));
        }
    }
    BOOST_TEST(mathx::sqrt(0.0) == 0.0);
    BOOST_TEST(mathx::sqrt(-4.0) == 0.0);
}

BOOST_AUTO_TEST_CASE(exp_matches_libm) {
    for (double x = -700; x <= 700; x += 0.37) {
        BOOST_TEST_CONTEXT("x = " << x) {
            BOOST_TEST(mathx::exp(x) == std::exp(x), boost::test_tools::tolerance(1e-13));
        }
    }
    BOOST_TEST(mathx::exp(0.0) == 1.0);
    BOOST_TEST(mathx::exp(-1000.0) == 0.0);
    BOOST_TEST(mathx::exp(1000.0) == mathx::kMaxDouble);
}

BOOST_AUTO_TEST_CASE(normal_cdf_matches_erfc) {
    for (double z = -8; z <= 8; z += 0.01) {
        BOOST_TEST_CONTEXT("z = " << z) {
            const double want = 0.5 * std::erfc(-z / std::sqrt(2.0));
            BOOST_TEST(std::fabs(mathx::normal_cdf(z) - want) < 2e-7);
        }
    }
    BOOST_TEST(mathx::normal_cdf(2.326) == 0.99, boost::test_tools::tolerance(1e-4));
}

BOOST_AUTO_TEST_CASE(sort_and_median) {
    Noise noise{1};
    for (unsigned n : {0u, 1u, 2u, 3u, 10u, 63u, 64u, 2016u}) {
        std::vector<double> a(n);
        for (double& v : a)
            v = static_cast<double>(noise(1000) % 17); // many ties
        std::vector<double> want = a;
        std::sort(want.begin(), want.end());
        mathx::sort(a.data(), n);
        BOOST_TEST(a == want, boost::test_tools::per_element());
    }
    i64 odd[] = {5, -3, 9};
    BOOST_TEST(mathx::median(odd, 3) == 5.0);
    i64 even[] = {1LL << 50, (1LL << 50) + 2, 0, 7};
    BOOST_TEST(mathx::median(even, 4) == 0.5 * 7 + 0.5 * static_cast<double>(1LL << 50));
    BOOST_TEST(mathx::median(even, 0) == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(trend_statistics)

BOOST_AUTO_TEST_CASE(mann_kendall_without_and_with_ties) {
    const i64 rising[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    MannKendall mk = mann_kendall(rising, 10);
    BOOST_TEST(mk.s == 45);
    BOOST_TEST(mk.var == 125.0, boost::test_tools::tolerance(1e-12)); // n(n-1)(2n+5)/18
    BOOST_TEST(mk.z == 44 / std::sqrt(125.0), boost::test_tools::tolerance(1e-12));

    const i64 tied[] = {1, 1, 2}; // one pair of ties: var = (3*2*11 - 2*1*9)/18
    mk = mann_kendall(tied, 3);
    BOOST_TEST(mk.s == 2);
    BOOST_TEST(mk.var == 48.0 / 18, boost::test_tools::tolerance(1e-12));

    const i64 flat[] = {7, 7, 7, 7};
    mk = mann_kendall(flat, 4);
    BOOST_TEST(mk.s == 0);
    BOOST_TEST(mk.var == 0.0);
    BOOST_TEST(mk.z == 0.0);
    BOOST_TEST(mann_kendall(nullptr, 0).z == 0.0);
}

BOOST_AUTO_TEST_CASE(theil_sen_ignores_outliers) {
    const i64 line[] = {10, 13, 16, 19, 22, 25, 1000000, 31, 34};
    BOOST_TEST(theil_sen(line, 9) == 3.0);
    const i64 one[] = {5};
    BOOST_TEST(theil_sen(one, 1) == 0.0);
}

BOOST_AUTO_TEST_CASE(rank_sum_orders_windows) {
    const i64 lo[] = {1, 2, 3, 4, 5};
    const i64 hi[] = {10, 11, 12, 13, 14};
    BOOST_TEST(rank_sum_z(lo, 5, hi, 5) > 2.0);
    BOOST_TEST(rank_sum_z(hi, 5, lo, 5) < -2.0);
    BOOST_TEST(rank_sum_z(lo, 5, lo, 5) == 0.0);
    BOOST_TEST(rank_sum_z(lo, 0, hi, 5) == 0.0);
}

BOOST_AUTO_TEST_CASE(noise_sigma_sees_noise_not_trend) {
    Series line = make(64, [](unsigned i) { return static_cast<i64>(1000 * i); });
    BOOST_TEST(noise_sigma(line.data(), 64) == 0.0);
    Noise noise{3};
    Series noisy(64);
    for (unsigned i = 0; i < 64; ++i)
        noisy[i] = 1000 * i + noise(10000); // sigma 10000/sqrt 3
    BOOST_TEST(noise_sigma(noisy.data(), 64) == 10000 / std::sqrt(3.0),
               boost::test_tools::tolerance(0.35));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(canonical_data)

BOOST_AUTO_TEST_CASE(every_series_gets_its_class) {
    const auto& all = canonical().at("series");
    BOOST_TEST_REQUIRE(!all.empty());
    for (const auto& [name, entry] : all.items()) {
        BOOST_TEST_CONTEXT("series " << name << " (" << entry.value("why", "") << ")") {
            const Series s = entry.at("series").get<Series>();
            const Growth g = classify_clock(s);
            BOOST_TEST(class_name(g.cls) == entry.at("class").get<std::string>());
            check_evidence(g, static_cast<unsigned>(s.size()));
            BOOST_TEST_MESSAGE(name << ": " << class_name(g.cls) << " rule=" << g.rule << " z="
                                    << g.z << " rate=" << g.rate << " confidence=" << g.confidence
                                    << " began=" << g.began << " stopped=" << g.stopped
                                    << " steps=" << g.steps << " next_step=" << g.next_step);
        }
    }
}

BOOST_AUTO_TEST_CASE(every_mark_sequence_gets_its_class) {
    const auto& all = canonical().at("mark_deltas");
    BOOST_TEST_REQUIRE(!all.empty());
    for (const auto& [name, entry] : all.items()) {
        BOOST_TEST_CONTEXT("mark deltas " << name << " (" << entry.value("why", "") << ")") {
            const Series deltas = entry.at("deltas").get<Series>();
            const unsigned warmup = entry.at("warmup").get<unsigned>();
            const std::string want = entry.at("class").get<std::string>();
            BOOST_TEST(refleak_growing(deltas.data(), static_cast<unsigned>(deltas.size()),
                                       warmup) == (want == "growing"));
            const Series live = cumulative(deltas);
            const Series flat(64, live.back());
            const Growth g = classify_marked(flat, live, warmup);
            BOOST_TEST(class_name(g.cls) == want);
            BOOST_TEST(g.marks_used == deltas.size() - warmup);
            check_evidence(g, 64);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(edge_cases)

BOOST_AUTO_TEST_CASE(empty_and_short_series_are_stable) {
    ClassifyParams p;
    BOOST_TEST(classify(nullptr, 0, nullptr, 0, p).cls == SiteClass::stable);
    BOOST_TEST(classify(nullptr, 5, nullptr, 0, p).cls == SiteClass::stable);
    // A steep rise or a late jump: too short to judge below 9 buckets.
    for (unsigned n = 1; n <= 8; ++n) {
        BOOST_TEST_CONTEXT("n = " << n) {
            const Series rise = make(n, [](unsigned i) { return static_cast<i64>(i) << 20; });
            Series jump(n, 0);
            jump.back() = 1 << 20;
            for (const Series& s : {rise, jump}) {
                const Growth g = classify_clock(s);
                BOOST_TEST(g.cls == SiteClass::stable);
                check_evidence(g, n);
            }
        }
    }
    // Short but long enough (8 post-warm-up buckets): the trend test looks at
    // 6 buckets at least, so a steady rise is growing (a start-up-heavy
    // interpreter leaves a short script few buckets after its warm-up).
    for (unsigned n = 9; n <= 17; ++n) {
        BOOST_TEST_CONTEXT("n = " << n) {
            const Series rise = make(n, [](unsigned i) { return static_cast<i64>(i) << 20; });
            BOOST_TEST(classify_clock(rise).cls == SiteClass::growing);
        }
    }
    // A rise that stopped half-way through those 6 buckets is not growing.
    const Series stopped =
        make(12, [](unsigned i) { return static_cast<i64>(i < 9 ? i : 9) << 20; });
    BOOST_TEST(classify_clock(stopped).cls != SiteClass::growing);
}

BOOST_AUTO_TEST_CASE(constant_series_are_stable) {
    for (i64 level : {0LL, 1LL, 4096LL, 1LL << 50, -5000LL}) {
        BOOST_TEST_CONTEXT("level " << level) {
            const Series s(64, level);
            const Growth g = classify_clock(s);
            BOOST_TEST(g.cls == SiteClass::stable);
            BOOST_TEST(g.z == 0.0);
            check_evidence(g, 64);
        }
    }
}

BOOST_AUTO_TEST_CASE(growth_inside_the_warmup_is_stable) {
    // Fills over the first 10 buckets, then holds.
    const Series s = make(64, [](unsigned i) { return i < 10 ? i * 10000LL : 100000LL; });
    BOOST_TEST(classify_clock(s, 10).cls == SiteClass::stable);
    // The same series with a shorter warm-up rose after it: a plateau.
    BOOST_TEST(classify_clock(s, 4).cls == SiteClass::plateau);
}

// Choice: one step is a plateau when the last third is flat; growing when it
// lies inside the last third (from its 4th bucket) and the level holds to the
// end; stable when it comes too late to be held (the last two buckets).
BOOST_AUTO_TEST_CASE(single_late_step) {
    auto step_at = [](unsigned b) {
        Series s(64, 100000);
        for (unsigned i = b; i < 64; ++i)
            s[i] = 150000;
        return s;
    };
    Growth g = classify_clock(step_at(40)); // last third: buckets 44..63
    BOOST_TEST(g.cls == SiteClass::plateau);
    BOOST_TEST(g.began == 40);
    BOOST_TEST(g.stopped == 40);
    BOOST_TEST(g.rate == 50000.0);
    check_evidence(g, 64);

    BOOST_TEST(classify_clock(step_at(46)).cls == SiteClass::plateau);
    g = classify_clock(step_at(47));
    BOOST_TEST(g.cls == SiteClass::growing);
    BOOST_TEST(g.began == 47);
    check_evidence(g, 64);
    BOOST_TEST(classify_clock(step_at(54)).cls == SiteClass::growing);
    BOOST_TEST(classify_clock(step_at(61)).cls == SiteClass::growing);
    BOOST_TEST(classify_clock(step_at(62)).cls == SiteClass::stable);
}

BOOST_AUTO_TEST_CASE(sparse_steps_that_keep_coming) {
    for (unsigned every : {4u, 8u, 12u, 16u}) {
        BOOST_TEST_CONTEXT("a step every " << every << " buckets") {
            Series s(64);
            for (unsigned i = 0; i < 64; ++i)
                s[i] = 50000 + 8000LL * (i / every);
            const Growth g = classify_clock(s);
            BOOST_TEST(g.cls == SiteClass::growing);
            check_evidence(g, 64);
        }
    }
    // Steps that stopped coming before the last third: a plateau.
    const Series stopped =
        make(64, [](unsigned i) { return 50000 + 8000LL * (i < 36 ? i / 6 : 6); });
    const Growth g = classify_clock(stopped);
    BOOST_TEST(g.cls == SiteClass::plateau);
    BOOST_TEST(g.stopped == 36);
}

BOOST_AUTO_TEST_CASE(slow_leak_under_heavy_noise) {
    // 1000 B per bucket under noise of +-5000 B (sigma ~2900): the rise per
    // bucket is a third of the noise, yet the rank test sees the trend.
    Noise noise{12345};
    Series leak(64), flat(64);
    for (unsigned i = 0; i < 64; ++i) {
        leak[i] = 200000 + 1000LL * i + noise(5000);
        flat[i] = 200000 + noise(5000);
    }
    const Growth g = classify_clock(leak);
    BOOST_TEST(g.cls == SiteClass::growing);
    BOOST_TEST(g.rate == 1000.0, boost::test_tools::tolerance(0.5));
    check_evidence(g, 64);
    BOOST_TEST(classify_clock(flat).cls == SiteClass::stable);
}

BOOST_AUTO_TEST_CASE(huge_and_negative_values) {
    const Series rise =
        make(64, [](unsigned i) { return (1LL << 50) + (static_cast<i64>(i) << 44); });
    Growth g = classify_clock(rise);
    BOOST_TEST(g.cls == SiteClass::growing);
    BOOST_TEST(g.rate == static_cast<double>(1LL << 44));

    const Series filled =
        make(64, [](unsigned i) { return i < 30 ? static_cast<i64>(i) << 45 : 30LL << 45; });
    g = classify_clock(filled);
    BOOST_TEST(g.cls == SiteClass::plateau);
    BOOST_TEST(g.stopped == 30);

    const i64 top = 0x7fffffffffffffffLL, bottom = -top - 1;
    Series extreme(64);
    for (unsigned i = 0; i < 64; ++i)
        extreme[i] = i % 2 ? top : bottom;
    check_evidence(classify_clock(extreme), 64);
    const Series extreme_marks = {bottom, top, bottom, top, top};
    check_evidence(classify_marked(extreme, extreme_marks, 1), 64);

    // Live bytes are never negative; if they were, the rules stay symmetric.
    const Series negative = make(64, [](unsigned i) { return -100000 + 1000LL * i; });
    BOOST_TEST(classify_clock(negative).cls == SiteClass::growing);
}

BOOST_AUTO_TEST_CASE(sawtooth_at_every_phase_is_stable) {
    for (unsigned phase = 0; phase < 8; ++phase) {
        BOOST_TEST_CONTEXT("phase " << phase) {
            Series s(64);
            for (unsigned i = 0; i < 64; ++i)
                s[i] = 10000LL * ((i + phase) % 8);
            BOOST_TEST(classify_clock(s).cls == SiteClass::stable);
        }
    }
}

BOOST_AUTO_TEST_CASE(released_before_the_end_is_stable) {
    // Filled to 100 KB by bucket 20, held, then freed over the last 6 buckets.
    const Series s = make(64, [](unsigned i) {
        return i < 20 ? 5000LL * i : i < 58 ? 100000LL : 100000LL - 16000LL * (i - 57);
    });
    BOOST_TEST(classify_clock(s).cls == SiteClass::stable);
    // Gave back over a quarter of its rise by the end, in a slow decline: stable too.
    const Series decline = make(64, [](unsigned i) {
        return i < 20 ? 5000LL * i : i < 44 ? 100000LL : 100000LL - 1700LL * (i - 43);
    });
    BOOST_TEST(classify_clock(decline).cls == SiteClass::stable);
}

BOOST_AUTO_TEST_CASE(release_in_the_last_bucket_is_shutdown) {
    // A local of main() grown through the run and freed as main returns: the
    // history before the last bucket decides, and the evidence says so.
    const Series grown = make(64, [](unsigned i) { return i < 63 ? 1000LL * i : 0LL; });
    const Growth g = classify_clock(grown);
    BOOST_TEST(g.cls == SiteClass::growing);
    BOOST_TEST(g.released_at_end);
    BOOST_TEST(g.rate == 1000.0, boost::test_tools::tolerance(0.01));
    // A cache that filled, held, and was cleared at shutdown: plateau.
    const Series cache = make(64, [](unsigned i) {
        return i == 63 ? 0LL : i < 20 ? 5000LL * i : 100000LL;
    });
    const Growth c = classify_clock(cache);
    BOOST_TEST(c.cls == SiteClass::plateau);
    BOOST_TEST(c.released_at_end);
    // Less than half given back in the last bucket: an ordinary series.
    const Series partial = make(64, [](unsigned i) { return i < 63 ? 1000LL * i : 40000LL; });
    BOOST_TEST(!classify_clock(partial).released_at_end);
    // Without the release, the flag stays off.
    BOOST_TEST(!classify_clock(canonical_series("steady_rise")).released_at_end);
}

BOOST_AUTO_TEST_CASE(a_zero_delta_after_warmup_is_not_growing) {
    const Series deltas = {100, 96, 96, 0, 96, 96};
    BOOST_TEST(!refleak_growing(deltas.data(), 6, 1));
    const Growth g = classify_marked(Series(64, 8192), cumulative(deltas), 1);
    BOOST_TEST(g.cls == SiteClass::stable);
    BOOST_TEST(g.marks_used == 5u);
    BOOST_TEST(g.marks_adding == 4u);
    BOOST_TEST(g.rate_per_mark == 96.0);
    // The warm-up may hide a zero, never one after it; no delta at all is not growth.
    BOOST_TEST(refleak_growing(deltas.data(), 3, 1));
    BOOST_TEST(!refleak_growing(deltas.data(), 1, 1));
    BOOST_TEST(!refleak_growing(nullptr, 0, 0));
}

BOOST_AUTO_TEST_CASE(marks_override_a_rising_clock) {
    const Series rise = canonical_series("steady_rise");
    BOOST_TEST(classify_clock(rise).cls == SiteClass::growing);
    // Not every repetition adds: not growing, whatever the clock says.
    const Growth g = classify_marked(rise, cumulative({500, 3, 0, 0}), 1);
    BOOST_TEST(g.cls != SiteClass::growing);
    BOOST_TEST(g.cls == SiteClass::plateau); // the level rule still reads the clock
    BOOST_TEST(g.marks_used == 3u);
    check_evidence(g, 64);
    // A single post-warm-up delta is no mark view: the clock decides.
    const Growth one = classify_marked(rise, cumulative({500, 0}), 1);
    BOOST_TEST(one.cls == SiteClass::growing);
    BOOST_TEST(std::string(one.rule) == "trend");
    BOOST_TEST(one.marks_used == 0u);
}

// A program that marks 48 requests, then stops marking and grows in a
// straight line to its end (issue 32): the marks' "no" covers the buckets
// they span, and the clock judges the rest.
BOOST_AUTO_TEST_CASE(growth_after_the_last_mark_is_growth) {
    Series s(64, 8192);
    for (unsigned i = 12; i < 64; ++i)
        s[i] = 8192 + 6000 * static_cast<i64>(i - 11);
    const Series flat_marks(49, 8192); // 48 marks that added nothing
    ClassifyParams p;
    p.warmup_buckets = 1;
    p.marks_end = 11;
    const Growth g = classify(s.data(), 64, flat_marks.data(), 49, p);
    BOOST_TEST(g.cls == SiteClass::growing);
    BOOST_TEST(std::string(g.rule) == "trend");
    BOOST_TEST(g.after_marks);
    BOOST_TEST(g.marks_used == 47u);
    BOOST_TEST(g.marks_adding == 0u);
    BOOST_TEST(g.began >= 11);
    check_evidence(g, 64);
    // Marks that went on to the end keep their veto.
    p.marks_end = 63;
    const Growth marked = classify(s.data(), 64, flat_marks.data(), 49, p);
    BOOST_TEST(marked.cls != SiteClass::growing);
    BOOST_TEST(!marked.after_marks);
    // A flat span after the marks changes nothing.
    Series flat_after = s;
    for (unsigned i = 12; i < 64; ++i)
        flat_after[i] = 8192;
    p.marks_end = 11;
    BOOST_TEST(classify(flat_after.data(), 64, flat_marks.data(), 49, p).cls == SiteClass::stable);
}

BOOST_AUTO_TEST_CASE(deterministic_and_input_untouched) {
    const Series s = canonical_series("rise_with_noise");
    const Series copy = s;
    const Growth a = classify_clock(s), b = classify_clock(s);
    BOOST_TEST(s == copy, boost::test_tools::per_element());
    BOOST_TEST(a.cls == b.cls);
    BOOST_TEST(a.rate == b.rate);
    BOOST_TEST(a.z == b.z);
    BOOST_TEST(a.began == b.began);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(evidence)

BOOST_AUTO_TEST_CASE(steady_rise_rate) {
    const Growth g = classify_clock(canonical_series("steady_rise"));
    BOOST_TEST(g.rate == 1000.0, boost::test_tools::tolerance(0.01));
    BOOST_TEST(g.began >= 0);
    BOOST_TEST(g.began <= 4);
    BOOST_TEST(g.confidence > 0.0);
    BOOST_TEST(g.confidence <= 1.0);
}

BOOST_AUTO_TEST_CASE(late_start_began) {
    const Growth g = classify_clock(canonical_series("late_start"));
    BOOST_TEST(g.began == 44);
    BOOST_TEST(g.rate == 3000.0, boost::test_tools::tolerance(0.01));
}

BOOST_AUTO_TEST_CASE(plateau_began_and_stopped) {
    const Growth g = classify_clock(canonical_series("rise_then_flat_40pct"));
    BOOST_TEST(g.began >= 0);
    BOOST_TEST(g.began <= 4);
    BOOST_TEST(g.stopped >= 25);
    BOOST_TEST(g.stopped <= 27);
    BOOST_TEST(g.rate == 4000.0, boost::test_tools::tolerance(0.01));
    BOOST_TEST(g.confidence > 0.0);
    BOOST_TEST(g.confidence <= 1.0);
    const Growth noisy = classify_clock(canonical_series("rise_then_flat_noisy"));
    BOOST_TEST(noisy.stopped >= 26);
    BOOST_TEST(noisy.stopped <= 32);
}

BOOST_AUTO_TEST_CASE(refleak_rate_per_mark) {
    const auto& entry = canonical().at("mark_deltas").at("refleak_every_repetition_adds");
    const Series deltas = entry.at("deltas").get<Series>();
    const Growth g =
        classify_marked(Series(64, 8192), cumulative(deltas), entry.at("warmup").get<unsigned>());
    BOOST_TEST(g.rate_per_mark == 96.0, boost::test_tools::tolerance(0.01));
    BOOST_TEST(std::string(g.rule) == "refleak");
    BOOST_TEST(g.marks_adding == g.marks_used);
    BOOST_TEST(g.confidence > 0.0);
    BOOST_TEST(g.confidence <= 1.0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(resize_staircase)

// The table of a dict filled with `per_bucket` keys per bucket until bucket
// `stop` (CPython: 8 slots, usable 2/3, the table doubles when full; 24 bytes
// an entry, 1 byte an index) over a constant `base`.
Series dict_table(unsigned n, double per_bucket, unsigned stop, i64 base = 0) {
    Series s(n);
    double size = 8;
    for (unsigned i = 0; i < n; ++i) {
        const double keys = per_bucket * (i < stop ? i + 1 : stop);
        while (keys > size * 2 / 3)
            size *= 2;
        s[i] = base + static_cast<i64>(size + size * 2 / 3 * 24);
    }
    return s;
}

BOOST_AUTO_TEST_CASE(canonical_staircase_evidence) {
    const Growth g = classify_clock(canonical_series("resize_staircase_not_due"));
    BOOST_TEST(std::string(g.rule) == "staircase");
    BOOST_TEST(g.steps >= 4u);
    BOOST_TEST(g.next_step > 63.0); // due after the end of the run
    BOOST_TEST(g.next_step < 80.0);
    const Growth bounded = classify_clock(canonical_series("resize_staircase_then_bounded"));
    BOOST_TEST(std::string(bounded.rule) == "level");
    BOOST_TEST(bounded.steps == 3u); // an overdue staircase, named in the evidence
    BOOST_TEST(bounded.next_step < 20.0);
}

BOOST_AUTO_TEST_CASE(a_filling_dict_is_growing_at_every_rate) {
    // From one resize every few buckets to a few resizes in the whole run.
    for (double per_bucket : {3.0, 10.0, 40.0, 72.0, 150.0, 400.0}) {
        BOOST_TEST_CONTEXT("keys per bucket " << per_bucket) {
            for (i64 base : {0LL, 20000LL}) {
                const Series s = dict_table(64, per_bucket, 64, base);
                const Growth g = classify_clock(s);
                BOOST_TEST(g.cls == SiteClass::growing);
                check_evidence(g, 64);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(overdue_by_the_margin_is_a_plateau) {
    // Filling stops at `stop`: growing while the tail after the last step is
    // within (1 + margin) of the predicted interval, a plateau after.
    for (unsigned stop = 20; stop <= 64; ++stop) {
        BOOST_TEST_CONTEXT("filling stopped at " << stop) {
            const Series s = dict_table(64, 40, stop);
            const Growth g = classify_clock(s);
            unsigned last = 0;
            for (unsigned i = 1; i < 64; ++i)
                if (s[i] > s[i - 1]) last = i;
            if (g.cls == SiteClass::growing && std::string(g.rule) == "staircase") {
                BOOST_TEST(63 - last <= 1.5 * (g.next_step - last));
            } else {
                BOOST_TEST(g.cls == SiteClass::plateau);
                BOOST_TEST(g.steps >= 3u);
                BOOST_TEST(63 - last > 1.5 * (g.next_step - last));
            }
        }
    }
    BOOST_TEST(classify_clock(dict_table(64, 40, 64)).cls == SiteClass::growing);
    BOOST_TEST(classify_clock(dict_table(64, 40, 30)).cls == SiteClass::plateau);
}

BOOST_AUTO_TEST_CASE(a_bucket_that_ended_mid_resize_is_one_step) {
    // The new table is allocated (moving the bytes-allocated clock) before
    // the old one is freed: the bucket ends holding both.
    Series s = canonical_series("resize_staircase_not_due");
    s[37] = 32768 + 65536;
    const Growth g = classify_clock(s);
    BOOST_TEST(std::string(g.rule) == "staircase");
    BOOST_TEST(g.next_step > 63.0);
    // A large table moves the bytes-allocated clock over several buckets
    // while the old one is still live (a token-statistics dict's table,
    // 59 buckets, warm-up 7, as measured on CPython 3.11).
    const Series dict = {
        0,       0,       0,       0,       0,       0,       25968,   103792,  207552,  207552,
        415088,  415088,  415088,  415088,  1376304, 961216,  961216,  961216,  961216,  961216,
        961216,  961216,  2883632, 1922416, 1922416, 1922416, 1922416, 1922416, 1922416, 1922416,
        1922416, 1922416, 1922416, 1922416, 1922416, 1922416, 1922416, 1922416, 5767216, 5767216,
        3844800, 3844800, 3844800, 3844800, 3844800, 3844800, 3844800, 3844800, 3844800, 3844800,
        3844800, 3844800, 3844800, 3844800, 3844800, 3844800, 3844800, 3844800, 3844800};
    const Growth d = classify_clock(dict, 7);
    BOOST_TEST(std::string(d.rule) == "staircase");
    BOOST_TEST(d.next_step > 58.0);
    // A fall that gives back more than the rise is a release, not a resize.
    s[38] = 16384;
    BOOST_TEST(classify_clock(s).steps == 0u);
}

BOOST_AUTO_TEST_CASE(what_is_not_a_staircase) {
    // Equal steps at widening intervals: growth slowing down, not a filling table.
    Series slowing(64, 0);
    for (unsigned i = 0; i < 64; ++i)
        slowing[i] = 4096 * ((i >= 4) + (i >= 9) + (i >= 18) + (i >= 37));
    BOOST_TEST(classify_clock(slowing).steps == 0u);
    BOOST_TEST(classify_clock(slowing).cls == SiteClass::plateau);
    // The same staircase with a release after the warm-up.
    Series dropped = canonical_series("resize_staircase_not_due");
    for (unsigned i = 20; i < 24; ++i)
        dropped[i] = 1024;
    BOOST_TEST(classify_clock(dropped).steps == 0u);
    BOOST_TEST(classify_clock(dropped).cls != SiteClass::growing);
    // Marks decide growth when there are enough of them.
    const Series s = canonical_series("resize_staircase_not_due");
    BOOST_TEST(classify_marked(s, Series{0, 0, 0, 0, 0}, 1).cls == SiteClass::plateau);
    // Staircases inside the warm-up are a start-up's.
    Series early(64, 8192);
    early[0] = 1024, early[1] = 2048, early[2] = 4096, early[3] = 4096;
    BOOST_TEST(classify_clock(early).cls == SiteClass::stable);
}

BOOST_AUTO_TEST_CASE(noise_never_makes_a_staircase) {
    Noise noise{17};
    unsigned growing = 0;
    for (unsigned run = 0; run < 2000; ++run) {
        Series s(64);
        for (unsigned i = 0; i < 64; ++i)
            s[i] = 100000 + noise(5000);
        const Growth g = classify_clock(s);
        growing += g.cls == SiteClass::growing;
        BOOST_TEST(g.steps == 0u);
    }
    // The trend test alone lets 1 % through; a rise must also clear the
    // noise band.
    BOOST_TEST(growing == 0u);
}

BOOST_AUTO_TEST_CASE(one_buffer_of_random_size_is_never_growing) {
    // A steady loop keeps one buffer of 100 to 5000 bytes live; at each
    // bucket's end it is another one. Seen on CPython 3.14 as "growing" by
    // the trend rule (z = 3.2) before the rise had to clear the noise.
    Noise noise{29};
    unsigned growing = 0;
    for (unsigned run = 0; run < 2000; ++run) {
        Series s(44);
        for (unsigned i = 13; i < 44; ++i)
            s[i] = 2550 + noise(2450);
        growing += classify_clock(s, 13).cls == SiteClass::growing;
    }
    BOOST_TEST(growing == 0u);
}

// Buffers rebuilt longer each turn, sampled by the instruction clock while
// a copy is made (old and new copy live): spikes above a floor that rises
// to the end (issue 43, B11, py_grow_bytes.py under --time-unit=i). Four
// buffers were a plateau by the level rule, one was stable.
BOOST_AUTO_TEST_CASE(a_floor_rising_under_rebuild_spikes_is_growing) {
    const Series four = {0,      42332,  78265,  97765,  114265, 103032, 113532, 153965,
                         165265, 175865, 185865, 195365, 163532, 170532, 177232, 183732,
                         237465, 245065, 252465, 207732, 213332, 273465, 280065, 286565,
                         292965, 299265, 244232, 249032, 253732, 322965, 262932, 334265,
                         339765, 276132, 350465, 355765, 288732, 292832, 371065, 300132};
    const Series one = {0,      25356, 18753, 23433,  27393,  61776,  68076,  36933,  39633, 42183,
                        44583,  46863, 49053, 102276, 106296, 110196, 56973,  58803,  60573, 124596,
                        127956, 65613, 67203, 68763,  70293,  71793,  146496, 149376, 76113, 77493,
                        157716, 80193, 81513, 165636, 84093,  85353,  173196, 175656, 89043, 90033};
    for (const Series* s : {&four, &one}) {
        const Growth g = classify_clock(*s);
        BOOST_TEST(g.cls == SiteClass::growing);
        check_evidence(g, static_cast<unsigned>(s->size()));
    }
    BOOST_TEST(std::string(classify_clock(one).rule) == "floor");
}

// Spikes of a copy in flight above a floor that stays flat, single or in
// runs: never growing by the floor.
BOOST_AUTO_TEST_CASE(spikes_above_a_flat_floor_are_not_growing) {
    Noise noise{43};
    unsigned floor_growing = 0;
    for (unsigned run = 0; run < 2000; ++run) {
        Series s(40);
        bool spike = false;
        for (unsigned i = 0; i < 40; ++i) {
            spike = spike ? noise(100) > -20 : noise(100) > 40; // runs of 2.5 on average
            s[i] = 100000 + noise(2000) + (spike ? 100000 : 0);
        }
        floor_growing += std::string(classify_clock(s).rule) == "floor";
    }
    BOOST_TEST(floor_growing == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

// The bounded-holder rule's limits (core/holder_rule.hpp): a count bounds
// bytes only while the blocks keep their size, and a native array only while
// its blocks sit side by side (a hash table's are scattered).
BOOST_AUTO_TEST_CASE(a_count_bounds_bytes_only_while_blocks_keep_their_size) {
    // Four buffers grown by realloc, 100 bytes at a time, to 100,000 each.
    BOOST_TEST(mg::blocks_grew(400000, 4, 4 * 1000 * 50050ull, 4000));
    // A ring of 256-byte records, and one of records of random size.
    BOOST_TEST(!mg::blocks_grew(500 * 256, 500, 2000 * 256, 2000));
    BOOST_TEST(!mg::blocks_grew(500 * 310, 500, 2000 * 300, 2000));
    BOOST_TEST(!mg::blocks_grew(0, 0, 100, 1));
}

BOOST_AUTO_TEST_CASE(a_native_array_bounds_only_blocks_side_by_side) {
    BOOST_TEST(mg::slots_side_by_side(1, 1000));     // filled in order
    BOOST_TEST(mg::slots_side_by_side(2, 5));        // a ring that wrapped
    BOOST_TEST(mg::slots_side_by_side(20, 500));     // a few holes
    BOOST_TEST(!mg::slots_side_by_side(3000, 3000)); // a hash table's buckets
    BOOST_TEST(!mg::slots_side_by_side(-1, 10));     // unreadable
}

BOOST_AUTO_TEST_CASE(a_container_with_no_bound_whose_items_grow_grows) {
    // All held by a dict with no bound, 98% of it in growing sub-sites.
    BOOST_TEST(mg::unbounded_growth(9082896, 9082896, 9082672, 9082896));
    // Held by it, but its growing parts are a tenth.
    BOOST_TEST(!mg::unbounded_growth(1000, 1000, 100, 1000));
    // Growing parts, but held half by a bounded holder.
    BOOST_TEST(!mg::unbounded_growth(500, 1000, 900, 1000));
    BOOST_TEST(!mg::unbounded_growth(0, 0, 0, 0));
}
