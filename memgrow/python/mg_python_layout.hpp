// SPDX-License-Identifier: GPL-2.0-or-later
// Where CPython keeps what the frame reader needs (x86-64, release builds).
// 3.11 and 3.12: tables from compiling offsetof() against each version's own
// internal headers (docs/python.md says how to redo it). 3.13 and newer: the
// interpreter's own _Py_DebugOffsets (core/py_debug_offsets.hpp), and tables
// only for the few fields it does not give.
#pragma once

#include "mg_vg.hpp"
#include "core/py_debug_offsets.hpp"

namespace mg {

struct PyLayout {
    UInt minor; // 3.minor
    // _PyRuntimeState
    UInt runtime_interpreters_head, runtime_finalizing, runtime_preconfig_allocator;
    // PyInterpreterState
    UInt interp_next, interp_threads_head;
    // PyThreadState
    UInt tstate_next, tstate_interp, tstate_cframe, tstate_thread_id;
    // _PyCFrame (3.11, 3.12); -1: tstate_cframe is the current frame itself
    Int cframe_current_frame;
    // _PyInterpreterFrame
    UInt frame_code, frame_previous, frame_prev_instr, frame_owner;
    Int frame_is_entry; // 3.11; -1 where shim frames mark entries instead (3.12)
    // Owner values: generators' frames; the entry frame of each C call of
    // the evaluation loop and higher (3.12+; 3.11: 0xff, none)
    UChar owned_by_generator, first_entry_owner;
    // PyCodeObject
    UInt code_size; // units follow: ob_size counts 2-byte code units
    UInt code_firstlineno, code_filename, code_qualname, code_linetable,
        code_firsttraceable, // 0: unknown (a version newer than the tables)
        code_adaptive;
    // PyUnicodeObject: sizeof(PyASCIIObject) and PyCompactUnicodeObject, utf8
    UInt ascii_size, compact_size, compact_utf8;
    bool state_has_ready; // 3.11 keeps a "ready" bit after "ascii"
    // PyThreadState.base_frame: a pointer to the sentinel frame at the
    // bottom of every thread's chain (3.15+); -1 before
    Int tstate_base_frame;
    UChar import_name, import_from; // opcodes; 0: unknown
    // Where a frame's local variables begin, and the code object's tuple of
    // their names (the holder paths of live frames' locals)
    UInt frame_localsplus, code_localsplusnames;
};

// Shared by every version: object headers, bytes and types (for 3.13+ the
// debug offsets are checked to say the same).
constexpr UInt kObType = pydebug::kObType, kObSize = pydebug::kObSize, kTpName = pydebug::kTpName,
               kBytesData = pydebug::kBytesData;
constexpr UInt kUnicodeLength = pydebug::kUnicodeLength, kUnicodeState = pydebug::kUnicodeState;

constexpr PyLayout kPython311 = {
    11,
    /* runtime */ 0x28,
    0x18,
    0x27c,
    /* interp */ 0x0,
    0x10,
    /* tstate */ 0x8,
    0x10,
    0x38,
    0x98,
    /* cframe */ 0x8,
    /* frame */ 32,
    48,
    56,
    69,
    68,
    1,
    0xff,
    /* code */ 0xc0,
    0x48,
    0x70,
    0x80,
    0x88,
    0xa8,
    0xb8,
    /* unicode */ 48,
    72,
    56,
    true,
    /* base frame */ -1,
    /* opcodes */ 108,
    109,
    /* locals */ 72,
    96,
};

constexpr PyLayout kPython312 = {
    12,
    /* runtime */ 0x28,
    0x18,
    0xbdc,
    /* interp */ 0x0,
    0x48,
    /* tstate */ 0x8,
    0x10,
    0x38,
    0x88,
    /* cframe */ 0x0,
    /* frame */ 0,
    8,
    56,
    70,
    -1,
    1,
    3,
    /* code */ 0xc8,
    0x44,
    0x70,
    0x80,
    0x88,
    0xb0,
    0xc0,
    /* unicode */ 40,
    56,
    48,
    false,
    /* base frame */ -1,
    /* opcodes */ 108,
    109,
    /* locals */ 72,
    96,
};

// 3.13+: what _Py_DebugOffsets does not give, by minor version (offsetof()
// against Debian's 3.13.18, 3.14.10 and 3.15.2 headers; opcodes from each
// interpreter's `opcode` module). A newer version goes without them: no
// incomplete-frame check, no import-statement test, no pymalloc warning.
struct PyExtras {
    UInt minor, code_firsttraceable, runtime_preconfig_allocator;
    UChar import_name, import_from;
};
constexpr PyExtras kPythonExtras[] = {
    {13, 184, 0x28b4, 75, 74},
    {14, 192, 0x2974, 73, 72},
    {15, 192, 0x29ec, 72, 71},
};

// The layout of a 3.13+ interpreter from its debug offsets.
inline PyLayout layout_from_debug_offsets(const pydebug::Offsets& o) {
    PyLayout l{};
    l.minor = o.minor;
    l.runtime_interpreters_head = static_cast<UInt>(o.runtime_interpreters_head);
    l.interp_next = static_cast<UInt>(o.interp_next);
    l.interp_threads_head = static_cast<UInt>(o.interp_threads_head);
    l.tstate_next = static_cast<UInt>(o.tstate_next);
    l.tstate_interp = static_cast<UInt>(o.tstate_interp);
    l.tstate_cframe = static_cast<UInt>(o.tstate_current_frame);
    l.cframe_current_frame = -1;
    l.tstate_thread_id = static_cast<UInt>(o.tstate_thread_id);
    l.tstate_base_frame = static_cast<Int>(o.tstate_base_frame);
    l.frame_code = static_cast<UInt>(o.frame_executable);
    l.frame_previous = static_cast<UInt>(o.frame_previous);
    l.frame_prev_instr = static_cast<UInt>(o.frame_instr_ptr);
    l.frame_owner = static_cast<UInt>(o.frame_owner);
    l.frame_is_entry = -1;
    l.frame_localsplus = static_cast<UInt>(o.frame_localsplus);
    l.code_localsplusnames = static_cast<UInt>(o.code_localsplusnames);
    // Owners since 3.13 (Include/internal/pycore_frame.h, _interpframe_structs.h):
    // 1 generator; 3 (3.13 CSTACK, 3.14+ INTERPRETER) and 4 (3.14 CSTACK) are
    // not Python code; the interpreter's own entry frames are among them.
    l.owned_by_generator = 1;
    l.first_entry_owner = 3;
    l.code_size = static_cast<UInt>(o.code_size);
    l.code_firstlineno = static_cast<UInt>(o.code_firstlineno);
    l.code_filename = static_cast<UInt>(o.code_filename);
    l.code_qualname = static_cast<UInt>(o.code_qualname);
    l.code_linetable = static_cast<UInt>(o.code_linetable);
    l.code_adaptive = static_cast<UInt>(o.code_adaptive);
    l.ascii_size = static_cast<UInt>(o.ascii_size);
    // PyCompactUnicodeObject adds utf8_length and utf8 (3.12+).
    l.compact_size = o.compact_size >= 0 ? static_cast<UInt>(o.compact_size) : l.ascii_size + 16;
    l.compact_utf8 = l.compact_size - 8;
    l.state_has_ready = false;
    for (const PyExtras& e : kPythonExtras)
        if (e.minor == o.minor) {
            l.code_firsttraceable = e.code_firsttraceable;
            l.runtime_preconfig_allocator = e.runtime_preconfig_allocator;
            l.import_name = e.import_name;
            l.import_from = e.import_from;
        }
    return l;
}

} // namespace mg
