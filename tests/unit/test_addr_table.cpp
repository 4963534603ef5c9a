// The block table (core/addr_table.hpp): against a plain model, through
// growth, deletions that shift runs back, and records sharing an address.
#define BOOST_TEST_MODULE addr_table
#include <boost/test/included/unit_test.hpp>

#include "core/addr_table.hpp"

#include <cstdlib>
#include <map>
#include <random>
#include <vector>

using namespace mg;

namespace {

struct Rec {
    u64 addr;
    int serial;
};

void* alloc(usize n) {
    return std::malloc(n);
}

using Model = std::map<u64, std::vector<Rec*>>; // newest last

void check_same(const AddrTable<Rec>& t, const Model& m) {
    u64 n = 0;
    for (const auto& [addr, recs] : m) {
        n += recs.size();
        BOOST_TEST_REQUIRE(t.find(addr) == (recs.empty() ? nullptr : recs.back()));
    }
    BOOST_TEST_REQUIRE(t.size() == n);
    u64 seen = 0;
    t.for_each([&](Rec* r) {
        ++seen;
        const auto& recs = m.at(r->addr);
        BOOST_TEST_REQUIRE((std::find(recs.begin(), recs.end(), r) != recs.end()));
    });
    BOOST_TEST_REQUIRE(seen == n);
}

} // namespace

BOOST_AUTO_TEST_CASE(an_empty_table_finds_nothing) {
    AddrTable<Rec> t(alloc, std::free);
    BOOST_TEST(t.find(0x1000) == nullptr);
    BOOST_TEST(t.remove(0x1000) == nullptr);
    BOOST_TEST(t.size() == 0u);
}

BOOST_AUTO_TEST_CASE(random_adds_and_removes_match_a_map) {
    // Addresses from a small range, 16-aligned as a heap's, so that runs
    // collide, wrap around the end and shift back on removal; some are
    // declared twice over (a custom allocator's block over a live one).
    AddrTable<Rec> t(alloc, std::free);
    Model m;
    std::vector<Rec*> owned;
    std::mt19937_64 rng(7);
    for (int step = 0; step < 200000; ++step) {
        u64 addr = 0x400000 + (rng() % 6000) * 16;
        int op = static_cast<int>(rng() % 10);
        if (op < 5) {
            auto* r = new Rec{addr, step};
            owned.push_back(r);
            BOOST_TEST_REQUIRE(t.add(addr, r));
            m[addr].push_back(r);
        } else if (op < 8) {
            auto& recs = m[addr];
            Rec* want = recs.empty() ? nullptr : recs.back();
            BOOST_TEST_REQUIRE(t.remove(addr) == want);
            if (want) recs.pop_back();
        } else {
            auto& recs = m[addr];
            if (recs.empty()) continue;
            Rec* r = recs[rng() % recs.size()]; // not always the newest
            BOOST_TEST_REQUIRE(t.remove_record(addr, r));
            BOOST_TEST_REQUIRE(!t.remove_record(addr, r));
            recs.erase(std::find(recs.begin(), recs.end(), r));
        }
        if (step % 20000 == 0) check_same(t, m);
    }
    check_same(t, m);
    t.reset();
    BOOST_TEST(t.find(owned[0]->addr) == nullptr);
    for (Rec* r : owned)
        delete r;
}

BOOST_AUTO_TEST_CASE(records_sharing_an_address_come_newest_first_across_growth) {
    AddrTable<Rec> t(alloc, std::free);
    Rec a{0x1000, 1}, b{0x1000, 2}, c{0x1000, 3};
    t.add(0x1000, &a);
    t.add(0x1000, &b);
    std::vector<Rec> many(5000);
    for (u64 i = 0; i < many.size(); ++i) { // several doublings
        many[i] = Rec{0x2000 + i * 16, 0};
        t.add(many[i].addr, &many[i]);
    }
    t.add(0x1000, &c);
    BOOST_TEST(t.remove(0x1000) == &c);
    BOOST_TEST(t.remove(0x1000) == &b);
    BOOST_TEST(t.find(0x1000) == &a);
    BOOST_TEST(t.size() == many.size() + 1);
    t.reset();
}
