// The tool's stack tree (core/intern_table.hpp's StackTree): every
// allocation stack once, as one node per distinct (word, caller node). A
// million stacks that share their callers cost a few million 16-byte nodes,
// not a million arrays of 32 words; a site keeps only its innermost node.
#pragma once

#include "mg_vg.hpp"
#include "records/mg_stacks.hpp"

namespace mg {

// The node of a stack without words.
constexpr UInt kEmptyStack = ~0u;

// The node of words[0..n) (innermost first), added when new. Each purpose
// remembers its own last stack (a free's stack shares little with an
// allocation's).
UInt stack_tree_intern(const Addr* words, UInt n, StackPurpose purpose = StackPurpose::allocation);
// The words of node's stack, innermost first, into out (at most max of
// them); their count.
UInt stack_tree_read(UInt node, Addr* out, UInt max);
// One node: its word and its caller's node (kEmptyStack for an outermost
// one). Callers are interned before their callees, so a caller's id is
// always below its callee's.
Addr stack_tree_word(UInt node);
UInt stack_tree_caller(UInt node);
UInt stack_tree_size();

} // namespace mg
