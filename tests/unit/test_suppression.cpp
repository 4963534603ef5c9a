// SPDX-License-Identifier: GPL-2.0-or-later
// Suppression files: parsed, rejected and matched as Valgrind does, and what
// the tool writes for a stack reads back as a suppression of that stack.
#define BOOST_TEST_MODULE suppression
#include <boost/test/unit_test.hpp>

#include "core/suppression.hpp"
#include "read_file.hpp"

#include <deque>
#include <sstream>
#include <string>
#include <vector>

using namespace mg;
using namespace mg::supp;

namespace {

struct Parsed {
    std::string name, kind;
    u32 first_line;
    std::vector<Line> lines;
    std::vector<std::string> patterns; // copies: the text buffer dies with parse_all
};

struct Result {
    bool ok;
    ParseError err{0, nullptr};
    std::vector<Parsed> entries;
};

Result parse_all(const std::string& file, const char* tool = "memgrow") {
    std::vector<char> text(file.begin(), file.end());
    text.push_back(0);
    Result r;
    r.ok = parse(
        text.data(), tool,
        [&](const Entry& e) {
            Parsed p{e.name, e.kind, e.first_line, {}, {}};
            for (u32 i = 0; i < e.n_lines; ++i) {
                p.lines.push_back(e.lines[i]);
                p.patterns.push_back(e.lines[i].pattern ? e.lines[i].pattern : "");
            }
            r.entries.push_back(p);
            return true;
        },
        &r.err);
    return r;
}

// A parsed entry owning its patterns, ready for matches().
struct Supp {
    std::vector<std::string> patterns;
    std::vector<Line> lines;
};

Supp supp_of(const std::string& file) {
    Result r = parse_all(file);
    BOOST_REQUIRE_MESSAGE(r.ok, (r.ok ? "" : r.err.message));
    BOOST_REQUIRE_EQUAL(r.entries.size(), 1u);
    Supp s{r.entries[0].patterns, r.entries[0].lines};
    for (usize i = 0; i < s.lines.size(); ++i)
        s.lines[i].pattern =
            s.lines[i].kind == LineKind::ellipsis ? nullptr : s.patterns[i].c_str();
    return s;
}

// A suppression made of the given location lines.
Supp pattern(std::initializer_list<const char*> location_lines) {
    std::string file = "{\n   test\n   memgrow:Leaked\n";
    for (const char* l : location_lines)
        file += std::string("   ") + l + "\n";
    file += "}\n";
    return supp_of(file);
}

bool match(const Supp& s, const std::vector<FrameView>& frames) {
    return matches(s.lines.data(), static_cast<u32>(s.lines.size()), frames.data(),
                   static_cast<u32>(frames.size()));
}

FrameView fn(const char* function, const char* file = nullptr, u32 line = 0,
             const char* object = "/usr/bin/service") {
    return FrameView{function, file, line, object, false};
}

FrameView py(const char* qualname, const char* file, u32 line) {
    return FrameView{qualname, file, line, nullptr, true};
}

// The error a malformed file gives; fails the test when it parses.
ParseError error_of(const std::string& file) {
    Result r = parse_all(file);
    BOOST_TEST(!r.ok);
    return r.err;
}

} // namespace

