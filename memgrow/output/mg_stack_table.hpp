// Format 2's frame table and stack tree (docs/output-format.md): each
// distinct frame once, each stack one node (its innermost frame and its
// caller's node), so that a million stacks sharing their callers cost a
// million small nodes, not a million arrays of frames.
#pragma once

#include "records/mg_symbols.hpp"

namespace mg {

class JsonWriter;

constexpr UInt kNoStack = ~0u;

// Empties the tables (before a report).
void stack_table_begin();
// The node of a stack of words (symbolised with `ep`, innermost first):
// kNoStack when it has no frames (or memory ran out).
UInt stack_table_add(const StackWord* words, UInt n, DiEpoch ep);
// Writes "frames" and "stacks" as members of the current object.
void stack_table_write(JsonWriter& w);
// Frees the tables.
void stack_table_end();

} // namespace mg
