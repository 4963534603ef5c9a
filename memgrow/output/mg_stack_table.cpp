#include "output/mg_stack_table.hpp"
#include "core/intern_table.hpp"
#include "core/json_writer.hpp"

namespace mg {

namespace {

void* table_alloc(usize bytes) {
    return VG_(malloc)("mg.json.stacks", bytes);
}
void table_free(void* p) {
    VG_(free)(p);
}

// A frame is (code word, inline depth): one word gives several frames when
// calls were inlined at it. The epoch of its first sight symbolises it (as
// records/mg_symbols.cpp keeps one epoch per address): sites made before and
// after a dlopen share their frames. Nodes are (frame, caller node + 1).
__constinit FrameInternTable frames_table(table_alloc, table_free);
__constinit NodeInternTable nodes_table(table_alloc, table_free);
FrameInternTable* const frames = &frames_table;
NodeInternTable* const nodes = &nodes_table;

constexpr UInt kMaxStackFrames = 4096;

struct Collect {
    UInt ids[kMaxStackFrames];
    UInt n;
    DiEpoch ep;
    bool failed;
};

void collect(const Frame& f, void* ctx) {
    auto* c = static_cast<Collect*>(ctx);
    if (c->n == kMaxStackFrames || c->failed) return;
    UInt id = frames->intern(f.ip, f.inlined, c->ep.n);
    if (id == FrameInternTable::kNone)
        c->failed = true;
    else
        c->ids[c->n++] = id;
}

// Writes the frame that is `depth` frames into the ones of `word`.
struct Pick {
    JsonWriter* w;
    UInt inlined;
    bool done;
};

void write_frame_row(const Frame& f, void* ctx) {
    auto* p = static_cast<Pick*>(ctx);
    if (p->done || f.inlined != p->inlined) return;
    p->done = true;
    JsonWriter& w = *p->w;
    w.begin_array();
    w.string(f.function);
    w.string(f.file);
    if (f.line > 0)
        w.integer(f.line);
    else
        w.null();
    w.string(f.object);
    HChar ip[24];
    VG_(sprintf)(ip, "%#lx", f.ip);
    w.string(f.python ? nullptr : ip); // null marks a Python frame
    w.end_array();
}

} // namespace

void stack_table_begin() {
    stack_table_end();
}

UInt stack_table_add(const StackWord* words, UInt n, DiEpoch ep) {
    static Collect c; // 16 KiB: not on Valgrind's small tool stack
    c.n = 0, c.ep = ep, c.failed = false;
    for_each_frame(words, n, ep, collect, &c);
    if (c.failed || c.n == 0) return kNoStack;
    // From the outermost frame in: a caller's node is shared by every stack
    // that passes through it.
    u32 parent = 0;
    for (UInt i = c.n; i-- > 0;) {
        UInt node = nodes->intern(c.ids[i], parent);
        // parent + 1 must fit: kNone - 1 nodes is past any real report.
        if (node == NodeInternTable::kNone || node + 1 == NodeInternTable::kNone) return kNoStack;
        parent = node + 1;
    }
    return parent - 1;
}

void stack_table_write(JsonWriter& w) {
    w.key("frames");
    w.begin_array();
    for (UInt id = 0; id < frames->size(); ++id) {
        StackWord word = frames->first(id);
        DiEpoch ep;
        ep.n = frames->payload(id);
        Pick p{&w, static_cast<UInt>(frames->second(id)), false};
        for_each_frame(&word, 1, ep, write_frame_row, &p);
        if (!p.done) // the debug info changed under us: an unknown frame, never a hole
            write_frame_row(Frame{word, nullptr, nullptr, 0, nullptr, false, p.inlined}, &p);
    }
    w.end_array();
    // Pairs (frame, how many nodes back the caller is), 0 for an outermost
    // frame, flat. A caller is interned before its callees, so the distance
    // is at least 1, and 1 for most nodes (a stack's frames are interned
    // outermost first, one after the other): 50 MB of caller indices in a
    // PyTorch report were 29 MB as distances.
    w.key("stacks");
    w.begin_array();
    for (UInt id = 0; id < nodes->size(); ++id) {
        w.uinteger(nodes->first(id));
        UInt caller = static_cast<UInt>(nodes->second(id)); // caller node + 1, 0: none
        w.uinteger(caller ? id - (caller - 1) : 0);
    }
    w.end_array();
}

void stack_table_end() {
    frames->reset();
    nodes->reset();
}

} // namespace mg
