// SPDX-License-Identifier: GPL-2.0-or-later
// A streaming JSON writer with no dependencies.
//
// The tool writes its report through this (it has no libc); host programs and
// the unit tests use the same code, so what the tests check is what the tool
// emits. Output goes to a sink callback in chunks; commas and nesting are
// tracked here so callers cannot produce malformed JSON.
#pragma once

#include "format.hpp"
#include "types.hpp"

namespace mg {

// The length of the UTF-8 sequence that starts at s (1 to 4 bytes, s[0] not
// NUL), or 0 when s starts no valid one.
inline int utf8_length(const char* s) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c < 0x80) return 1;
    int len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    for (int i = 1; i < len; ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) return 0;
    return len;
}

class JsonWriter {
  public:
    using Sink = void (*)(void* ctx, const char* data, usize len);

    JsonWriter(Sink sink, void* ctx) : sink_(sink), ctx_(ctx) {}
    ~JsonWriter() { flush(); }
    JsonWriter(const JsonWriter&) = delete;
    JsonWriter& operator=(const JsonWriter&) = delete;

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }

    // The name of the next member of the current object.
    void key(const char* k) {
        separate();
        quoted(k);
        put(':');
        after_key_ = true;
    }

    void string(const char* s) {
        separate();
        if (s)
            quoted(s);
        else
            raw("null");
    }
    void null() {
        separate();
        raw("null");
    }
    void boolean(bool b) {
        separate();
        raw(b ? "true" : "false");
    }
    void integer(i64 v) {
        separate();
        if (v < 0) {
            put('-');
            digits(0 - static_cast<u64>(v));
        } else {
            digits(static_cast<u64>(v));
        }
    }
    void uinteger(u64 v) {
        separate();
        digits(v);
    }
    // Finite numbers with up to 6 fractional digits; NaN and infinities
    // have no JSON spelling and become null.
    void number(double v) {
        separate();
        if (v != v || v > 1e300 || v < -1e300) {
            raw("null");
            return;
        }
        char buf[kDecimalBuf];
        format_decimal(v, json_decimals(v), buf);
        raw(buf);
    }

    // Convenience: "k": value.
    void member(const char* k, const char* s) { key(k), string(s); }
    void member(const char* k, i64 v) { key(k), integer(v); }
    void member_u(const char* k, u64 v) { key(k), uinteger(v); }
    void member_num(const char* k, double v) { key(k), number(v); }
    void member_bool(const char* k, bool b) { key(k), boolean(b); }

    void flush() {
        if (used_) sink_(ctx_, buf_, used_);
        used_ = 0;
    }

  private:
    static constexpr u32 kMaxDepth = 32;
    static constexpr usize kBuf = 8192;

    void open(char c) {
        separate();
        put(c);
        if (depth_ < kMaxDepth) first_[depth_] = true;
        ++depth_;
    }
    void close(char c) {
        if (depth_) --depth_;
        put(c);
        if (depth_ == 0) put('\n');
    }
    // Writes the comma between siblings (not after a key).
    void separate() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (depth_ == 0 || depth_ > kMaxDepth) return;
        if (!first_[depth_ - 1]) put(',');
        first_[depth_ - 1] = false;
    }
    void quoted(const char* s) {
        static const char hex[] = "0123456789abcdef";
        put('"');
        for (; *s; ++s) {
            unsigned char c = static_cast<unsigned char>(*s);
            if (c == '"' || c == '\\')
                put('\\'), put(static_cast<char>(c));
            else if (c == '\n')
                raw("\\n");
            else if (c == '\t')
                raw("\\t");
            else if (c == '\r')
                raw("\\r");
            else if (c < 0x20 || c == 0x7f) {
                raw("\\u00");
                put(hex[c >> 4]);
                put(hex[c & 15]);
            } else if (c < 0x80) {
                put(static_cast<char>(c));
            } else {
                s += utf8_sequence(s) - 1;
            }
        }
        put('"');
    }
    // Copies one UTF-8 sequence starting at s, or writes U+FFFD for a byte
    // that does not start a valid one (names read from a client can be
    // anything). Returns the bytes consumed.
    int utf8_sequence(const char* s) {
        int len = utf8_length(s);
        if (len == 0) {
            raw("\\ufffd");
            return 1;
        }
        for (int i = 0; i < len; ++i)
            put(s[i]);
        return len;
    }
    void digits(u64 v) {
        char buf[20];
        int n = 0;
        do
            buf[n++] = static_cast<char>('0' + v % 10), v /= 10;
        while (v);
        while (n)
            put(buf[--n]);
    }
    void raw(const char* s) {
        for (; *s; ++s)
            put(*s);
    }
    void put(char c) {
        if (used_ == kBuf) flush();
        buf_[used_++] = c;
    }

    Sink sink_;
    void* ctx_;
    char buf_[kBuf];
    usize used_ = 0;
    bool first_[kMaxDepth] = {};
    u32 depth_ = 0;
    bool after_key_ = false;
};

} // namespace mg
