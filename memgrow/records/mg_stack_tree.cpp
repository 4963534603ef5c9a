// SPDX-License-Identifier: GPL-2.0-or-later
#include "records/mg_stack_tree.hpp"
#include "core/intern_table.hpp"

namespace mg {

namespace {

void* tree_alloc(usize bytes) {
    return VG_(malloc)("mg.stack_tree", bytes);
}
void tree_free(void* p) {
    VG_(free)(p);
}

void* free_tree_alloc(usize bytes) {
    return VG_(malloc)("mg.free_stacks", bytes);
}

__constinit StackTree tree(tree_alloc, tree_free);

// Two trees for the free stacks: the one in use, and the one a compaction
// moves the kept stacks into.
__constinit StackTree free_a(free_tree_alloc, tree_free), free_b(free_tree_alloc, tree_free);
StackTree* free_now = &free_a;
StackTree* free_next = &free_b;

UInt intern_into(StackTree& t, const Addr* words, UInt n) {
    static_assert(sizeof(Addr) == sizeof(u64), "64-bit words");
    bool full;
    UInt node = t.intern(reinterpret_cast<const u64*>(words), n, &full);
    // VG_(malloc) does not fail; running out of 32-bit ids would.
    tl_assert2(!full, "memgrow: a stack tree is full (4 billion nodes)");
    return node;
}

} // namespace

UInt stack_tree_intern(const Addr* words, UInt n) {
    return intern_into(tree, words, n);
}

UInt stack_tree_read(UInt node, Addr* out, UInt max) {
    UInt n = 0;
    for (; node != kEmptyStack && n < max; node = tree.caller(node))
        out[n++] = tree.word(node);
    return n;
}

Addr stack_tree_word(UInt node) {
    return tree.word(node);
}

UInt stack_tree_caller(UInt node) {
    return tree.caller(node);
}

UInt stack_tree_size() {
    return tree.size();
}

void stack_tree_drop_index() {
    tree.drop_index();
}

UInt free_stack_intern(const Addr* words, UInt n) {
    return intern_into(*free_now, words, n);
}

UInt free_stack_read(UInt node, Addr* out, UInt max) {
    UInt n = 0;
    if (node >= free_now->size()) return 0; // released (the last report)
    for (; node != kEmptyStack && n < max; node = free_now->caller(node))
        out[n++] = free_now->word(node);
    return n;
}

UInt free_stacks_size() {
    return free_now->size();
}

void free_stacks_compact_begin() {
    free_next->reset();
}

UInt free_stack_keep(UInt node) {
    Addr w[kMaxFreeStackFrames];
    UInt n = free_stack_read(node, w, kMaxFreeStackFrames);
    return intern_into(*free_next, w, n);
}

void free_stacks_compact_end() {
    free_now->reset();
    StackTree* t = free_now;
    free_now = free_next;
    free_next = t;
}

void free_stacks_release() {
    free_a.reset();
    free_b.reset();
}

} // namespace mg
