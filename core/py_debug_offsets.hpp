// SPDX-License-Identifier: GPL-2.0-or-later
// CPython's _Py_DebugOffsets (3.13+): the table of structure offsets that
// the interpreter publishes for debuggers and profilers at the start of
// _PyRuntime (Include/internal/pycore_debug_offsets.h). The tool reads it
// from the interpreter's ELF file (the .PyRuntime section's initial bytes)
// instead of compiling offsets per version, so that a patch release that
// moves a field, or a new minor version whose table has the same shape,
// needs no change.
//
// The table is a cookie ("xdebugpy") followed by 64-bit words only: the
// version (PY_VERSION_HEX), the free-threading flag, then one section per
// structure starting with the structure's size. New fields are inserted in
// the middle of sections between minor versions, so each version's word
// positions are listed here and a version newer than the newest listed is
// read with the newest list, then validated: a table of another shape fails
// the checks (offsets past their structure, object headers that every
// CPython shares) instead of giving garbage.
#pragma once

#include "types.hpp"

namespace mg {
namespace pydebug {

// What the frame reader needs, as offsets into each structure.
struct Offsets {
    u64 version;        // PY_VERSION_HEX: 3.minor.micro, release level and serial
    u32 minor;          // 3.minor
    bool free_threaded; // Py_GIL_DISABLED
    bool newer;         // read with the positions of an older version (validated)
    u64 runtime_interpreters_head;
    u64 interp_next, interp_threads_head;
    u64 tstate_next, tstate_interp, tstate_current_frame, tstate_thread_id;
    i64 tstate_base_frame; // a pointer to the thread's sentinel bottom frame (3.15); -1 before
    u64 frame_previous, frame_executable, frame_instr_ptr, frame_owner, frame_localsplus;
    u64 code_size, code_filename, code_qualname, code_linetable, code_firstlineno, code_adaptive,
        code_localsplusnames;
    u64 ascii_size;   // sizeof(PyASCIIObject)
    i64 compact_size; // sizeof(PyCompactUnicodeObject) (3.15); -1 before
};

enum class Status {
    ok,
    no_cookie,   // not a _Py_DebugOffsets table (CPython 3.12 or older)
    too_short,   // fewer bytes than the version's table
    bad_version, // the version word is not a CPython 3.13 or newer
    bad_layout,  // offsets outside their structures or headers that differ
};

// Word positions (the cookie is word 0) of one version's table, from
// offsetof(_Py_DebugOffsets, field) / 8 against that version's headers.
struct Positions {
    u32 minor; // the first version with these positions
    u32 runtime_size, interpreters_head;
    u32 interp_size, interp_next, threads_head;
    u32 tstate_size, tstate_next, tstate_interp, current_frame, thread_id;
    i32 base_frame; // -1: absent
    u32 frame_size, frame_previous, frame_executable, frame_instr_ptr, frame_owner,
        frame_localsplus;
    u32 code_size, code_filename, code_qualname, code_linetable, code_firstlineno, code_adaptive,
        code_localsplusnames;
    u32 ob_type, tp_name, bytes_ob_size, bytes_ob_sval, unicode_state, unicode_length, ascii_size;
    i32 compact_size; // -1: absent
    u32 n_words;      // sizeof(_Py_DebugOffsets) / 8
};

constexpr Positions kPositions[] = {
    {13, 3,  5,  6,  8,  9,  19, 21, 22, 23, 24, -1, 28, 29, 30, 31, 33,
     32, 34, 35, 37, 38, 39, 43, 41, 45, 47, 65, 66, 68, 69, 70, -1, 73},
    {14, 3,  5,  6,  8,  9,  22, 24, 25, 26, 27, -1, 31, 32, 33, 34, 36,
     35, 39, 40, 42, 43, 44, 48, 46, 51, 53, 75, 76, 78, 79, 80, -1, 95},
    {15, 3,  5,  6,  8,  9,  22, 24, 25, 26, 30, 27, 39, 40, 41, 42, 44,
     43, 47, 48, 50, 51, 52, 56, 54, 59, 61, 87, 88, 90, 91, 92, 93, 111},
};
constexpr u32 kNewestListed = 15;

// Object headers every CPython 3 has on 64-bit builds; the tool relies on
// them (mg_python_layout.hpp), so a table that says otherwise is not used.
constexpr u64 kObType = 8, kObSize = 16, kTpName = 24, kBytesData = 32;
constexpr u64 kUnicodeLength = 16, kUnicodeState = 32;

namespace detail {

constexpr u64 kMaxStruct = 1ull << 24;

inline bool within(u64 offset, u64 width, u64 size) {
    return offset <= size && width <= size - offset;
}

} // namespace detail

// Reads the table at the start of `image` (the .PyRuntime section's first
// `n` bytes). `as_minor`, when nonzero, pretends the version is 3.as_minor
// (the tests' stand-in for a future CPython). Past the cookie, out->version
// and out->minor are set whatever the result, for messages.
inline Status parse(const u8* image, usize n, Offsets* out, u32 as_minor = 0) {
    static const char cookie[8] = {'x', 'd', 'e', 'b', 'u', 'g', 'p', 'y'};
    if (n < 24) return Status::no_cookie;
    for (int i = 0; i < 8; ++i)
        if (image[i] != static_cast<u8>(cookie[i])) return Status::no_cookie;
    auto word = [image](u32 k) {
        u64 v = 0;
        for (int b = 7; b >= 0; --b) // little-endian, whatever the alignment
            v = v << 8 | image[8 * k + static_cast<u32>(b)];
        return v;
    };
    Offsets o{};
    o.version = word(1);
    o.minor = static_cast<u32>(o.version >> 16 & 0xff);
    if (as_minor) {
        o.minor = as_minor;
        o.version = (o.version & ~0xff0000ull) | static_cast<u64>(as_minor & 0xff) << 16;
    }
    out->version = o.version;
    out->minor = o.minor;
    if (o.version >> 24 != 3 || o.minor < 13) return Status::bad_version;
    o.free_threaded = word(2) != 0;
    const Positions* p = &kPositions[0];
    for (const Positions& q : kPositions)
        if (q.minor <= o.minor) p = &q;
    o.newer = o.minor > kNewestListed;
    if (n < 8ull * p->n_words) return Status::too_short;

    u64 runtime_size = word(p->runtime_size), interp_size = word(p->interp_size),
        tstate_size = word(p->tstate_size), frame_size = word(p->frame_size);
    o.runtime_interpreters_head = word(p->interpreters_head);
    o.interp_next = word(p->interp_next);
    o.interp_threads_head = word(p->threads_head);
    o.tstate_next = word(p->tstate_next);
    o.tstate_interp = word(p->tstate_interp);
    o.tstate_current_frame = word(p->current_frame);
    o.tstate_thread_id = word(p->thread_id);
    o.tstate_base_frame = p->base_frame >= 0 ? static_cast<i64>(word(p->base_frame)) : -1;
    o.frame_previous = word(p->frame_previous);
    o.frame_executable = word(p->frame_executable);
    o.frame_instr_ptr = word(p->frame_instr_ptr);
    o.frame_owner = word(p->frame_owner);
    o.frame_localsplus = word(p->frame_localsplus);
    o.code_size = word(p->code_size);
    o.code_filename = word(p->code_filename);
    o.code_qualname = word(p->code_qualname);
    o.code_linetable = word(p->code_linetable);
    o.code_firstlineno = word(p->code_firstlineno);
    o.code_adaptive = word(p->code_adaptive);
    o.code_localsplusnames = word(p->code_localsplusnames);
    o.ascii_size = word(p->ascii_size);
    o.compact_size = p->compact_size >= 0 ? static_cast<i64>(word(p->compact_size)) : -1;

    using detail::within;
    bool sizes = runtime_size && runtime_size < detail::kMaxStruct && interp_size &&
                 interp_size < detail::kMaxStruct && tstate_size &&
                 tstate_size < detail::kMaxStruct && frame_size && frame_size < 4096 &&
                 o.code_size && o.code_size < 4096;
    bool fields =
        sizes && within(o.runtime_interpreters_head, 8, runtime_size) &&
        within(o.interp_next, 8, interp_size) && within(o.interp_threads_head, 8, interp_size) &&
        within(o.tstate_next, 8, tstate_size) && within(o.tstate_interp, 8, tstate_size) &&
        within(o.tstate_current_frame, 8, tstate_size) &&
        within(o.tstate_thread_id, 8, tstate_size) &&
        (o.tstate_base_frame < 0 ||
         within(static_cast<u64>(o.tstate_base_frame), 8, tstate_size)) &&
        within(o.frame_previous, 8, frame_size) && within(o.frame_executable, 8, frame_size) &&
        within(o.frame_instr_ptr, 8, frame_size) && within(o.frame_owner, 1, frame_size) &&
        o.frame_localsplus <= frame_size && o.frame_localsplus % 8 == 0 &&
        within(o.code_localsplusnames, 8, o.code_size) && within(o.code_filename, 8, o.code_size) &&
        within(o.code_qualname, 8, o.code_size) && within(o.code_linetable, 8, o.code_size) &&
        within(o.code_firstlineno, 4, o.code_size) && o.code_adaptive <= o.code_size &&
        o.code_adaptive >= 24;
    bool headers = word(p->ob_type) == kObType && word(p->tp_name) == kTpName &&
                   word(p->bytes_ob_size) == kObSize && word(p->bytes_ob_sval) == kBytesData &&
                   word(p->unicode_length) == kUnicodeLength &&
                   word(p->unicode_state) == kUnicodeState && o.ascii_size >= 40 &&
                   o.ascii_size <= 256 &&
                   (o.compact_size < 0 || (static_cast<u64>(o.compact_size) >= o.ascii_size &&
                                           static_cast<u64>(o.compact_size) <= 256));
    if (!fields || !headers) return Status::bad_layout;
    *out = o;
    return Status::ok;
}

} // namespace pydebug
} // namespace mg
