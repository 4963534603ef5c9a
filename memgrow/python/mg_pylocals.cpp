// SPDX-License-Identifier: GPL-2.0-or-later
#include "python/mg_pylocals.hpp"
#include "python/mg_client_memory.hpp"
#include "python/mg_pyobject.hpp"
#include "python/mg_python.hpp"
#include "python/mg_python_layout.hpp"

namespace mg {

namespace {

struct LiveFrame {
    Addr slots; // its first local's slot
    Addr code;
    Addr names; // the code's tuple of local names (co_localsplusnames)
    UInt n;     // its locals (cells and free variables included)
};

constexpr UInt kMaxFrames = 4096;
constexpr Long kMaxLocals = 1 << 16;
LiveFrame* frames;
UInt n_frames;

void add_frame(Addr frame, Addr code, void*) {
    const PyLayout* l = python_layout();
    Addr names;
    Long n;
    if (n_frames == kMaxFrames || !read_client(code + l->code_localsplusnames, &names) ||
        !read_client(names + kObSize, &n) || n <= 0 || n > kMaxLocals ||
        !client_readable(frame + l->frame_localsplus, static_cast<SizeT>(n) * 8))
        return;
    frames[n_frames++] = LiveFrame{frame + l->frame_localsplus, code, names, static_cast<UInt>(n)};
}

const LiveFrame* frame_of(Addr a) {
    for (UInt i = 0; i < n_frames; ++i)
        if (a >= frames[i].slots && a < frames[i].slots + 8ull * frames[i].n &&
            (a - frames[i].slots) % 8 == 0)
            return &frames[i];
    return nullptr;
}

} // namespace

void pylocals_snapshot() {
    n_frames = 0;
    const PyLayout* l = python_layout();
    if (!l || !l->frame_localsplus) return;
    if (!frames)
        frames = static_cast<LiveFrame*>(
            VG_(malloc)("mg.pylocals.frames", kMaxFrames * sizeof(LiveFrame)));
    python_for_each_frame(add_frame, nullptr);
}

bool pylocals_slot(Addr a) {
    return frame_of(a) != nullptr;
}

bool pylocals_name(Addr a, HChar* out, SizeT n) {
    const LiveFrame* f = frame_of(a);
    const PyLayout* l = python_layout();
    if (!f || !l) return false;
    HChar function[128], local[64];
    Addr qualname, name;
    UInt k = static_cast<UInt>((a - f->slots) / 8);
    if (!read_client(f->code + l->code_qualname, &qualname) ||
        !python_string(qualname, function, sizeof function) ||
        !(name = pyobj_tuple_item(f->names, k)) || !python_string(name, local, sizeof local))
        return false;
    VG_(snprintf)(out, n, "%s.<locals>.%s", function, local);
    return true;
}

} // namespace mg
