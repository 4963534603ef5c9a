// SPDX-License-Identifier: GPL-2.0-or-later
// SystemTap SDT ("USDT") probes as <sys/sdt.h> records them: each probe is
// a note of type 3, owner "stapsdt", in an object's `.note.stapsdt` section
// (https://sourceware.org/systemtap/wiki/UserSpaceProbeImplementation):
//
//   desc: pc, base, semaphore (3 addresses), then provider, name and the
//         argument string, each NUL-terminated
//
// and the argument string is a space-separated list of `[-]SIZE@OPERAND`
// in the assembler's syntax (x86-64 AT&T here): `-8@%rax`, `-1@%dl`,
// `-8@-56(%rbp)`, `4@$5`, `8@16(%rsp,%rax,8)`. A negative size is a signed
// value. This header only parses: it reads no file and trusts no length.
#pragma once

#include "types.hpp"

namespace mg {
namespace sdt {

constexpr u32 kNoteType = 3;
constexpr u32 kMaxArgs = 12; // <sys/sdt.h>'s STAP_PROBE12

// x86-64's general registers in the hardware's numbering (rax rcx rdx rbx
// rsp rbp rsi rdi r8..r15), then rip.
constexpr u8 kRip = 16;
constexpr u8 kNoReg = 0xff;

struct Operand {
    enum Kind : u8 { reg, mem, imm } kind = imm;
    u8 size = 8; // bytes of the value: 1, 2, 4 or 8
    bool is_signed = false;
    u8 base = kNoReg;  // reg: the register; mem: the base, if any
    u8 reg_bytes = 8;  // reg: the width its name selects (%dl: 1)
    u8 reg_shift = 0;  // reg: 8 for the high-byte names (%ah)
    u8 index = kNoReg; // mem: the index register, if any
    u8 scale = 1;      // mem: the index's scale
    i64 disp = 0;      // mem: the displacement; imm: the value
};

struct Note {
    u64 pc, base, semaphore;
    const char* provider;
    const char* name;
    const char* args;
};

namespace detail {

inline bool same(const char* a, u32 n, const char* b) {
    u32 i = 0;
    for (; i < n; ++i)
        if (a[i] != b[i] || !b[i]) return false;
    return b[i] == 0;
}

struct RegName {
    const char* name;
    u8 reg, bytes, shift;
};

// Names of one register family: 64, 32, 16 and low-8-bit forms.
inline bool lookup_reg(const char* s, u32 n, u8* reg, u8* bytes, u8* shift) {
    static const RegName kNames[] = {
        {"rax", 0, 8, 0}, {"eax", 0, 4, 0},    {"ax", 0, 2, 0},  {"al", 0, 1, 0},  {"ah", 0, 1, 8},
        {"rcx", 1, 8, 0}, {"ecx", 1, 4, 0},    {"cx", 1, 2, 0},  {"cl", 1, 1, 0},  {"ch", 1, 1, 8},
        {"rdx", 2, 8, 0}, {"edx", 2, 4, 0},    {"dx", 2, 2, 0},  {"dl", 2, 1, 0},  {"dh", 2, 1, 8},
        {"rbx", 3, 8, 0}, {"ebx", 3, 4, 0},    {"bx", 3, 2, 0},  {"bl", 3, 1, 0},  {"bh", 3, 1, 8},
        {"rsp", 4, 8, 0}, {"esp", 4, 4, 0},    {"sp", 4, 2, 0},  {"spl", 4, 1, 0}, {"rbp", 5, 8, 0},
        {"ebp", 5, 4, 0}, {"bp", 5, 2, 0},     {"bpl", 5, 1, 0}, {"rsi", 6, 8, 0}, {"esi", 6, 4, 0},
        {"si", 6, 2, 0},  {"sil", 6, 1, 0},    {"rdi", 7, 8, 0}, {"edi", 7, 4, 0}, {"di", 7, 2, 0},
        {"dil", 7, 1, 0}, {"rip", kRip, 8, 0},
    };
    for (const RegName& r : kNames)
        if (same(s, n, r.name)) {
            *reg = r.reg, *bytes = r.bytes, *shift = r.shift;
            return true;
        }
    // r8..r15 with their d, w, b suffixes.
    if (n < 2 || s[0] != 'r' || s[1] < '0' || s[1] > '9') return false;
    u32 i = 1, num = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        num = num * 10 + static_cast<u32>(s[i++] - '0');
    if (num < 8 || num > 15 || n - i > 1) return false;
    u8 w = 8;
    if (i < n) {
        if (s[i] == 'd')
            w = 4;
        else if (s[i] == 'w')
            w = 2;
        else if (s[i] == 'b')
            w = 1;
        else
            return false;
    }
    *reg = static_cast<u8>(num), *bytes = w, *shift = 0;
    return true;
}

struct Cursor {
    const char* p;
    const char* end;
    bool at(char c) const { return p < end && *p == c; }
    bool eat(char c) {
        if (!at(c)) return false;
        ++p;
        return true;
    }
    // A decimal or 0x number with an optional sign.
    bool number(i64* out) {
        bool neg = eat('-');
        if (!neg) eat('+');
        u64 v = 0;
        u32 digits = 0;
        if (p + 1 < end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
            p += 2;
            for (; p < end; ++p, ++digits) {
                char c = *p;
                u32 d;
                if (c >= '0' && c <= '9')
                    d = static_cast<u32>(c - '0');
                else if (c >= 'a' && c <= 'f')
                    d = static_cast<u32>(c - 'a' + 10);
                else if (c >= 'A' && c <= 'F')
                    d = static_cast<u32>(c - 'A' + 10);
                else
                    break;
                if (digits >= 16) return false;
                v = v * 16 + d;
            }
        } else {
            for (; p < end && *p >= '0' && *p <= '9'; ++p, ++digits) {
                if (digits >= 19) return false;
                v = v * 10 + static_cast<u64>(*p - '0');
            }
        }
        if (!digits) return false;
        *out = neg ? -static_cast<i64>(v) : static_cast<i64>(v);
        return true;
    }
    bool reg(u8* r, u8* bytes, u8* shift) {
        if (!eat('%')) return false;
        const char* s = p;
        while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            ++p;
        return lookup_reg(s, static_cast<u32>(p - s), r, bytes, shift);
    }
};

// One operand (after its size): %reg, $imm, [disp](base[,index[,scale]]).
inline bool operand(Cursor& c, Operand* op) {
    if (c.at('%')) {
        op->kind = Operand::reg;
        return c.reg(&op->base, &op->reg_bytes, &op->reg_shift) && c.p == c.end;
    }
    if (c.eat('$')) {
        op->kind = Operand::imm;
        return c.number(&op->disp) && c.p == c.end;
    }
    op->kind = Operand::mem;
    // A symbol's name as the displacement (`counter(%rip)`) needs the
    // object's symbol table: not supported.
    if (!c.at('(') && !c.number(&op->disp)) return false;
    if (!c.eat('(')) return false;
    u8 bytes, shift;
    if (c.at('%') && (!c.reg(&op->base, &bytes, &shift) || bytes != 8)) return false;
    if (c.eat(',')) {
        if (!c.reg(&op->index, &bytes, &shift) || bytes != 8 || op->index == kRip) return false;
        if (c.eat(',')) {
            i64 s;
            if (!c.number(&s) || (s != 1 && s != 2 && s != 4 && s != 8)) return false;
            op->scale = static_cast<u8>(s);
        }
    }
    return c.eat(')') && c.p == c.end && (op->base != kNoReg || op->index != kNoReg);
}

} // namespace detail

// Parses an argument string of n characters into at most max operands.
// False when any argument is not understood (the probe's arguments cannot
// be read then); *count is the number of arguments.
inline bool parse_args(const char* s, usize n, Operand* out, u32 max, u32* count) {
    *count = 0;
    usize i = 0;
    while (true) {
        while (i < n && s[i] == ' ')
            ++i;
        if (i >= n) return true;
        usize j = i;
        while (j < n && s[j] != ' ')
            ++j;
        if (*count >= max) return false;
        Operand op;
        detail::Cursor c{s + i, s + j};
        // `[-]N@operand`; an operand alone (the oldest format) is 8 bytes.
        const char* at = c.p;
        while (at < c.end && *at != '@')
            ++at;
        if (at < c.end) {
            i64 size;
            if (!c.number(&size) || c.p != at) return false;
            op.is_signed = size < 0;
            if (size < 0) size = -size;
            if (size != 1 && size != 2 && size != 4 && size != 8) return false;
            op.size = static_cast<u8>(size);
            c.p = at + 1;
        }
        if (!detail::operand(c, &op)) return false;
        out[(*count)++] = op;
        i = j;
    }
}

// Reads a probe's note descriptor of n bytes (little-endian addresses);
// false when it is too short or its strings are not terminated inside it.
inline bool parse_desc(const u8* d, usize n, Note* out) {
    if (n < 24) return false;
    u64 words[3];
    for (u32 w = 0; w < 3; ++w) {
        u64 v = 0;
        for (u32 b = 0; b < 8; ++b)
            v |= static_cast<u64>(d[w * 8 + b]) << (8 * b);
        words[w] = v;
    }
    const char* strings[3];
    usize at = 24;
    for (u32 k = 0; k < 3; ++k) {
        strings[k] = reinterpret_cast<const char*>(d + at);
        while (at < n && d[at])
            ++at;
        if (at >= n) return false;
        ++at;
    }
    *out = Note{words[0], words[1], words[2], strings[0], strings[1], strings[2]};
    return true;
}

inline u32 read_u32(const u8* p) {
    return static_cast<u32>(p[0]) | static_cast<u32>(p[1]) << 8 | static_cast<u32>(p[2]) << 16 |
           static_cast<u32>(p[3]) << 24;
}

// Calls f(const Note&) for each SDT probe note in a note section's n bytes
// (other notes are skipped); stops at the first malformed header. Returns the
// number of probe notes found.
template <class F> u32 for_each_note(const u8* sec, usize n, F&& f) {
    u32 found = 0;
    usize at = 0;
    auto pad4 = [](usize x) { return (x + 3) & ~static_cast<usize>(3); };
    while (n - at >= 12) {
        usize namesz = read_u32(sec + at), descsz = read_u32(sec + at + 4);
        u32 type = read_u32(sec + at + 8);
        usize name_at = at + 12;
        if (namesz > n - name_at) return found;
        usize desc_at = name_at + pad4(namesz);
        if (desc_at > n || descsz > n - desc_at) return found;
        Note note;
        if (type == kNoteType && namesz == 8 &&
            detail::same(reinterpret_cast<const char*>(sec + name_at), 7, "stapsdt") &&
            sec[name_at + 7] == 0 && parse_desc(sec + desc_at, descsz, &note)) {
            ++found;
            f(note);
        }
        usize next = desc_at + pad4(descsz);
        if (next <= at || next > n) return found;
        at = next;
    }
    return found;
}

// Where a probe runs once its object is loaded with this bias: <sys/sdt.h>
// records the address of `.stapsdt.base` in each note, so a prelinked object
// whose sections moved after linking shows how far (systemtap and gdb adjust
// the same way). base_sh_addr: the section's address now, 0 when absent.
inline u64 relocate(u64 link_addr, u64 note_base, u64 base_sh_addr, u64 bias) {
    if (note_base && base_sh_addr) link_addr += base_sh_addr - note_base;
    return link_addr + bias;
}

} // namespace sdt
} // namespace mg
