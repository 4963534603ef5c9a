// SPDX-License-Identifier: GPL-2.0-or-later
// Valgrind-format suppression files: parsing, matching a stack, and writing
// one for a stack.
//
// memgrow reads its own suppression files (for growth sites, which Valgrind's
// error manager never sees), so this follows Valgrind 3.19's rules
// (coregrind/m_errormgr.c) closely enough that a file written for memcheck
// loads the same way: the same lines are skipped, the same input is rejected,
// and `...` and globs match the same stacks. Like the rest of core/ it is
// freestanding: no libc, no allocation, no exceptions.
#pragma once

#include "types.hpp"

namespace mg::supp {

enum class LineKind : u8 { fun, obj, src, ellipsis };

struct Line {
    LineKind kind;
    const char* pattern; // null for `...`
    u32 src_line;        // src: only, 0 = any line
};

// Valgrind's VG_DEEPEST_BACKTRACE: no stack has more frames than this.
constexpr u32 kMaxLines = 256;

struct Entry {
    const char* name;  // the suppression's name line
    const char* kind;  // the part after "tool:" e.g. "Leaked"
    u32 first_line;    // 1-based line of the opening '{'
    const Line* lines; // location lines in the order written (innermost frame first)
    u32 n_lines;
};

struct ParseError {
    u32 line;            // 1-based
    const char* message; // static
};

struct FrameView {
    const char* function; // null when unknown
    const char* file;     // source file (native: as debug info names it; Python: co_filename)
    u32 line;             // 0 when unknown
    const char* object;   // ELF object path; null when unknown or a Python frame
    bool python;
};

// --- string helpers (no libc here) -------------------------------------------

inline bool str_eq(const char* a, const char* b) {
    while (*a && *a == *b)
        ++a, ++b;
    return *a == *b;
}

inline bool starts_with(const char* s, const char* prefix) {
    for (; *prefix; ++s, ++prefix)
        if (*s != *prefix) return false;
    return true;
}

inline bool has_char(const char* s, char c) {
    for (; *s; ++s)
        if (*s == c) return true;
    return false;
}

// The same set as Valgrind's VG_(isspace).
inline bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Whole-string glob: `*` any run (also empty), `?` one character, `\` makes
// the next character literal (so generated lines can name functions such as
// `operator*` exactly). A trailing lone `\` matches nothing. Iterative with
// one backtrack point, so long names cannot blow up time or stack.
inline bool glob(const char* p, const char* s) {
    const char* star_p = nullptr; // pattern just after the last `*`
    const char* star_s = nullptr; // where that `*` currently stops in s
    while (*s) {
        if (*p == '*') {
            star_p = ++p;
            star_s = s;
            continue;
        }
        if (*p == '?') {
            ++p, ++s;
            continue;
        }
        char c = *p;
        const char* next = p + 1;
        if (c == '\\') c = p[1], next = p + 2;
        if (c && c == *s) {
            p = next, ++s;
            continue;
        }
        if (!star_p) return false;
        p = star_p; // let the last `*` swallow one more character
        s = ++star_s;
    }
    while (*p == '*')
        ++p;
    return *p == 0;
}

// Whether `tool` is one of the comma-separated names in `list` (exactly).
inline bool tool_listed(const char* list, const char* tool) {
    const char* p = list;
    for (;;) {
        const char* t = tool;
        while (*t && *p == *t)
            ++p, ++t;
        if (!*t && (*p == ',' || *p == 0)) return true;
        while (*p && *p != ',')
            ++p;
        if (!*p) return false;
        ++p;
    }
}

// --- parsing ------------------------------------------------------------------

// Hands out the file's lines as Valgrind's get_nbnc_line does: trimmed,
// NUL-terminated in place, skipping blank and '#' lines.
class LineReader {
  public:
    explicit LineReader(char* text) : p_(text) {}

    // The next line, or null at the end of the text (line() is then eof_line()).
    char* next() {
        while (*p_) {
            char* start = p_;
            char* end = p_;
            while (*end && *end != '\n')
                ++end;
            u32 here = next_line_;
            after_newline_ = *end != 0;
            if (*end) {
                p_ = end + 1;
                ++next_line_;
            } else {
                p_ = end;
            }
            while (start < end && is_space(*start))
                ++start;
            while (end > start && is_space(end[-1]))
                --end;
            if (start == end || *start == '#') continue;
            *end = 0;
            line_ = here;
            return start;
        }
        return nullptr;
    }
    // Line number of the line last returned.
    u32 line() const { return line_; }
    // Line number to report an unexpected end of file at: the file's last line.
    u32 eof_line() const { return after_newline_ ? next_line_ - 1 : next_line_; }

  private:
    char* p_;
    u32 next_line_ = 1;
    u32 line_ = 0;
    bool after_newline_ = false; // the text read so far ends with '\n'
};

// Fills *out from a location line (modifying a src: line in place to drop
// its ":LINE"); false when it is not one.
inline bool parse_location(char* s, Line* out) {
    out->src_line = 0;
    if (str_eq(s, "...")) {
        out->kind = LineKind::ellipsis;
        out->pattern = nullptr;
        return true;
    }
    if (starts_with(s, "fun:"))
        out->kind = LineKind::fun;
    else if (starts_with(s, "obj:"))
        out->kind = LineKind::obj;
    else if (starts_with(s, "src:"))
        out->kind = LineKind::src;
    else
        return false;
    s += 4;
    out->pattern = s;
    if (out->kind != LineKind::src) return true;
    // "src:FILE:LINE": the line is the part after the last ':' when all digits.
    char* colon = nullptr;
    for (char* q = s; *q; ++q)
        if (*q == ':') colon = q;
    if (!colon) return true;
    u32 line = 0;
    for (const char* q = colon + 1; *q; ++q) {
        if (*q < '0' || *q > '9') return true;
        u32 d = static_cast<u32>(*q - '0');
        line = line > (0xffffffffu - d) / 10 ? 0xffffffffu : line * 10 + d;
    }
    *colon = 0;
    out->src_line = line;
    return true;
}

// Parses a whole suppression file held in `text` (NUL-terminated, modified in
// place: the strings handed out point into it). For each suppression whose
// tool list names `tool`, calls on_entry(const Entry&) -> bool; the Entry and
// its lines live only during the call (lines sit on this function's stack),
// so copy what you keep. on_entry returning false stops with "rejected" at
// the entry's '{' line. Suppressions for other tools are skipped whole, as
// Valgrind does; for `tool`, a line before the first location line is an
// error (memgrow reads no extra suppression info). Returns false with *err on
// malformed input.
template <class OnEntry>
bool parse(char* text, const char* tool, OnEntry on_entry, ParseError* err) {
    LineReader in(text);
    auto fail = [&](u32 line, const char* message) {
        if (err) err->line = line, err->message = message;
        return false;
    };
    Line lines[kMaxLines];
    for (;;) {
        char* s = in.next();
        if (!s) return true;
        if (!str_eq(s, "{")) return fail(in.line(), "expected '{' or end-of-file");
        u32 first_line = in.line();

        char* name = in.next();
        if (!name) return fail(in.eof_line(), "unexpected end-of-file (expecting a name)");
        if (str_eq(name, "}")) return fail(in.line(), "unexpected '}' (expecting a name)");

        char* tools = in.next();
        if (!tools) return fail(in.eof_line(), "unexpected end-of-file (expecting tool:suppr)");
        char* kind = tools;
        while (*kind && *kind != ':')
            ++kind;
        if (!*kind) return fail(in.line(), "malformed 'tool1,tool2,...:suppr' line");
        *kind++ = 0;

        if (!tool_listed(tools, tool)) {
            for (;;) {
                s = in.next();
                if (!s)
                    return fail(in.eof_line(),
                                "unexpected end-of-file (when skipping suppression)");
                if (str_eq(s, "}")) break;
            }
            continue;
        }

        // memgrow:Param has memcheck's extra line, the system call's argument
        // ("read(buf)"), which Valgrind's core reads and matches.
        if (str_eq(kind, "Param")) {
            s = in.next();
            if (!s) return fail(in.eof_line(), "unexpected end-of-file (expecting the argument)");
            if (str_eq(s, "}")) return fail(in.line(), "missing the system call's argument");
        }

        u32 n = 0;
        bool any_frame_line = false;
        for (;;) {
            s = in.next();
            if (!s) return fail(in.eof_line(), "unexpected end-of-file (when reading stack trace)");
            if (str_eq(s, "}")) {
                if (n == 0) return fail(in.line(), "missing stack trace");
                break;
            }
            Line l;
            if (!parse_location(s, &l)) {
                if (n == 0)
                    return fail(in.line(), "unexpected line before the stack trace (expected "
                                           "\"...\", fun:, obj: or src:)");
                return fail(in.line(), "location should be \"...\", or should start with "
                                       "\"fun:\", \"obj:\", or \"src:\"");
            }
            if (n == kMaxLines) return fail(in.line(), "too many callers in stack trace");
            if (l.kind != LineKind::ellipsis) any_frame_line = true;
            lines[n++] = l;
        }
        if (!any_frame_line)
            return fail(in.line(),
                        "suppression must contain at least one location line which is not \"...\"");

        Entry e{name, kind, first_line, lines, n};
        if (!on_entry(static_cast<const Entry&>(e))) return fail(first_line, "rejected");
    }
}

// --- matching -----------------------------------------------------------------

inline const char* basename(const char* path) {
    const char* base = path;
    for (; *path; ++path)
        if (*path == '/') base = path + 1;
    return base;
}

// Whether one location line (not `...`) matches one frame.
inline bool line_matches(const Line& l, const FrameView& f) {
    switch (l.kind) {
    case LineKind::fun:
        return glob(l.pattern, f.function ? f.function : "???");
    case LineKind::obj:
        return glob(l.pattern, f.object && !f.python ? f.object : "???");
    case LineKind::src:
        if (!f.file) return false;
        if (!glob(l.pattern, has_char(l.pattern, '/') ? f.file : basename(f.file))) return false;
        return l.src_line == 0 || l.src_line == f.line;
    case LineKind::ellipsis:
        break;
    }
    return false;
}

// Valgrind's generic_match in prefix mode, `...` as the star: every line is
// consumed, the stack may go on. Iterative with one backtrack point (matching
// each run between `...`s at its earliest place is never worse).
inline bool matches_as_written(const Line* lines, u32 n_lines, const FrameView* frames,
                               u32 n_frames) {
    u32 p = 0, i = 0;
    bool have_star = false;
    u32 star_p = 0, star_i = 0;
    while (p < n_lines) {
        if (lines[p].kind == LineKind::ellipsis) {
            have_star = true;
            star_p = ++p;
            star_i = i;
            continue;
        }
        if (i < n_frames && line_matches(lines[p], frames[i])) {
            ++p, ++i;
            continue;
        }
        if (!have_star || star_i >= n_frames) return false;
        p = star_p;
        i = ++star_i;
    }
    return true;
}

// The names memcheck's stacks start with: its leak stacks begin inside the
// allocator, memgrow's at the allocator's caller.
inline bool is_allocator_line(const Line& l) {
    static constexpr const char* kFunctions[] = {
        "malloc",
        "calloc",
        "realloc",
        "memalign",
        "posix_memalign",
        "aligned_alloc",
        "valloc",
        "operator new(unsigned long)",
        "operator new[](unsigned long)",
        "operator new(unsigned long, std::nothrow_t const&)",
        "operator new[](unsigned long, std::nothrow_t const&)",
        "operator new(unsigned long, std::align_val_t)",
        "operator new[](unsigned long, std::align_val_t)",
        "operator new(unsigned long, std::align_val_t, std::nothrow_t const&)",
        "operator new[](unsigned long, std::align_val_t, std::nothrow_t const&)",
        "_Znwm",
        "_Znam",
        "_ZnwmRKSt9nothrow_t",
        "_ZnamRKSt9nothrow_t",
        "_ZnwmSt11align_val_t",
        "_ZnamSt11align_val_t",
        "_ZnwmSt11align_val_tRKSt9nothrow_t",
        "_ZnamSt11align_val_tRKSt9nothrow_t",
    };
    static constexpr const char* kObjects[] = {
        "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so",
        "/usr/libexec/valgrind/vgpreload_memgrow-amd64-linux.so",
    };
    if (l.kind == LineKind::fun) {
        for (const char* name : kFunctions)
            if (glob(l.pattern, name)) return true;
    } else if (l.kind == LineKind::obj) {
        for (const char* name : kObjects)
            if (glob(l.pattern, name)) return true;
    }
    return false;
}

// Whether the location lines match a stack (frames innermost first). A
// memcheck-style pattern whose first line names the allocator is retried
// without it, provided what is left still names a frame (a lone `fun:malloc`
// must not suppress everything).
inline bool matches(const Line* lines, u32 n_lines, const FrameView* frames, u32 n_frames) {
    if (matches_as_written(lines, n_lines, frames, n_frames)) return true;
    if (n_lines < 2 || !is_allocator_line(lines[0])) return false;
    bool rest_names_a_frame = false;
    for (u32 k = 1; k < n_lines; ++k)
        if (lines[k].kind != LineKind::ellipsis) rest_names_a_frame = true;
    return rest_names_a_frame && matches_as_written(lines + 1, n_lines - 1, frames, n_frames);
}

// --- generating ---------------------------------------------------------------

// Bounded writer: keeps room for the NUL, drops what does not fit.
struct Writer {
    char* out;
    usize cap;
    usize n = 0;

    void put(char c) {
        if (n + 1 < cap) out[n++] = c;
    }
    void raw(const char* s) {
        for (; *s; ++s)
            put(*s);
    }
    // One line's text: a newline would split the line, so it becomes a space.
    void text(const char* s) {
        for (; *s; ++s)
            put(*s == '\n' || *s == '\r' ? ' ' : *s);
    }
    // A pattern that matches exactly s.
    void escaped(const char* s) {
        for (; *s; ++s) {
            if (*s == '*' || *s == '?' || *s == '\\') put('\\');
            put(*s == '\n' || *s == '\r' ? ' ' : *s);
        }
    }
    usize finish() {
        if (cap) out[n] = 0;
        return n;
    }
};

// Writes a suppression for the stack (frames innermost first, at most
// kMaxLines of them) into out in Valgrind's layout, NUL-terminated and
// truncated to cap; returns the length written (cap - 1 when it was cut).
// A null name gets Valgrind's placeholder.
inline usize generate(const char* name, const char* tool_and_kind, const FrameView* frames,
                      u32 n_frames, char* out, usize cap) {
    Writer w{out, cap};
    w.raw("{\n   ");
    w.text(name ? name : "<insert_a_suppression_name_here>");
    w.raw("\n   ");
    w.text(tool_and_kind);
    w.put('\n');
    if (n_frames > kMaxLines) n_frames = kMaxLines;
    for (u32 k = 0; k < n_frames; ++k) {
        const FrameView& f = frames[k];
        if (f.function) {
            w.raw("   fun:");
            w.escaped(f.function);
        } else if (f.object && !f.python) {
            w.raw("   obj:");
            w.escaped(f.object);
        } else {
            w.raw("   obj:*");
        }
        w.put('\n');
    }
    w.raw("}\n");
    return w.finish();
}

} // namespace mg::supp