// --- parse ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(parse_keeps_this_tools_suppressions_and_skips_others) {
    const std::string file = "# memgrow suppressions\n"        // 1
                             "\n"                              // 2
                             "{\n"                             // 3
                             "   cache_fill\n"                 // 4
                             "   memgrow:Leaked\n"             // 5
                             "   fun:make_node\n"              // 6
                             "     # a comment inside\n"       // 7
                             "   ...\n"                        // 8
                             "   src:server.c:42  \t\n"        // 9
                             "}\n"                             // 10
                             "\t\n"                            // 11
                             "{\n"                             // 12
                             "   memcheck_only\n"              // 13
                             "   Memcheck:Leak\n"              // 14
                             "   match-leak-kinds: definite\n" // 15
                             "   fun:malloc\n"                 // 16
                             "}\n"                             // 17
                             "  {  \n"                         // 18
                             "   second\n"                     // 19
                             "   memgrow:Growing\n"            // 20
                             "   obj:/usr/lib/libfoo.so*\n"    // 21
                             "   src:a:b.c\n"                  // 22
                             "}\n"                             // 23
                             "{\n"                             // 24
                             "   shared with memcheck\n"       // 25
                             "   memcheck,memgrow:Leaked\n"    // 26
                             "   fun:_Znwm\n"                  // 27
                             "   fun:main\n"                   // 28
                             "}\r\n"                           // 29
                             "{\n"                             // 30
                             "   not ours either\n"            // 31
                             "   memgrowx,xmemgrow:Leaked\n"   // 32
                             "   fun:main\n"                   // 33
                             "}";                              // 34
    Result r = parse_all(file);
    BOOST_REQUIRE(r.ok);
    BOOST_REQUIRE_EQUAL(r.entries.size(), 3u);

    const Parsed& a = r.entries[0];
    BOOST_TEST(a.name == "cache_fill");
    BOOST_TEST(a.kind == "Leaked");
    BOOST_TEST(a.first_line == 3u);
    BOOST_REQUIRE_EQUAL(a.lines.size(), 3u);
    BOOST_TEST((a.lines[0].kind == LineKind::fun));
    BOOST_TEST(a.patterns[0] == "make_node");
    BOOST_TEST((a.lines[1].kind == LineKind::ellipsis));
    BOOST_TEST(!a.lines[1].pattern);
    BOOST_TEST((a.lines[2].kind == LineKind::src));
    BOOST_TEST(a.patterns[2] == "server.c");
    BOOST_TEST(a.lines[2].src_line == 42u);

    const Parsed& b = r.entries[1];
    BOOST_TEST(b.name == "second");
    BOOST_TEST(b.kind == "Growing");
    BOOST_TEST(b.first_line == 18u);
    BOOST_REQUIRE_EQUAL(b.lines.size(), 2u);
    BOOST_TEST((b.lines[0].kind == LineKind::obj));
    BOOST_TEST(b.patterns[0] == "/usr/lib/libfoo.so*");
    BOOST_TEST(b.patterns[1] == "a:b.c"); // not digits after the last ':': no line
    BOOST_TEST(b.lines[1].src_line == 0u);

    const Parsed& c = r.entries[2];
    BOOST_TEST(c.name == "shared with memcheck");
    BOOST_TEST(c.kind == "Leaked");
    BOOST_TEST(c.first_line == 24u);
    BOOST_REQUIRE_EQUAL(c.patterns.size(), 2u);
    BOOST_TEST(c.patterns[0] == "_Znwm");
    BOOST_TEST(c.patterns[1] == "main");

    // Tool names are exact (Valgrind's are case-sensitive: memcheck calls
    // itself "Memcheck"), and for the tool named, an extra line such as
    // memcheck's match-leak-kinds is an error: this parser reads none.
    Result lower = parse_all(file, "memcheck");
    BOOST_REQUIRE(lower.ok);
    BOOST_REQUIRE_EQUAL(lower.entries.size(), 1u);
    BOOST_TEST(lower.entries[0].first_line == 24u);
    Result m = parse_all(file, "Memcheck");
    BOOST_TEST(!m.ok);
    BOOST_TEST(m.err.line == 15u);
}

BOOST_AUTO_TEST_CASE(parse_param_skips_the_argument_line) {
    // memcheck's Param line: the argument, then the stack.
    Result r = parse_all("{\n  p\n  memgrow:Param\n  read(buf)\n  fun:main\n}\n");
    BOOST_REQUIRE(r.ok);
    BOOST_REQUIRE_EQUAL(r.entries.size(), 1u);
    BOOST_TEST(r.entries[0].kind == "Param");
    BOOST_REQUIRE_EQUAL(r.entries[0].patterns.size(), 1u);
    BOOST_TEST(r.entries[0].patterns[0] == "main");
    Result missing = parse_all("{\n  p\n  memgrow:Param\n}\n");
    BOOST_TEST(!missing.ok);
    BOOST_TEST(missing.err.line == 4u);
    // Other kinds have no such line.
    BOOST_TEST(!parse_all("{\n  a\n  memgrow:Addr8\n  read(buf)\n  fun:main\n}\n").ok);
}

BOOST_AUTO_TEST_CASE(parse_empty_and_comment_only_files) {
    BOOST_TEST(parse_all("").ok);
    BOOST_TEST(parse_all("\n\n  # nothing\n\t\n").entries.empty());
    BOOST_TEST(parse_all("# only a comment, no newline").ok);
}

