// SPDX-License-Identifier: GPL-2.0-or-later
// Format 2's frame table and stack tree (docs/output-format.md): each
// distinct frame once, each stack one node (its innermost frame and its
// caller's node), so that a million stacks sharing their callers cost a
// million small nodes, not a million arrays of frames.
//
// The report's tree is the tool's (records/mg_stack_tree.hpp) with each
// word expanded into its frames (several when calls were inlined at it) and
// cut below main(); only the nodes of the stacks a report names are written.
#pragma once

#include "records/mg_symbols.hpp"

namespace mg {

class JsonWriter;

constexpr UInt kNoStack = ~0u;

// Empties the tables (before a report).
void stack_table_begin();
// The report names this stack of the tool's tree (symbolised with `ep` where
// it is the first to name a node).
void stack_table_use(UInt stack, DiEpoch ep);
// Numbers the frames and nodes of the stacks used (after the last use).
void stack_table_number();
// The report's node of a stack used: kNoStack when it has no frames.
UInt stack_table_id(UInt stack);
// A node of one frame, the `inlined`th of `word` (after the numbering): what
// names a group of folded sites (output/mg_report_select.hpp).
UInt stack_table_frame(StackWord word, UInt inlined, DiEpoch ep);
// Writes "frames" and "stacks" as members of the current object.
void stack_table_write(JsonWriter& w);
// Frees the tables.
void stack_table_end();

} // namespace mg
