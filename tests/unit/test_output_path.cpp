// SPDX-License-Identifier: GPL-2.0-or-later
// How a report reaches a path (core/output_path.hpp): which paths are
// replaced, written through or refused, the descriptors a path names, and
// symbolic links' targets.
#define BOOST_TEST_MODULE output_path
#include <boost/test/unit_test.hpp>

#include "core/output_path.hpp"

#include <string>

using namespace mg::output_path;

BOOST_AUTO_TEST_CASE(only_regular_files_and_new_paths_are_replaced) {
    BOOST_TEST((how_to_write(FileType::missing) == WriteHow::replace));
    BOOST_TEST((how_to_write(FileType::regular) == WriteHow::replace));
    BOOST_TEST((how_to_write(FileType::device) == WriteHow::write_through));
    BOOST_TEST((how_to_write(FileType::fifo) == WriteHow::write_through));
    BOOST_TEST((how_to_write(FileType::socket) == WriteHow::connect));
    BOOST_TEST((how_to_write(FileType::directory) == WriteHow::refuse));
}

BOOST_AUTO_TEST_CASE(descriptor_paths) {
    BOOST_TEST(descriptor_of("/dev/stdout", 42) == 1);
    BOOST_TEST(descriptor_of("/dev/stderr", 42) == 2);
    BOOST_TEST(descriptor_of("/dev/fd/7", 42) == 7);
    BOOST_TEST(descriptor_of("/proc/self/fd/12", 42) == 12);
    BOOST_TEST(descriptor_of("/proc/thread-self/fd/3", 42) == 3);
    BOOST_TEST(descriptor_of("/proc/42/fd/5", 42) == 5);
    // Another process's descriptor is a path like any other.
    BOOST_TEST(descriptor_of("/proc/43/fd/5", 42) == -1);
    BOOST_TEST(descriptor_of("/proc/42/fdinfo/5", 42) == -1);
    for (const char* p : {"/dev/stdout2", "/dev/fd/", "/dev/fd/1x", "/dev/fd/-1", "/dev/null",
                          "report.json", "/dev/fd/12345678901", ""})
        BOOST_TEST(descriptor_of(p, 42) == -1, p);
    BOOST_TEST(descriptor_of(nullptr, 42) == -1);
}

std::string joined(const char* link, const char* target, unsigned long n = 256) {
    char out[256];
    return join_link(link, target, out, n) ? std::string(out) : std::string("<too long>");
}

BOOST_AUTO_TEST_CASE(link_targets_resolve_against_the_links_directory) {
    BOOST_TEST(joined("report.json", "runs/today.json") == "runs/today.json");
    BOOST_TEST(joined("/ci/report.json", "runs/today.json") == "/ci/runs/today.json");
    BOOST_TEST(joined("/ci/report.json", "../x.json") == "/ci/../x.json");
    BOOST_TEST(joined("/ci/report.json", "/var/x.json") == "/var/x.json");
    BOOST_TEST(joined("a/b/c", "d") == "a/b/d");
    // The NUL counts: 7 characters need 8 bytes.
    BOOST_TEST(joined("/a/link", "xyzzy", 8) == "<too long>");
    BOOST_TEST(joined("/a/link", "xyzz", 8) == "/a/xyzz");
    BOOST_TEST(joined("/a/link", "x", 0) == "<too long>");
}