BOOST_AUTO_TEST_CASE(parse_on_entry_can_stop_with_rejected) {
    char text[] = "{\n a\n memgrow:Leaked\n fun:f\n}\n\n{\n b\n memgrow:Bogus\n fun:g\n}\n";
    int seen = 0;
    ParseError err{0, nullptr};
    bool ok = parse(
        text, "memgrow",
        [&](const Entry& e) {
            ++seen;
            return str_eq(e.kind, "Leaked");
        },
        &err);
    BOOST_TEST(!ok);
    BOOST_TEST(seen == 2);
    BOOST_TEST(err.line == 7u);
    BOOST_TEST(std::string(err.message) == "rejected");
}

BOOST_AUTO_TEST_CASE(parse_malformed_files_give_the_line) {
    struct Case {
        const char* file;
        u32 line;
        const char* message_start;
    };
    const Case cases[] = {
        // missing '{'
        {"# c\nfun:main\n", 2, "expected '{'"},
        {"{\n a\n memgrow:Leaked\n fun:f\n}\nstray\n", 6, "expected '{'"},
        // '}' where the name should be
        {"\n{\n}\n", 3, "unexpected '}'"},
        // end of file after '{'
        {"{\n\n", 2, "unexpected end-of-file"},
        // kind line without ':'
        {"{\n name\n memgrow Leaked\n fun:f\n}\n", 3, "malformed"},
        // end of file where the kind line should be
        {"{\n name\n", 2, "unexpected end-of-file"},
        // end of file inside a suppression (ours), reported at the last line
        {"{\n name\n memgrow:Leaked\n fun:f\n\n# trailing\n", 6, "unexpected end-of-file"},
        {"{\n name\n memgrow:Leaked\n fun:f", 4, "unexpected end-of-file"},
        // end of file inside a suppression being skipped
        {"{\n name\n memcheck:Leak\n fun:f\n", 4, "unexpected end-of-file"},
        // no location lines
        {"{\n name\n memgrow:Leaked\n\n}\n", 5, "missing stack trace"},
        // only "..."
        {"{\n name\n memgrow:Leaked\n ...\n ...\n}\n", 6, "suppression must contain"},
        // a location line of no known form
        {"{\n name\n memgrow:Leaked\n fun:f\n func:g\n}\n", 5, "location should be"},
        {"{\n name\n memgrow:Leaked\n fun:f\n ....\n}\n", 5, "location should be"},
        // an extra line (memcheck's match-leak-kinds) in one of ours
        {"{\n name\n memgrow:Leaked\n match-leak-kinds: definite\n fun:f\n}\n", 4,
         "unexpected line"},
    };
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.file) {
            ParseError e = error_of(c.file);
            BOOST_TEST(e.line == c.line);
            BOOST_TEST(e.message);
            if (e.message) BOOST_TEST(std::string(e.message).rfind(c.message_start, 0) == 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(parse_limits_the_number_of_lines) {
    auto file_with = [](u32 n) {
        std::string f = "{\n name\n memgrow:Leaked\n";
        for (u32 i = 0; i < n; ++i)
            f += " fun:f" + std::to_string(i) + "\n";
        return f + "}\n";
    };
    Result ok = parse_all(file_with(kMaxLines));
    BOOST_REQUIRE(ok.ok);
    BOOST_TEST(ok.entries[0].lines.size() == kMaxLines);
    ParseError e = error_of(file_with(kMaxLines + 1));
    BOOST_TEST(e.line == 3 + kMaxLines + 1);
    BOOST_TEST(std::string(e.message) == "too many callers in stack trace");
}

// --- matches ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(glob_rules) {
    BOOST_TEST(glob("", ""));
    BOOST_TEST(!glob("", "a"));
    BOOST_TEST(glob("*", ""));
    BOOST_TEST(glob("**a*b*c**", "abc"));
    BOOST_TEST(!glob("**a*b*d**", "abc"));
    BOOST_TEST(glob("a?c", "abc"));
    BOOST_TEST(!glob("?", ""));
    BOOST_TEST(!glob("ab", "abc"));
    BOOST_TEST(glob("*bc", "abcbc"));
    BOOST_TEST(glob("operator\\*", "operator*"));
    BOOST_TEST(!glob("operator\\*", "operator+"));
    BOOST_TEST(glob("a\\?", "a?"));
    BOOST_TEST(!glob("a\\?", "ab"));
    BOOST_TEST(glob("a\\\\b", "a\\b"));
    BOOST_TEST(glob("*\\**", "x*y"));
    BOOST_TEST(!glob("*\\**", "xy"));
    BOOST_TEST(!glob("a\\", "a\\")); // a lone trailing backslash matches nothing
}

BOOST_AUTO_TEST_CASE(matches_fun_obj_and_src_globs) {
    std::vector<FrameView> stack = {fn("make_node", "src/tree.c", 17, "/usr/lib/libtree.so.1"),
                                    fn("handle", "server.c", 41), fn("main", "server.c", 48)};
    BOOST_TEST(match(pattern({"fun:make_node"}), stack));
    BOOST_TEST(match(pattern({"fun:make_*", "fun:h?ndle"}), stack));
    BOOST_TEST(!match(pattern({"fun:make"}), stack));   // globs match the whole name
    BOOST_TEST(!match(pattern({"fun:handle"}), stack)); // prefix of the stack, not anywhere
    BOOST_TEST(match(pattern({"obj:*/libtree.so*", "obj:/usr/bin/service"}), stack));
    BOOST_TEST(!match(pattern({"obj:libtree.so.1"}), stack)); // obj: is the whole path
    BOOST_TEST(match(pattern({"src:tree.c", "src:server.c:41", "src:server.?"}), stack));
    BOOST_TEST(match(pattern({"src:tree.c:17"}), stack));
    BOOST_TEST(!match(pattern({"src:tree.c:18"}), stack));
    BOOST_TEST(match(pattern({"fun:make_node", "src:*.c:41", "fun:main"}), stack));
}

BOOST_AUTO_TEST_CASE(matches_src_basename_or_path) {
    std::vector<FrameView> stack = {fn("f", "/home/me/proj/src/tree.c", 17)};
    BOOST_TEST(match(pattern({"src:tree.c"}), stack));
    BOOST_TEST(match(pattern({"src:/home/*/tree.c"}), stack));
    BOOST_TEST(match(pattern({"src:*/src/tree.c:17"}), stack));
    BOOST_TEST(!match(pattern({"src:src/tree.c"}), stack)); // a '/' compares the whole path
    BOOST_TEST(!match(pattern({"src:proj*"}), stack));      // no '/': the basename only
    // A frame with no file never matches src:, not even "*".
    BOOST_TEST(!match(pattern({"src:*"}), {fn("f")}));
    BOOST_TEST(match(pattern({"fun:*"}), {fn("f")}));
}

BOOST_AUTO_TEST_CASE(matches_ellipsis_anywhere) {
    std::vector<FrameView> stack = {fn("alloc_buf"), fn("grow"), fn("append"), fn("handle"),
                                    fn("main")};
    BOOST_TEST(match(pattern({"...", "fun:handle"}), stack));
    BOOST_TEST(match(pattern({"...", "fun:alloc_buf"}), stack)); // zero frames
    BOOST_TEST(match(pattern({"fun:alloc_buf", "...", "fun:append", "...", "fun:main"}), stack));
    BOOST_TEST(match(pattern({"fun:alloc_buf", "...", "fun:grow", "fun:append"}), stack));
    BOOST_TEST(match(pattern({"fun:alloc_buf", "..."}), stack));
    BOOST_TEST(match(pattern({"fun:main", "..."}), {fn("main")}));
    BOOST_TEST(!match(pattern({"fun:alloc_buf", "...", "fun:grow", "fun:handle"}), stack));
    BOOST_TEST(!match(pattern({"...", "fun:exit"}), stack));
    BOOST_TEST(!match(pattern({"...", "fun:main", "fun:after_main"}), stack));
    // Backtracking past an earlier partial match.
    BOOST_TEST(match(pattern({"...", "fun:a", "fun:b"}), {fn("a"), fn("a"), fn("b")}));
}

BOOST_AUTO_TEST_CASE(matches_a_prefix_of_the_stack) {
    std::vector<FrameView> stack = {fn("f"), fn("g"), fn("main")};
    BOOST_TEST(match(pattern({"fun:f", "fun:g"}), stack));
    BOOST_TEST(!match(pattern({"fun:f", "fun:g", "fun:main", "fun:_start"}), stack));
    BOOST_TEST(!match(pattern({"fun:f"}), {}));
}

BOOST_AUTO_TEST_CASE(matches_unknown_function_and_object_as_question_marks) {
    std::vector<FrameView> stack = {FrameView{nullptr, nullptr, 0, nullptr, false}, fn("main")};
    BOOST_TEST(match(pattern({"fun:???", "fun:main"}), stack));
    BOOST_TEST(match(pattern({"obj:???", "fun:main"}), stack));
    BOOST_TEST(match(pattern({"fun:*", "fun:main"}), stack));
    BOOST_TEST(!match(pattern({"fun:main"}), stack));
}

BOOST_AUTO_TEST_CASE(matches_python_frames_by_qualname_and_file) {
    std::vector<FrameView> stack = {
        py("Cache.put", "/srv/app/cache.py", 12), py("handle", "/srv/app/server.py", 40),
        fn("_PyEval_EvalFrameDefault", "ceval.c", 900, "/usr/bin/python3.11")};
    BOOST_TEST(match(pattern({"fun:Cache.put", "fun:handle"}), stack));
    BOOST_TEST(match(pattern({"fun:Cache.*", "src:server.py:40"}), stack));
    BOOST_TEST(match(pattern({"src:/srv/app/cache.py"}), stack));
    BOOST_TEST(match(pattern({"src:cache.py:12"}), stack));
    BOOST_TEST(!match(pattern({"src:cache.py:13"}), stack));
    // Python frames have no object: obj: sees "???".
    BOOST_TEST(match(pattern({"obj:???", "obj:???", "obj:*python*"}), stack));
    BOOST_TEST(
        match(pattern({"obj:?\\?\\?"}), {FrameView{"f", "a.py", 1, "/usr/bin/python3", true}}));
    BOOST_TEST(!match(pattern({"obj:/usr/bin/python3"}),
                      {FrameView{"f", "a.py", 1, "/usr/bin/python3", true}}));
}

BOOST_AUTO_TEST_CASE(matches_memcheck_style_allocator_first_line) {
    std::vector<FrameView> stack = {fn("make_node"), fn("main")};
    BOOST_TEST(match(pattern({"fun:malloc", "fun:make_node", "fun:main"}), stack));
    BOOST_TEST(match(pattern({"fun:*alloc", "fun:make_node"}), stack));
    BOOST_TEST(match(pattern({"fun:_Znwm", "fun:make_node"}), stack));
    BOOST_TEST(match(pattern({"fun:operator new(unsigned long)", "fun:make_node"}), stack));
    BOOST_TEST(match(
        pattern({"fun:operator new[](unsigned long, std::nothrow_t const&)", "...", "fun:main"}),
        stack));
    BOOST_TEST(match(pattern({"fun:_ZnamSt11align_val_t", "fun:make_node"}), stack));
    BOOST_TEST(match(pattern({"obj:*vgpreload_memcheck*", "fun:make_node"}), stack));
    BOOST_TEST(
        match(pattern({"obj:*/vgpreload_memgrow-amd64-linux.so", "...", "fun:main"}), stack));
    // The allocator line does not make a non-matching rest match.
    BOOST_TEST(!match(pattern({"fun:malloc", "fun:other"}), stack));
    BOOST_TEST(!match(pattern({"fun:malloc", "fun:main"}), stack));
    // Only an allocator line is dropped, and only the first line.
    BOOST_TEST(!match(pattern({"fun:fopen", "fun:make_node"}), stack));
    BOOST_TEST(!match(pattern({"obj:/lib/libc.so.6", "fun:make_node"}), stack));
    BOOST_TEST(!match(pattern({"fun:make_node", "fun:malloc", "fun:main"}), stack));
    // What is left must still name a frame: a lone allocator line is not "everything".
    BOOST_TEST(!match(pattern({"fun:malloc"}), stack));
    BOOST_TEST(!match(pattern({"fun:malloc", "..."}), stack));
    // As written still comes first: a frame really named malloc matches directly.
    BOOST_TEST(match(pattern({"fun:malloc", "fun:main"}), {fn("malloc"), fn("main")}));
}

// --- generate ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(generate_uses_valgrinds_layout) {
    std::vector<FrameView> stack = {fn("make_node"),
                                    FrameView{nullptr, nullptr, 0, "/lib/x.so", false},
                                    FrameView{nullptr, nullptr, 0, nullptr, false},
                                    py("Cache.put", "/srv/cache.py", 3), fn("main")};
    char out[512];
    usize n = generate(nullptr, "memgrow:Leaked", stack.data(), 5, out, sizeof out);
    const std::string want = "{\n"
                             "   <insert_a_suppression_name_here>\n"
                             "   memgrow:Leaked\n"
                             "   fun:make_node\n"
                             "   obj:/lib/x.so\n"
                             "   obj:*\n"
                             "   fun:Cache.put\n"
                             "   fun:main\n"
                             "}\n";
    BOOST_TEST(std::string(out) == want);
    BOOST_TEST(n == want.size());
    generate("my name", "memgrow:Growing", stack.data(), 1, out, sizeof out);
    BOOST_TEST(std::string(out) == "{\n   my name\n   memgrow:Growing\n   fun:make_node\n}\n");
}

