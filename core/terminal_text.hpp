// SPDX-License-Identifier: GPL-2.0-or-later
// Names from the client (Python dict keys, attribute and module names, file
// and function names) as a terminal may show them: what could move the
// cursor, end a line, reorder it or hide itself is written as an escape.
// C0 and C1 controls (NUL, newline, ESC, ...) and DEL as \xNN (\n, \t, \r by
// name), the bidirectional and invisible format characters (U+200B..U+200F,
// U+202A..U+202E, U+2060..U+2069, U+061C, U+FEFF) as \uNNNN, bytes that are
// not UTF-8 as \xNN, and a backslash as \\ so that the escapes stay
// unambiguous. The tool's log and `memgrow-report show` share it; header-only
// and freestanding (no library at all): the tool includes it.
#pragma once

namespace mg::terminal_text {

namespace detail {

// The length of the UTF-8 sequence at s[i] (n bytes in all) and its code
// point, or 0 when the bytes there are not one (a stray continuation, an
// overlong form, a surrogate, a sequence cut short).
inline unsigned long utf8_at(const char* s, unsigned long n, unsigned long i, unsigned& cp) {
    const auto byte = [&](unsigned long k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = byte(i);
    const unsigned long len = b >= 0xf0 && b < 0xf5 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 0;
    if (len == 0 || (b >= 0xf0 && len != 4) || i + len > n) return 0;
    cp = b & (0x7fu >> len);
    for (unsigned long k = 1; k < len; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (byte(i + k) & 0x3fu);
    }
    static const unsigned kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kLeast[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

// Characters that reorder or hide text: the bidirectional controls and the
// invisible format characters.
inline bool is_format(unsigned cp) {
    return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

// "\x" or "\u" and `digits` hex digits of v into out; returns the length.
inline unsigned long hex_escape(char kind, unsigned v, int digits, char* out) {
    static const char kHex[] = "0123456789abcdef";
    out[0] = '\\';
    out[1] = kind;
    for (int d = 0; d < digits; ++d)
        out[2 + d] = kHex[(v >> (4 * (digits - 1 - d))) & 0xf];
    return 2 + static_cast<unsigned long>(digits);
}

} // namespace detail

// Calls put(const char* piece, unsigned long length) with s's n bytes,
// escaped, in order.
template <class Put> void escape(const char* s, unsigned long n, Put put) {
    char esc[8];
    for (unsigned long i = 0; i < n;) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            unsigned cp = 0;
            unsigned long len = detail::utf8_at(s, n, i, cp);
            if (len == 0)
                put(esc, detail::hex_escape('x', c, 2, esc)), len = 1;
            else if (cp < 0xa0 || detail::is_format(cp))
                put(esc, detail::hex_escape('u', cp, 4, esc));
            else
                put(s + i, len);
            i += len;
            continue;
        }
        if (c == '\\')
            put("\\\\", 2);
        else if (c == '\n')
            put("\\n", 2);
        else if (c == '\t')
            put("\\t", 2);
        else if (c == '\r')
            put("\\r", 2);
        else if (c < 0x20 || c == 0x7f)
            put(esc, detail::hex_escape('x', c, 2, esc));
        else
            put(s + i, 1);
        ++i;
    }
}

} // namespace mg::terminal_text
