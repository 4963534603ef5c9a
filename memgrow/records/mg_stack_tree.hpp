// SPDX-License-Identifier: GPL-2.0-or-later
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

// The node of words[0..n) (innermost first), added when new.
UInt stack_tree_intern(const Addr* words, UInt n);
// The words of node's stack, innermost first, into out (at most max of
// them); their count.
UInt stack_tree_read(UInt node, Addr* out, UInt max);
// One node: its word and its caller's node (kEmptyStack for an outermost
// one). Callers are interned before their callees, so a caller's id is
// always below its callee's.
Addr stack_tree_word(UInt node);
UInt stack_tree_caller(UInt node);
UInt stack_tree_size();
// Frees the index that finds a stack's node (the nodes stay): the last
// report needs none. A later intern rebuilds it.
void stack_tree_drop_index();

// Where the quarantined blocks were freed: stacks in a tree of their own
// (a free's stack shares little with an allocation's), which forgets the
// stacks no quarantined block holds any more. `import torch` frees from
// half a million distinct stacks, as many nodes as its allocations make.
UInt free_stack_intern(const Addr* words, UInt n);
UInt free_stack_read(UInt node, Addr* out, UInt max);
UInt free_stacks_size();
constexpr UInt kMaxFreeStackFrames = 500; // the core's bound on --num-callers
// A compaction: begin, then free_stack_keep for each node still held (it
// gives the node's new id), then end, which forgets every other stack.
void free_stacks_compact_begin();
UInt free_stack_keep(UInt node);
void free_stacks_compact_end();
// Forgets every free stack (the last report): a node read after reads as
// no stack.
void free_stacks_release();

} // namespace mg
