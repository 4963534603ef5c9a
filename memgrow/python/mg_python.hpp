// SPDX-License-Identifier: GPL-2.0-or-later
// Python attribution: CPython's frames read from the client's memory at each
// allocation (no code runs in the client), so that a stack names Python
// files, functions and lines instead of the interpreter's evaluation loop.
//
// The interpreter is found once (its _PyRuntime, by the .PyRuntime section
// of its ELF file), each allocation finds its thread's state by pthread_self,
// walks the frame chain and turns each frame into a token (function identity
// and line) with a per-code-object cache. Every read of client memory is
// checked first; anything unexpected ends the walk, and a layout that does
// not match at the start turns attribution off with one warning.
#pragma once

#include "records/mg_sites.hpp"

namespace mg {

// The Python frames of one thread, innermost first, cut into segments: one
// per C-level call of the evaluation loop (_PyEval_EvalFrameDefault), the
// innermost first. segment_end[k] is one past segment k's last token;
// segment_entry[k] is the address of the entry frame that ends it (3.12+:
// a local variable of that call, so on its native stack frame), or 0.
struct PythonStack {
    static constexpr UInt kMaxTokens = 256, kMaxSegments = 64;
    StackWord tokens[kMaxTokens];
    UInt n_tokens;
    UInt segment_end[kMaxSegments];
    Addr segment_entry[kMaxSegments];
    UInt n_segments;
};

// Looks for an interpreter among newly loaded objects when code was mapped
// since the last call; cheap otherwise. Returns whether attribution is on.
bool python_poll();

// New executable code was mapped (an interpreter may have been loaded).
void python_code_mapped();

// The Python frames of tid now, at most max_tokens of them.
void python_stack(ThreadId tid, UInt max_tokens, PythonStack* out);

// Whether a native code address is in the evaluation loop, and whether it
// is in the interpreter's own code (the call machinery between frames).
bool python_is_eval(Addr ip);
bool python_in_interpreter(Addr ip);

// CPython starts the main script: with Python frames on, the warm-up ends
// later, at the first allocation from Python code outside an import (the
// imports at the top of a script are start-up too); true when deferred.
bool python_defer_warmup_end();
// The script's imports still run (the deferred warm-up has not ended).
bool python_startup_pending();
// Teardown begins: a warm-up still deferred ends now (the script did nothing
// but import).
void python_settle_warmup();

// A heap block is being freed: forget it if it was a code object.
void python_block_freed(Addr a, SizeT size);

// Whether the heap block at a is an immortal CPython object (3.12+: its
// reference count says immortal and its type is a type).
bool python_immortal_object(Addr a, SizeT size);

// The active interpreter's layout, or null (no interpreter, or attribution
// off): what memgrow/python/mg_pyobject.cpp reads objects with.
struct PyLayout;
const PyLayout* python_layout();
// Whether a is the interpreter's static data: _PyRuntime (the runtime and
// its main interpreter's state) or another static of its file.
bool python_static_data(Addr a);
// Where a lies in _PyRuntime (and its size), when it does.
bool python_runtime_offset(Addr a, ULong* off, ULong* size);
// A str object as UTF-8, at most n - 1 bytes; false when it is not one.
bool python_string(Addr obj, HChar* out, SizeT n);

// Calls fn for each Python frame of every thread now, innermost first, with
// its code object (read from client memory: check before use).
void python_for_each_frame(void (*fn)(Addr frame, Addr code, void* ctx), void* ctx);

// The name of a Python frame token. False for a word that is not one.
bool python_frame_name(StackWord w, const HChar** function, const HChar** file, Int* line);

void python_print_stats();

} // namespace mg
