// From stack words to the frames a person reads: function, file, line and
// object, with inlined calls expanded into frames of their own.
#pragma once

#include "mg_sites.hpp"

namespace mg {

struct Frame {
    Addr ip;
    const HChar* function; // null when unknown
    const HChar* file;     // as the debug info names it; null when unknown
    Int line;              // 0 when unknown
    const HChar* object;   // the ELF object; null when unknown
    bool python;
};

// Calls visit(frame, ctx) for each frame of a site's stack, innermost
// first, stopping below main(). The strings live until visit returns.
void for_each_frame(const Site* s, void (*visit)(const Frame& f, void* ctx), void* ctx);

} // namespace mg
