// SPDX-License-Identifier: GPL-2.0-or-later
// From stack words to the frames a person reads: function, file, line and
// object, with inlined calls expanded into frames of their own.
#pragma once

#include "records/mg_sites.hpp"

namespace mg {

struct Frame {
    Addr ip;
    const HChar* function; // null when unknown
    const HChar* file;     // as the debug info names it; null when unknown
    Int line;              // 0 when unknown
    const HChar* object;   // the ELF object; null when unknown
    bool python;
    UInt inlined; // its place among the frames of one word (calls inlined at ip), 0 first
};

using FrameVisitor = void (*)(const Frame& f, void* ctx);

// Calls visit(frame, ctx) for each frame of a stack, innermost first,
// stopping below main(). The strings live until visit returns.
void for_each_frame(const StackWord* words, UInt n, DiEpoch ep, FrameVisitor visit, void* ctx);

void for_each_frame(const Site* s, FrameVisitor visit, void* ctx);
// The same for a node of the stack tree and its callers.
void for_each_frame(UInt stack, DiEpoch ep, FrameVisitor visit, void* ctx);
// The frames of one word; false when it ends the stack (below main()).
bool for_each_frame_of_word(StackWord w, DiEpoch ep, FrameVisitor visit, void* ctx);

// The name a person knows the site by, "function (file:line)" with the
// file's directory dropped: its innermost frame in the program's own code,
// not in the C library, the loader, the C++ runtime, the interpreter or a
// Python library (core/site_name.hpp, the rule memgrow-report uses too);
// "" for a site without frames.
void site_title(const Site* s, HChar* out, SizeT size);
// The same frame of a node of the stack tree as "file:line (function)"
// (the copy-on-write lines, which lead with where); "" without frames.
void stack_place(UInt stack, DiEpoch ep, HChar* out, SizeT size);

// Whether ip is in the dynamic linker's code: the object whose soname is
// ld-linux*, which a stripped ld.so keeps (its .dynamic survives strip).
bool in_loader(Addr ip);

// The file of the loaded object whose static data holds a (its file-backed
// data, or the anonymous mapping that holds the rest of its .bss), or null.
const HChar* static_data_object(Addr a);

} // namespace mg
