// SPDX-License-Identifier: GPL-2.0-or-later
// SDT probe notes and their argument strings (core/sdt_note.hpp).
#define BOOST_TEST_MODULE sdt_note
#include <boost/test/unit_test.hpp>

#include "core/sdt_note.hpp"

#include <cstring>
#include <string>
#include <vector>

using namespace mg;
using sdt::Operand;

namespace {

std::vector<Operand> args(const std::string& s, bool* ok = nullptr) {
    Operand out[sdt::kMaxArgs];
    u32 n = 0;
    bool parsed = sdt::parse_args(s.data(), s.size(), out, sdt::kMaxArgs, &n);
    if (ok) *ok = parsed;
    return std::vector<Operand>(out, out + (parsed ? n : 0));
}

bool parses(const std::string& s) {
    bool ok;
    args(s, &ok);
    return ok;
}

void put_u32(std::vector<u8>& v, u32 x) {
    for (int i = 0; i < 4; ++i)
        v.push_back(static_cast<u8>(x >> (8 * i)));
}

void put_u64(std::vector<u8>& v, u64 x) {
    for (int i = 0; i < 8; ++i)
        v.push_back(static_cast<u8>(x >> (8 * i)));
}

void pad(std::vector<u8>& v) {
    while (v.size() % 4)
        v.push_back(0);
}

void note(std::vector<u8>& v, const char* owner, u32 type, u64 pc, u64 base, u64 sem,
          const char* provider, const char* name, const char* a) {
    std::vector<u8> desc;
    put_u64(desc, pc), put_u64(desc, base), put_u64(desc, sem);
    for (const char* s : {provider, name, a})
        desc.insert(desc.end(), s, s + std::strlen(s) + 1);
    put_u32(v, static_cast<u32>(std::strlen(owner) + 1));
    put_u32(v, static_cast<u32>(desc.size()));
    put_u32(v, type);
    v.insert(v.end(), owner, owner + std::strlen(owner) + 1);
    pad(v);
    v.insert(v.end(), desc.begin(), desc.end());
    pad(v);
}

} // namespace

BOOST_AUTO_TEST_CASE(torch_malloc_arguments) {
    // pytorch:malloc in torch 2.11's libc10_cuda.so: ptr, device, size, stream.
    auto a = args("-8@%rax -1@%dl -8@%r14 -8@-56(%rbp)");
    BOOST_REQUIRE_EQUAL(a.size(), 4u);
    BOOST_TEST(a[0].kind == Operand::reg);
    BOOST_TEST(a[0].base == 0);
    BOOST_TEST(a[0].size == 8);
    BOOST_TEST(a[0].is_signed);
    BOOST_TEST(a[1].kind == Operand::reg);
    BOOST_TEST(a[1].base == 2);
    BOOST_TEST(a[1].reg_bytes == 1);
    BOOST_TEST(a[1].size == 1);
    BOOST_TEST(a[2].base == 14);
    BOOST_TEST(a[2].reg_bytes == 8);
    BOOST_TEST(a[3].kind == Operand::mem);
    BOOST_TEST(a[3].base == 5);
    BOOST_TEST(a[3].disp == -56);
    BOOST_TEST(a[3].index == sdt::kNoReg);
}

BOOST_AUTO_TEST_CASE(operand_kinds) {
    auto a = args("8@$5 -4@$-3 2@%ax 1@%ah 4@%r9d 8@(%rsp) 8@16(%rsp,%rax,8) 4@0x10(,%rcx,4) "
                  "%rdi 1@%sil 2@%r10w 1@%r15b");
    BOOST_REQUIRE_EQUAL(a.size(), 12u);
    BOOST_TEST(a[0].kind == Operand::imm);
    BOOST_TEST(a[0].disp == 5);
    BOOST_TEST(!a[0].is_signed);
    BOOST_TEST(a[1].disp == -3);
    BOOST_TEST(a[1].is_signed);
    BOOST_TEST(a[2].reg_bytes == 2);
    BOOST_TEST(a[3].reg_shift == 8);
    BOOST_TEST(a[3].base == 0);
    BOOST_TEST(a[4].base == 9);
    BOOST_TEST(a[4].reg_bytes == 4);
    BOOST_TEST(a[5].kind == Operand::mem);
    BOOST_TEST(a[5].base == 4);
    BOOST_TEST(a[5].disp == 0);
    BOOST_TEST(a[6].index == 0);
    BOOST_TEST(a[6].scale == 8);
    BOOST_TEST(a[6].disp == 16);
    BOOST_TEST(a[7].base == sdt::kNoReg);
    BOOST_TEST(a[7].index == 1);
    BOOST_TEST(a[7].disp == 16);
    BOOST_TEST(a[8].kind == Operand::reg); // no size: 8 bytes
    BOOST_TEST(a[8].size == 8);
    BOOST_TEST(a[9].base == 6);
    BOOST_TEST(a[10].base == 10);
    BOOST_TEST(a[10].reg_bytes == 2);
    BOOST_TEST(a[11].base == 15);
    BOOST_TEST(a[11].reg_bytes == 1);
    BOOST_TEST(args("").empty());
    BOOST_TEST(parses("  -8@%rax  "));
}