BOOST_AUTO_TEST_CASE(generate_parse_match_round_trip) {
    std::vector<FrameView> stack = {
        fn("Matrix::operator*(Matrix const&)"),
        fn("what?"),
        fn("weird\\name*?"),
        FrameView{nullptr, nullptr, 0, "/opt/lib*/libq?.so", false},
        FrameView{nullptr, nullptr, 0, nullptr, false},
        py("<lambda>", "/srv/app.py", 7),
        fn("main", "main.c", 3),
    };
    char out[2048];
    generate("round trip", "memgrow:Leaked", stack.data(), static_cast<u32>(stack.size()), out,
             sizeof out);
    Result r = parse_all(out);
    BOOST_REQUIRE(r.ok);
    BOOST_REQUIRE_EQUAL(r.entries.size(), 1u);
    BOOST_TEST(r.entries[0].name == "round trip");
    BOOST_TEST(r.entries[0].kind == "Leaked");
    Supp s = supp_of(out);
    BOOST_REQUIRE_EQUAL(s.lines.size(), stack.size());
    BOOST_TEST(match(s, stack));

    // Exactly those names: the escaped wildcards are literal.
    auto changed = [&](usize at, FrameView f) {
        std::vector<FrameView> other = stack;
        other[at] = f;
        return match(s, other);
    };
    BOOST_TEST(!changed(0, fn("Matrix::operator+(Matrix const&)")));
    BOOST_TEST(!changed(0, fn("Matrix::operator*")));
    BOOST_TEST(!changed(1, fn("whatx")));
    BOOST_TEST(!changed(2, fn("weird\\nameXY")));
    BOOST_TEST(!changed(3, FrameView{nullptr, nullptr, 0, "/opt/lib64/libqt.so", false}));
    BOOST_TEST(changed(4, fn("anything"))); // an unknown frame is written as obj:*
    BOOST_TEST(!changed(5, py("<genexpr>", "/srv/app.py", 7)));
    BOOST_TEST(!changed(6, fn("main2")));
}

