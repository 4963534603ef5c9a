// SPDX-License-Identifier: GPL-2.0-or-later
// Words the program marked undefined or inaccessible with memcheck's client
// requests (VALGRIND_MAKE_MEM_UNDEFINED, VALGRIND_MAKE_MEM_NOACCESS), for the
// leak scan: memcheck takes no pointer from such a word until the program
// writes it or marks it defined again. memgrow has no definedness bits; it
// keeps the value each such word held when it was marked (zeros apart) and
// the scan skips a word that still holds it.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// MAKE_MEM_UNDEFINED / NOACCESS over [a, a + len).
void undefined_mark(Addr a, SizeT len);
// MAKE_MEM_DEFINED over [a, a + len): its words count again.
void undefined_forget(Addr a, SizeT len);
// Whether any word in [lo, hi) is kept (cheap when none is).
bool undefined_any_in(Addr lo, Addr hi);
// Whether the word at a holds, unwritten since, the value it had when marked.
bool undefined_word(Addr a, UWord value);

} // namespace mg