BOOST_AUTO_TEST_CASE(what_is_not_understood) {
    for (const char* s : {"8@counter(%rip)", "3@%rax", "8@%xmm0", "8@%r16", "8@-56(%ebp)",
                          "8@(%rax", "8@()", "8@$", "8@$5x", "@%rax", "8@%rax,", "8@(%rax,%rbx,3)",
                          "-8@%rax 8@%foo", "99999999999999999999@%rax", "8@$0x"})
        BOOST_TEST(!parses(s), s);
    // More than the caller's room.
    Operand out[2];
    u32 n;
    BOOST_TEST(!sdt::parse_args("8@%rax 8@%rbx 8@%rcx", 20, out, 2, &n));
}

BOOST_AUTO_TEST_CASE(notes_of_a_section) {
    std::vector<u8> sec;
    note(sec, "stapsdt", 3, 0x1234, 0x4000, 0x6010, "pytorch", "malloc", "-8@%rax -1@%dl");
    note(sec, "GNU", 3, 1, 2, 3, "x", "y", "");     // another owner
    note(sec, "stapsdt", 1, 1, 2, 3, "x", "y", ""); // another type
    note(sec, "stapsdt", 3, 0x2000, 0x4000, 0, "pytorch", "free", "-8@%rdi");
    std::vector<sdt::Note> seen;
    u32 n =
        sdt::for_each_note(sec.data(), sec.size(), [&](const sdt::Note& x) { seen.push_back(x); });
    BOOST_REQUIRE_EQUAL(n, 2u);
    BOOST_TEST(seen[0].pc == 0x1234u);
    BOOST_TEST(seen[0].base == 0x4000u);
    BOOST_TEST(seen[0].semaphore == 0x6010u);
    BOOST_TEST(std::string(seen[0].provider) == "pytorch");
    BOOST_TEST(std::string(seen[0].name) == "malloc");
    BOOST_TEST(std::string(seen[0].args) == "-8@%rax -1@%dl");
    BOOST_TEST(std::string(seen[1].name) == "free");
    BOOST_TEST(seen[1].semaphore == 0u);
}

BOOST_AUTO_TEST_CASE(garbage_never_reads_past_the_section) {
    std::vector<u8> sec;
    note(sec, "stapsdt", 3, 0x1234, 0x4000, 0x6010, "pytorch", "malloc", "-8@%rax");
    // Every truncation, and every byte changed, stays inside the buffer
    // (the sanitizers of a debug build would say otherwise).
    for (usize len = 0; len <= sec.size(); ++len) {
        std::vector<u8> cut(sec.begin(), sec.begin() + static_cast<long>(len));
        u32 n = sdt::for_each_note(cut.data(), cut.size(), [](const sdt::Note&) {});
        BOOST_TEST(n <= 1u);
        if (len == sec.size()) BOOST_TEST(n == 1u);
    }
    for (usize i = 0; i < sec.size(); ++i)
        for (u8 v : {u8(0), u8(0xff), u8(0x7f)}) {
            std::vector<u8> bad = sec;
            bad[i] = v;
            sdt::for_each_note(bad.data(), bad.size(),
                               [](const sdt::Note& x) { BOOST_TEST(std::strlen(x.args) < 64u); });
        }
}

BOOST_AUTO_TEST_CASE(prelink_adjustment) {
    // .stapsdt.base moved by 0x1000 since the note was written.
    BOOST_TEST(sdt::relocate(0x1234, 0x4000, 0x5000, 0x7f0000000000) == 0x7f0000002234u);
    BOOST_TEST(sdt::relocate(0x1234, 0x4000, 0x4000, 0x1000) == 0x2234u);
    // No section, or no base in the note: the bias only.
    BOOST_TEST(sdt::relocate(0x1234, 0x4000, 0, 0x1000) == 0x2234u);
    BOOST_TEST(sdt::relocate(0x1234, 0, 0x5000, 0x1000) == 0x2234u);
}