BOOST_AUTO_TEST_CASE(generate_truncates_safely) {
    std::vector<FrameView> stack = {fn("make_node"), fn("main")};
    char full[256];
    usize len = generate("n", "memgrow:Leaked", stack.data(), 2, full, sizeof full);
    BOOST_REQUIRE(len > 20);
    for (usize cap = 0; cap <= len + 1; ++cap) {
        char buf[300];
        for (char& c : buf)
            c = '#';
        usize n = generate("n", "memgrow:Leaked", stack.data(), 2, buf, cap);
        BOOST_TEST_CONTEXT("cap " << cap) {
            BOOST_TEST(n == (cap == 0 ? 0 : (cap - 1 < len ? cap - 1 : len)));
            if (cap) {
                BOOST_TEST(buf[n] == 0);
                BOOST_TEST(std::string(buf, n) == std::string(full, n));
            }
            // Nothing written at or past cap.
            for (usize i = cap; i < sizeof buf; ++i)
                if (buf[i] != '#') BOOST_FAIL("wrote past cap at " << i);
        }
    }
}

BOOST_AUTO_TEST_CASE(generate_limits_frames_to_what_parse_accepts) {
    std::vector<FrameView> stack(kMaxLines + 10, fn("f"));
    std::vector<char> out(64 * 1024);
    generate(nullptr, "memgrow:Leaked", stack.data(), static_cast<u32>(stack.size()), out.data(),
             out.size());
    Result r = parse_all(out.data());
    BOOST_REQUIRE(r.ok);
    BOOST_TEST(r.entries[0].lines.size() == kMaxLines);
}

