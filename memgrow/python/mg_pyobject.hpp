// SPDX-License-Identifier: GPL-2.0-or-later
// CPython objects read from the client's memory for the holders
// (memgrow/holders/): what object a heap block is, its type, a container's
// length and bound, a dict's entries. Every read is checked first
// (mg_client_memory.hpp) and every answer validated: a freed, half-built or
// corrupted object gives "not an object", never a crash or a hang.
//
// The layouts used here are the stable parts of CPython's object model on
// 3.11 to 3.15 (x86-64, GIL builds): the object header, PyTypeObject's
// public fields, dicts and their keys, lists, tuples, deques and the C
// lru_cache (docs/holders.md lists them).
#pragma once

#include "mg_vg.hpp"

namespace mg {

// Whether objects can be read: an interpreter is active.
bool pyobj_on();

// The object a heap block holds (past its GC header and pre-header), or 0.
Addr pyobj_in_block(Addr block, SizeT size);
// An object's type when it is a valid one (its chain of types reaches
// `type`, which is its own type), else 0.
Addr pyobj_type(Addr obj);
// A type's tp_flags (0 when unreadable).
ULong pyobj_type_flags(Addr type);
constexpr ULong kPyTypeHeap = 1ul << 9, kPyTypeGC = 1ul << 14, kPyTypeIsType = 1ul << 31;
constexpr ULong kPyTypeLongSubclass = 1ul << 24, kPyTypeBytesSubclass = 1ul << 27,
                kPyTypeUnicodeSubclass = 1ul << 28;
// A type's name as the program writes it: "collections.deque", "dict", and
// a class of the program by its module ("service.RequestLog").
void pyobj_type_name(Addr type, HChar* buf, SizeT n);
// Whether type's tp_name is exactly name.
bool pyobj_type_is(Addr type, const HChar* name);

// Whether the word at `at` (in the block at `parent`, 0 for a root) holding
// ptr, which points into [target, target + size), is an edge that keeps
// nothing alive in the program's sense: a GC list link (a pointer at a GC
// header), an object's type pointer, or a word of _PyRuntime (whose caches
// hold borrowed pointers).
bool pyobj_weak_edge(Addr at, Addr ptr, Addr target, SizeT size, Addr parent);
// Whether the block is a dead object parked on one of CPython's free lists
// (docs/holders.md): an object of a valid type whose reference count is 0
// (3.11, 3.12; the last of a 3.13+ list) or the link to the next one (3.13+
// write it over ob_refcnt), or a smallest dict keys table likewise; or,
// untyped, what may be a 3.11/3.12 float linked through its type word (a
// shape common in native memory: only one reached from the interpreter's
// statics or from another parked block is one).
enum class Parked : UChar { no, object, untyped };
Parked pyobj_parked(Addr block, SizeT size);
// Whether the word at offset `at` of an object of this type is no pointer:
// an int's digits, a float, a bytes' bytes, a str's characters (past its
// largest header: a str of the legacy API points at its data). A word there
// that looks like a pointer is a number or text, and such an object is
// never a holder. Exact types only: a subclass' instance has a __dict__.
bool pyobj_pointer_free(Addr type, Addr at);

// A str as UTF-8, shortened to fit n bytes (an ellipsis marks the cut).
bool pyobj_str(Addr obj, HChar* buf, SizeT n);
// An int that fits 60 bits.
bool pyobj_int(Addr obj, Long* v);
// A short Python literal for a key: 'tok12', 42, or <tuple>.
void pyobj_key_text(Addr obj, HChar* buf, SizeT n);

// A dict's entries: f(ctx, key, value, address of the value's word) until f
// returns false. Split dicts (an instance's attributes) are read with their
// values array. Entries past the keys' capacity are never read.
using DictVisit = bool (*)(void* ctx, Addr key, Addr value, Addr value_at);
void pyobj_dict_entries(Addr dict, DictVisit f, void* ctx);
// The value of a str key, or 0.
Addr pyobj_dict_get(Addr dict, const HChar* key);
// The dict an object keeps its attributes in (a type's tp_dict, a module's
// md_dict, an instance's dict or managed dict), or 0.
Addr pyobj_attributes(Addr obj);

// PyFunctionObject's common fields (3.11 to 3.15): globals, builtins, name,
// qualname, code, defaults, kwdefaults, closure.
constexpr UInt kFuncGlobals = 16, kFuncQualname = 40, kFuncCode = 48, kFuncDefaults = 56,
               kFuncClosure = 72;

// Item k of a tuple (checked against its length), or 0.
Addr pyobj_tuple_item(Addr tuple, Long k);
// A function's closure variable by name (the object its cell holds), or 0.
Addr pyobj_closure_variable(Addr func, const HChar* name);
// Whether obj is functools' Python lru_cache wrapper (where _functools is
// missing): a function whose code is `_lru_cache_wrapper.<locals>.wrapper`.
bool pyobj_python_lru(Addr obj);

// Length (items) and bound (the most it may hold; -1 when none) of a
// container object: dict, list, tuple, set, collections.deque (maxlen),
// functools._lru_cache_wrapper (maxsize; C or Python), queue.Queue (maxsize).
bool pyobj_length(Addr obj, Long* length, Long* bound);

} // namespace mg
