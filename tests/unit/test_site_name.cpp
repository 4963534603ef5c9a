// SPDX-License-Identifier: GPL-2.0-or-later
// The frame a site is named by (core/site_name.hpp): the innermost frame in
// the program's own code, on stacks shaped like the ones the tool records.
#define BOOST_TEST_MODULE site_name
#include <boost/test/unit_test.hpp>

#include "core/site_name.hpp"

#include <string>
#include <vector>

using namespace mg;

namespace {

struct F {
    const char* function;
    const char* file;
    const char* object;
    bool python;
};

constexpr const char* kLibc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
constexpr const char* kPreload = "/work/build/.in_place/vgpreload_memgrow-amd64-linux.so";
constexpr const char* kProgram = "/work/build/examples/leaky_service";
constexpr const char* kLibpython = "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0";

// The index of the frame that names a stack (innermost first).
unsigned named(const std::vector<F>& stack) {
    SiteNamer n;
    for (const F& f : stack)
        n.offer(f.function, f.file, f.object, f.python);
    BOOST_REQUIRE(n.any);
    return n.index;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_bundled_examples_strdup_is_named_by_its_caller) {
    // examples/leaky_service.c: malloc (the preload) <- strdup (libc, with
    // debug info) <- cache_response <- handle <- main.
    std::vector<F> stack = {{"malloc", "vg_replace_malloc.c", kPreload, false},
                            {"strdup", "strdup.c", kLibc, false},
                            {"cache_response", "leaky_service.c", kProgram, false},
                            {"handle", "leaky_service.c", kProgram, false},
                            {"main", "leaky_service.c", kProgram, false}};
    BOOST_TEST(named(stack) == 2u);
}

BOOST_AUTO_TEST_CASE(the_cxx_runtime_and_inlined_system_headers_are_skipped) {
    std::vector<F> stack = {
        {"operator new(unsigned long)", "vg_replace_malloc.c", kPreload, false},
        {"std::__new_allocator<int>::allocate", "/usr/include/c++/12/bits/new_allocator.h",
         kProgram, false},
        {"std::vector<int>::push_back", "/usr/include/c++/12/bits/stl_vector.h", kProgram, false},
        {"Cache::keep", "src/cache.cpp", kProgram, false},
        {"main", "src/main.cpp", kProgram, false}};
    BOOST_TEST(named(stack) == 3u);
    // libstdc++ wherever it lies, and the loader.
    BOOST_TEST(system_object("/opt/gcc-13/lib64/libstdc++.so.6"));
    BOOST_TEST(system_object("/lib64/ld-linux-x86-64.so.2"));
    BOOST_TEST(system_object("/work/x/ld-linux-x86-64.so.2"));
    BOOST_TEST(!system_object("/work/build/libmyservice.so"));
    BOOST_TEST(!system_object(nullptr));
    // An installed package's extension module is a library's code.
    BOOST_TEST(system_object("/venv/lib/python3.11/site-packages/numpy/core/"
                             "_multiarray_umath.cpython-311-x86_64-linux-gnu.so"));
}

BOOST_AUTO_TEST_CASE(the_dynamic_loader_allocating_for_dlopen_is_named_by_the_caller) {
    std::vector<F> stack = {
        {"calloc", "vg_replace_malloc.c", kPreload, false},
        {"_dl_new_object", "./elf/dl-object.c", "/lib64/ld-linux-x86-64.so.2", false},
        {"dlopen_implementation", "./dlfcn/dlopen.c", kLibc, false},
        {"load_plugin", "plugins.c", kProgram, false}};
    BOOST_TEST(named(stack) == 3u);
}

BOOST_AUTO_TEST_CASE(a_program_without_debug_info_is_named_by_its_function) {
    std::vector<F> stack = {{"malloc", "vg_replace_malloc.c", kPreload, false},
                            {"strdup", "strdup.c", kLibc, false},
                            {"remember", nullptr, kProgram, false},
                            {"main", nullptr, kProgram, false}};
    BOOST_TEST(named(stack) == 2u);
    BOOST_TEST(static_cast<int>(name_rank("remember", nullptr, kProgram, false)) ==
               static_cast<int>(NameRank::user_no_file));
}

BOOST_AUTO_TEST_CASE(with_no_program_frame_the_innermost_file_names_it) {
    // All in the C library: the innermost frame with a source file, not the
    // allocator's own frame without one.
    std::vector<F> stack = {{"malloc", nullptr, kPreload, false},
                            {"__libc_setlocale", "setlocale.c", kLibc, false},
                            {"__libc_start_main", "../csu/libc-start.c", kLibc, false}};
    BOOST_TEST(named(stack) == 1u);
    std::vector<F> nothing = {{nullptr, nullptr, nullptr, false}, {"f", nullptr, nullptr, false}};
    BOOST_TEST(named(nothing) == 1u);
}

BOOST_AUTO_TEST_CASE(python_sites_are_named_by_the_users_line) {
    std::vector<F> stack = {
        {"<listcomp>", "/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py", nullptr,
         true},
        {"<frozen importlib._bootstrap>", "<frozen importlib._bootstrap>", nullptr, true},
        {"update_stats", "/srv/app/service.py", nullptr, true},
        {"main", "/srv/app/service.py", nullptr, true}};
    BOOST_TEST(named(stack) == 2u);
    // A site-packages line loses to the user's, wins over native code.
    std::vector<F> mixed = {
        {"PyList_New", "Objects/listobject.c", kLibpython, false},
        {"call", "/venv/lib/python3.11/site-packages/pkg/mod.py", nullptr, true},
        {"run", "/usr/lib/python3.11/runpy.py", nullptr, true}};
    BOOST_TEST(named(mixed) == 1u);
    // Native code under a user's line: the line.
    std::vector<F> under = {{"PyUnicode_New", "Objects/unicodeobject.c", kLibpython, false},
                            {"handle", "service.py", nullptr, true}};
    BOOST_TEST(named(under) == 1u);
    // A static interpreter with symbols holds CPython itself: not the user's.
    std::vector<F> fixed = {
        {"list_resize", "../Objects/listobject.c", "/usr/bin/python3.11", false},
        {"PyList_Append", "../Objects/listobject.c",
         "/root/.cache/memgrow/python3.14/usr/bin/python3.14", false},
        {"handle", "service.py", nullptr, true}};
    BOOST_TEST(named(fixed) == 2u);
}

BOOST_AUTO_TEST_CASE(the_first_user_frame_settles_it) {
    SiteNamer n;
    n.offer("malloc", "vg_replace_malloc.c", kPreload, false);
    BOOST_TEST(!n.settled());
    n.offer("f", "a.c", kProgram, false);
    BOOST_TEST(n.settled());
    n.offer("g", "b.c", kProgram, false);
    BOOST_TEST(n.index == 1u);
    BOOST_TEST(n.seen == 3u);
}

BOOST_AUTO_TEST_CASE(a_frames_file_is_shown_as_a_person_finds_it) {
    using S = std::string;
    // An installed package's file by its package, a standard library's by
    // its module's path: torch's __init__.py is not ctypes'.
    BOOST_TEST(S(shown_file("/usr/lib/python3/dist-packages/torch/__init__.py")) ==
               "torch/__init__.py");
    BOOST_TEST(S(shown_file("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/"
                            "numpy/core/numeric.py")) == "numpy/core/numeric.py");
    BOOST_TEST(S(shown_file("/root/.pyenv/versions/3.11.7/lib/python3.11/ctypes/__init__.py")) ==
               "ctypes/__init__.py");
    BOOST_TEST(S(shown_file("/usr/lib/python3.11/random.py")) == "random.py");
    BOOST_TEST(S(shown_file("/usr/lib64/python3.14/json/decoder.py")) == "json/decoder.py");
    // The program's own files (and native ones) by their last component.
    BOOST_TEST(S(shown_file("/srv/app/service.py")) == "service.py");
    BOOST_TEST(S(shown_file("/home/u/src/server.c")) == "server.c");
    BOOST_TEST(S(shown_file("service.py")) == "service.py");
    BOOST_TEST(S(shown_file("<frozen importlib._bootstrap>")) == "<frozen importlib._bootstrap>");
    BOOST_TEST(S(shown_file("/usr/lib/python3.11")) == "python3.11");
}