// --- the shipped files on the CUDA stack's losses ----------------------------

namespace {

// Real stacks lost under `import torch` on an H200 (tests/unit/data/
// cuda-import-losses.txt says where they come from and its format).
struct LostStack {
    std::string kind;
    std::vector<FrameView> frames;
};

struct Fixture {
    std::deque<std::string> strings; // stable storage for the views
    std::vector<LostStack> stacks;
};

Fixture read_lost_stacks() {
    Fixture fx;
    std::istringstream in(read(MG_TEST_DATA_DIR "/cuda-import-losses.txt"));
    std::string line;
    auto keep = [&](const std::string& s) -> const char* {
        if (s == "?") return nullptr;
        return fx.strings.emplace_back(s).c_str();
    };
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        if (line.rfind("lost ", 0) == 0) {
            fx.stacks.push_back({line.substr(5), {}});
            continue;
        }
        BOOST_REQUIRE(!fx.stacks.empty() && line.size() > 2);
        std::string rest = line.substr(2);
        usize tab = rest.find('\t');
        BOOST_REQUIRE(tab != std::string::npos);
        std::string name = rest.substr(0, tab), where = rest.substr(tab + 1);
        if (line[0] == 'p') {
            usize colon = where.rfind(':');
            fx.stacks.back().frames.push_back(
                py(keep(name), keep(where.substr(0, colon)),
                   static_cast<u32>(std::stoul(where.substr(colon + 1)))));
        } else {
            fx.stacks.back().frames.push_back(
                FrameView{keep(name), nullptr, 0, keep(where), false});
        }
    }
    return fx;
}

