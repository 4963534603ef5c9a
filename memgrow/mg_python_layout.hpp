// Where CPython keeps what the frame reader needs, per minor version
// (x86-64, release builds). Offsets come from compiling offsetof() against
// each version's own internal headers (docs/python.md says how to redo it).
#pragma once

#include "mg_vg.hpp"

namespace mg {

struct PyLayout {
    UInt minor; // 3.minor
    // _PyRuntimeState
    UInt runtime_interpreters_head, runtime_finalizing, runtime_preconfig_allocator;
    // PyInterpreterState
    UInt interp_next, interp_threads_head;
    // PyThreadState
    UInt tstate_next, tstate_interp, tstate_cframe, tstate_thread_id;
    // _PyCFrame
    UInt cframe_current_frame;
    // _PyInterpreterFrame
    UInt frame_code, frame_previous, frame_prev_instr, frame_owner;
    Int frame_is_entry; // 3.11; -1 where shim frames mark entries instead (3.12)
    UChar owned_by_generator, owned_by_cstack; // owner values (cstack: 3.12, else 0xff)
    // PyCodeObject
    UInt code_size; // units follow: ob_size counts 2-byte code units
    UInt code_firstlineno, code_filename, code_qualname, code_linetable, code_firsttraceable,
        code_adaptive;
    // PyUnicodeObject: sizeof(PyASCIIObject) and PyCompactUnicodeObject, utf8
    UInt ascii_size, compact_size, compact_utf8;
    bool state_has_ready; // 3.11 keeps a "ready" bit after "ascii"
};

// Shared by every version: object headers, bytes and types.
constexpr UInt kObType = 8, kObSize = 16, kTpName = 24, kBytesData = 32;
constexpr UInt kUnicodeLength = 16, kUnicodeState = 32;

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
};

} // namespace mg
