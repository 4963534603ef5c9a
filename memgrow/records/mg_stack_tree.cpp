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

__constinit StackTree tree(tree_alloc, tree_free);
StackTree::Memo free_memo; // the allocations' and revivals' memo is the tree's own

} // namespace

UInt stack_tree_intern(const Addr* words, UInt n, StackPurpose purpose) {
    bool full;
    static_assert(sizeof(Addr) == sizeof(u64), "64-bit words");
    auto* w = reinterpret_cast<const u64*>(words);
    UInt node = purpose == StackPurpose::deallocation ? tree.intern(w, n, &full, free_memo)
                                                      : tree.intern(w, n, &full);
    // VG_(malloc) does not fail; running out of 32-bit ids would.
    tl_assert2(!full, "memgrow: the stack tree is full (4 billion nodes)");
    return node;
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

} // namespace mg