// Every memgrow:Leaked entry of the shipped files (memgrow-default.supp).
std::vector<Supp> shipped_leak_suppressions() {
    std::vector<Supp> out;
    for (const char* file : {"glibc.supp", "numpy.supp", "cuda.supp", "pybind11.supp"}) {
        Result r = parse_all(read(std::string(MG_TEST_DATA_DIR "/../../../suppressions/") + file));
        BOOST_REQUIRE_MESSAGE(r.ok, file);
        for (const Parsed& p : r.entries) {
            if (p.kind == "Leaked") out.push_back(Supp{p.patterns, p.lines});
        }
    }
    // The lines point into the patterns where they finally live.
    for (Supp& s : out)
        for (usize i = 0; i < s.lines.size(); ++i)
            s.lines[i].pattern =
                s.lines[i].kind == LineKind::ellipsis ? nullptr : s.patterns[i].c_str();
    return out;
}

bool suppressed(const std::vector<Supp>& supps, const std::vector<FrameView>& frames) {
    for (const Supp& s : supps)
        if (match(s, frames)) return true;
    return false;
}

} // namespace

BOOST_AUTO_TEST_CASE(shipped_files_suppress_the_cuda_stacks_own_losses) {
    Fixture fx = read_lost_stacks();
    std::vector<Supp> supps = shipped_leak_suppressions();
    BOOST_REQUIRE(fx.stacks.size() >= 20);
    for (usize i = 0; i < fx.stacks.size(); ++i)
        BOOST_TEST_CONTEXT("stack " << i + 1 << " (" << fx.stacks[i].kind << ")") {
            BOOST_TEST(suppressed(supps, fx.stacks[i].frames));
        }
}

BOOST_AUTO_TEST_CASE(shipped_files_keep_the_programs_own_leak_under_the_same_import) {
    Fixture fx = read_lost_stacks();
    std::vector<Supp> supps = shipped_leak_suppressions();
    const FrameView own = fn("leak_request", nullptr, 0, "/srv/app/libservice.so");
    const FrameView call = fn("_PyObject_MakeTpCall", nullptr, 0, "/usr/bin/python3.12");
    const FrameView dispatch =
        fn("pybind11::cpp_function::dispatcher(_object*, _object*, _object*)", nullptr, 0,
           "/venv/site-packages/torch/lib/libtorch_python.so");
    for (usize i = 0; i < fx.stacks.size(); ++i) {
        // The same import (its Python frames) with the program's code innermost,
        // called straight from Python or through a pybind11 binding.
        std::vector<FrameView> direct{own, call}, bound{own, dispatch, call};
        for (const FrameView& f : fx.stacks[i].frames)
            if (f.python) direct.push_back(f), bound.push_back(f);
        BOOST_TEST_CONTEXT("stack " << i + 1) {
            BOOST_TEST(!suppressed(supps, direct));
            BOOST_TEST(!suppressed(supps, bound));
        }
    }
}
