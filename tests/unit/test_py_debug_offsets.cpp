// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of the _Py_DebugOffsets reader (core/py_debug_offsets.hpp):
// tables laid out as CPython 3.13, 3.14 and 3.15 lay them out (with the
// offsets Debian's 3.13.18, 3.14.10 and 3.15.2 publish), a newer version,
// and tables that must be refused.
#define BOOST_TEST_MODULE py_debug_offsets
#include <boost/test/unit_test.hpp>

#include "core/py_debug_offsets.hpp"

#include <cstring>
#include <vector>

using namespace mg;
using pydebug::Status;

namespace {

// A table as `minor` lays it out, with the given thread_id offset.
std::vector<u8> table(u32 minor, u64 version, u64 thread_id = 152) {
    const pydebug::Positions* p = nullptr;
    for (const auto& q : pydebug::kPositions)
        if (q.minor == minor) p = &q;
    BOOST_TEST_REQUIRE(p != nullptr);
    std::vector<u64> w(p->n_words, 0);
    auto set = [&](i64 at, u64 v) {
        if (at >= 0) w[static_cast<usize>(at)] = v;
    };
    set(1, version);
    set(p->runtime_size, 316616), set(p->interpreters_head, 808);
    set(p->interp_size, 225864), set(p->interp_next, 7272), set(p->threads_head, 7344);
    set(p->tstate_size, 832), set(p->tstate_next, 8), set(p->tstate_interp, 16);
    set(p->current_frame, 72), set(p->thread_id, thread_id), set(p->base_frame, 80);
    set(p->frame_size, 88), set(p->frame_previous, 8), set(p->frame_executable, 0);
    set(p->frame_instr_ptr, 56), set(p->frame_owner, 74);
    set(p->frame_localsplus, 80), set(p->code_localsplusnames, 96);
    set(p->code_size, 216), set(p->code_filename, 112), set(p->code_qualname, 128);
    set(p->code_linetable, 136), set(p->code_firstlineno, 68), set(p->code_adaptive, 208);
    set(p->ob_type, 8), set(p->tp_name, 24), set(p->bytes_ob_size, 16);
    set(p->bytes_ob_sval, 32), set(p->unicode_state, 32), set(p->unicode_length, 16);
    set(p->ascii_size, 40), set(p->compact_size, 56);
    std::vector<u8> bytes(w.size() * 8);
    std::memcpy(bytes.data(), w.data(), bytes.size());
    std::memcpy(bytes.data(), "xdebugpy", 8);
    return bytes;
}

} // namespace

BOOST_AUTO_TEST_CASE(each_known_version_gives_its_offsets) {
    const u64 versions[] = {0x30d12f0, 0x30e0af0, 0x30f02f0};
    for (u32 minor = 13; minor <= 15; ++minor) {
        auto t = table(minor, versions[minor - 13]);
        pydebug::Offsets o;
        BOOST_TEST_REQUIRE(static_cast<int>(pydebug::parse(t.data(), t.size(), &o)) ==
                           static_cast<int>(Status::ok));
        BOOST_TEST(o.minor == minor);
        BOOST_TEST(!o.newer);
        BOOST_TEST(!o.free_threaded);
        BOOST_TEST(o.runtime_interpreters_head == 808u);
        BOOST_TEST(o.interp_threads_head == 7344u);
        BOOST_TEST(o.tstate_current_frame == 72u);
        BOOST_TEST(o.tstate_thread_id == 152u);
        BOOST_TEST(o.tstate_base_frame == (minor >= 15 ? 80 : -1));
        BOOST_TEST(o.frame_owner == 74u);
        BOOST_TEST(o.code_adaptive == 208u);
        BOOST_TEST(o.frame_localsplus == 80u);
        BOOST_TEST(o.code_localsplusnames == 96u);
        BOOST_TEST(o.compact_size == (minor >= 15 ? 56 : -1));
    }
}

BOOST_AUTO_TEST_CASE(a_newer_version_is_read_with_the_newest_positions) {
    auto t = table(15, 0x31000f0); // 3.16.0
    pydebug::Offsets o;
    BOOST_TEST_REQUIRE(static_cast<int>(pydebug::parse(t.data(), t.size(), &o)) ==
                       static_cast<int>(Status::ok));
    BOOST_TEST(o.minor == 16u);
    BOOST_TEST(o.newer);
    // The tests' stand-in: any table taken for 3.99.
    BOOST_TEST(static_cast<int>(pydebug::parse(t.data(), t.size(), &o, 99)) ==
               static_cast<int>(Status::ok));
    BOOST_TEST(o.minor == 99u);
    BOOST_TEST((o.version >> 16 & 0xff) == 99u);
}

BOOST_AUTO_TEST_CASE(another_shape_is_refused) {
    // 3.13's and 3.14's tables read with 3.15's positions (a 3.16 that
    // inserted fields before the ones read).
    for (u32 minor : {13u, 14u}) {
        auto t = table(minor, 0x30d12f0);
        t.resize(t.size() + 512, 0); // long enough for 3.15's table
        pydebug::Offsets o;
        BOOST_TEST(static_cast<int>(pydebug::parse(t.data(), t.size(), &o, 99)) ==
                   static_cast<int>(Status::bad_layout));
        BOOST_TEST(o.minor == 99u); // still named in the warning
    }
    // An offset past its structure.
    auto t = table(14, 0x30e0af0, 4096);
    pydebug::Offsets o;
    BOOST_TEST(static_cast<int>(pydebug::parse(t.data(), t.size(), &o)) ==
               static_cast<int>(Status::bad_layout));
}

BOOST_AUTO_TEST_CASE(no_cookie_old_version_short_and_free_threaded) {
    auto t = table(14, 0x30e0af0);
    pydebug::Offsets o;
    std::vector<u8> nothing(t.size(), 0);
    BOOST_TEST(static_cast<int>(pydebug::parse(nothing.data(), nothing.size(), &o)) ==
               static_cast<int>(Status::no_cookie));
    BOOST_TEST(static_cast<int>(pydebug::parse(t.data(), 100, &o)) ==
               static_cast<int>(Status::too_short));
    auto old = table(13, 0x30c03f0); // 3.12 has no table: a cookie would be garbage
    BOOST_TEST(static_cast<int>(pydebug::parse(old.data(), old.size(), &o)) ==
               static_cast<int>(Status::bad_version));
    t[16] = 1; // free_threaded
    BOOST_TEST_REQUIRE(static_cast<int>(pydebug::parse(t.data(), t.size(), &o)) ==
                       static_cast<int>(Status::ok));
    BOOST_TEST(o.free_threaded);
}
