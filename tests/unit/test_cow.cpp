// SPDX-License-Identifier: GPL-2.0-or-later
// Copy-on-write's rules (core/cow.hpp): a copied page shared out among the
// blocks live on it at the fork.
#define BOOST_TEST_MODULE cow
#include <boost/test/unit_test.hpp>

#include "core/cow.hpp"

#include <map>
#include <string>
#include <vector>

using namespace mg;
using cow::kPageBytes;

namespace {

std::map<u32, u64> shares(const std::vector<cow::Span>& spans, u64 page, bool* any = nullptr) {
    std::map<u32, u64> out;
    bool held = cow::share_page(spans.data(), spans.size(), page,
                                [&](u32 site, u64 bytes) { out[site] += bytes; });
    if (any) *any = held;
    return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_page_inside_one_big_block_is_all_its_sites) {
    std::vector<cow::Span> spans = {{0x10000, 3 * kPageBytes, 7}};
    auto s = shares(spans, 0x11000);
    BOOST_TEST(s.size() == 1u);
    BOOST_TEST(s[7] == kPageBytes);
}

BOOST_AUTO_TEST_CASE(blocks_share_a_page_pro_rata_and_the_shares_sum_to_the_page) {
    // 1000 bytes of site 1 and 3000 bytes of site 2 on the page, 96 bytes of
    // neither (headers, free space): 1024 and 3072 of the page's 4096.
    std::vector<cow::Span> spans = {
        {0x20000 - 24, 1024, 1}, {0x20000 + 1096, 3000, 2}, {0x21000 + 16, 64, 3}};
    auto s = shares(spans, 0x20000);
    BOOST_TEST(s.size() == 2u);
    BOOST_TEST(s[1] == 1000u * kPageBytes / 4000);
    BOOST_TEST(s[1] + s[2] == kPageBytes);
}

BOOST_AUTO_TEST_CASE(many_small_blocks_of_one_site_sum_to_the_page) {
    std::vector<cow::Span> spans;
    for (u64 a = 0x30000; a < 0x32000; a += 48)
        spans.push_back({a + 16, 32, 5});
    auto s = shares(spans, 0x31000);
    BOOST_TEST(s[5] == kPageBytes);
}

BOOST_AUTO_TEST_CASE(a_page_without_blocks_is_charged_to_nothing) {
    std::vector<cow::Span> spans = {{0x10000, 100, 1}, {0x13000, 100, 2}};
    bool any = true;
    auto s = shares(spans, 0x11000, &any);
    BOOST_TEST(!any);
    BOOST_TEST(s.empty());
    BOOST_TEST(!cow::share_page(spans.data(), 0, 0x10000, [](u32, u64) {}));
}

BOOST_AUTO_TEST_CASE(the_search_finds_the_first_block_reaching_past_an_address) {
    std::vector<cow::Span> spans = {{0x1000, 0x100, 0}, {0x2000, 0x2000, 1}, {0x5000, 8, 2}};
    BOOST_TEST(cow::first_ending_after(spans.data(), 3, 0) == 0u);
    BOOST_TEST(cow::first_ending_after(spans.data(), 3, 0x1100) == 1u);
    BOOST_TEST(cow::first_ending_after(spans.data(), 3, 0x3000) == 1u);
    BOOST_TEST(cow::first_ending_after(spans.data(), 3, 0x4000) == 2u);
    BOOST_TEST(cow::first_ending_after(spans.data(), 3, 0x6000) == 3u);
}

BOOST_AUTO_TEST_CASE(an_access_spans_the_pages_of_its_first_and_last_byte) {
    BOOST_TEST(cow::first_page(0x1fff) == 0x1000u);
    BOOST_TEST(cow::last_page(0x1ffc, 8) == 0x2000u);
    BOOST_TEST(cow::last_page(0x1ff8, 8) == 0x1000u);
    BOOST_TEST(std::string(cow::region_name(cow::Region::free_heap)) == "free heap");
    BOOST_TEST(std::string(cow::region_name(cow::Region::mapped)) == "mapped");
}

// Issue 43: a MAP_SHARED mapping ('s' in /proc/self/maps) is never copied.
BOOST_AUTO_TEST_CASE(a_maps_line_says_whether_the_mapping_is_shared) {
    u64 lo = 0, hi = 0;
    BOOST_TEST(cow::shared_mapping("7f1c2a000000-7f1c2a800000 rw-s 00000000 00:01 2053 "
                                   "/dev/zero (deleted)",
                                   &lo, &hi));
    BOOST_TEST(lo == 0x7f1c2a000000u);
    BOOST_TEST(hi == 0x7f1c2a800000u);
    BOOST_TEST(cow::shared_mapping("1000-2000 r--s 0 08:01 12 /data/file\n", &lo, &hi));
    BOOST_TEST(!cow::shared_mapping("7f1c2a000000-7f1c2a800000 rw-p 00000000 00:00 0", &lo, &hi));
    BOOST_TEST(
        !cow::shared_mapping("55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0 [heap]", &lo, &hi));
    // Not a line of the file: refused, whatever follows.
    for (const char* bad : {"", "2000-1000 rw-s 0", "1000 rw-s", "x-2000 rw-s", "1000-2000 rw",
                            "1000-2000  rw-s", "10000000000000000-2 rw-s"})
        BOOST_TEST(!cow::shared_mapping(bad, &lo, &hi), bad);
}
