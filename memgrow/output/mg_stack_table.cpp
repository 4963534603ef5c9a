// SPDX-License-Identifier: GPL-2.0-or-later
#include "output/mg_stack_table.hpp"
#include "core/intern_table.hpp"
#include "core/json_writer.hpp"
#include "records/mg_stack_tree.hpp"

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
// after a dlopen share their frames.
__constinit FrameInternTable frames_table(table_alloc, table_free);
FrameInternTable* const frames = &frames_table;

// By node of the tool's tree: kUnused, then (once used) the epoch that
// symbolises it, then (once numbered) its report node or kNoStack.
constexpr UInt kUnused = ~0u - 1;
UInt* of_node;
UInt n_nodes; // the tool's nodes when the report began

// The report's nodes: (frame id, caller node + 1). Interned, not only
// numbered: two tool stacks may read alike, as when they differ only below
// main() or in native frames a Python stack leaves out.
__constinit NodeInternTable rows_table(table_alloc, table_free);
NodeInternTable* const rows = &rows_table;

// Expands one word into rows, innermost frame last.
struct Expand {
    UInt caller; // the row below the next frame's, kNoStack for none
    DiEpoch ep;
    UInt n;
    UInt ids[64]; // the word's frames, innermost first
};

void collect(const Frame& f, void* ctx) {
    auto* e = static_cast<Expand*>(ctx);
    if (e->n == 64) return;
    UInt id = frames->intern(f.ip, f.inlined, e->ep.n);
    if (id != FrameInternTable::kNone) e->ids[e->n++] = id;
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

// Counts the frames of the words marked: at most that many report nodes.
void count_frame(const Frame&, void* ctx) {
    ++*static_cast<ULong*>(ctx);
}
ULong frames_marked;

} // namespace

void stack_table_begin() {
    stack_table_end();
    n_nodes = stack_tree_size();
    of_node = static_cast<UInt*>(table_alloc((n_nodes + 1) * sizeof(UInt)));
    for (UInt i = 0; i < n_nodes; ++i)
        of_node[i] = kUnused;
}

void stack_table_use(UInt stack, DiEpoch ep) {
    // The outer part of the stack is used already when this node is; what
    // is outside main() is not shown.
    for (UInt node = stack; node != kEmptyStack && node < n_nodes && of_node[node] == kUnused;
         node = stack_tree_caller(node)) {
        of_node[node] = ep.n;
        if (!for_each_frame_of_word(stack_tree_word(node), ep, count_frame, &frames_marked)) break;
    }
}

void stack_table_number() {
    rows->reserve(frames_marked < NodeInternTable::kNone ? static_cast<u32>(frames_marked) : 0);
    // Callers come before their callees in the tool's tree, so a node's
    // caller is numbered when the node is.
    static Expand e;
    for (UInt node = 0; node < n_nodes; ++node) {
        if (of_node[node] == kUnused) continue;
        e.ep.n = of_node[node];
        e.n = 0;
        UInt caller = stack_tree_caller(node);
        bool ends = !for_each_frame_of_word(stack_tree_word(node), e.ep, collect, &e);
        // A word below main() ends the stack: what is outside it is not shown.
        // (A caller is numbered before its callee, or cut off: unused.)
        UInt row = ends || caller == kEmptyStack || of_node[caller] == kUnused ? kNoStack
                                                                               : of_node[caller];
        for (UInt i = e.n; i-- > 0;) {
            UInt r = rows->intern(e.ids[i], row == kNoStack ? 0 : row + 1);
            // row + 1 must fit: kNone - 1 nodes is past any real report.
            if (r == NodeInternTable::kNone || r + 1 == NodeInternTable::kNone) break;
            row = r;
        }
        of_node[node] = row;
    }
}

UInt stack_table_id(UInt stack) {
    return stack == kEmptyStack || stack >= n_nodes || of_node[stack] == kUnused ? kNoStack
                                                                                 : of_node[stack];
}

UInt stack_table_frame(StackWord word, UInt inlined, DiEpoch ep) {
    UInt frame = frames->intern(word, inlined, ep.n);
    UInt node = frame == FrameInternTable::kNone ? kNoStack : rows->intern(frame, 0);
    return node == NodeInternTable::kNone ? kNoStack : node;
}

void stack_table_write(JsonWriter& w) {
    w.key("frames");
    w.begin_array();
    for (UInt id = 0; id < frames->size(); ++id) {
        StackWord word = frames->first(id);
        DiEpoch ep;
        ep.n = frames->payload(id);
        Pick p{&w, static_cast<UInt>(frames->second(id)), false};
        for_each_frame_of_word(word, ep, write_frame_row, &p);
        if (!p.done) // the debug info changed under us: an unknown frame, never a hole
            write_frame_row(Frame{word, nullptr, nullptr, 0, nullptr, false, p.inlined}, &p);
    }
    w.end_array();
    // Pairs (frame, how many nodes back the caller is), 0 for an outermost
    // frame, flat. A caller is interned before its callees, so the distance
    // is at least 1, and 1 for most nodes (a stack's frames are numbered
    // outermost first, one after the other): 50 MB of caller indices in a
    // PyTorch report were 29 MB as distances.
    w.key("stacks");
    w.begin_array();
    for (UInt id = 0; id < rows->size(); ++id) {
        w.uinteger(rows->first(id));
        UInt caller = static_cast<UInt>(rows->second(id)); // caller node + 1, 0: none
        w.uinteger(caller ? id - (caller - 1) : 0);
    }
    w.end_array();
}

void stack_table_end() {
    frames->reset();
    rows->reset();
    if (of_node) table_free(of_node);
    of_node = nullptr;
    n_nodes = 0;
    frames_marked = 0;
}

} // namespace mg
