// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow's own use of suppression files: Valgrind's core matches the error
// kinds (InvalidFree, ...) on native stacks; memgrow matches the class kinds
// (Leaked, Growing, Plateau) on its sites' stacks, which may hold Python
// frames the core never sees. Both read the same files: --suppressions, the
// core's default.supp, and memgrow's shipped memgrow-default.supp.
#pragma once

#include "records/mg_sites.hpp"
#include "core/classify.hpp"

namespace mg {

// Adds the shipped file to the core's list (--default-suppressions=yes)
// and reads the class suppressions of every file; a malformed file is a
// fatal error naming file and line.
void suppressions_init();

// Whether any class suppression is loaded (else nothing needs matching).
bool have_class_suppressions();
// The name of the suppression of kind Leaked, Growing or Plateau (by class)
// matching the site's stack; null when none does.
const HChar* class_suppression(const Site* s, SiteClass kind);
// Counts one use of the suppression of that name (for -v).
void count_suppression_use(const HChar* name);

// Prints a suppression of that kind for the site (--gen-suppressions).
void print_generated_suppression(const Site* s, SiteClass kind);

// With -v: how often each class suppression matched.
void print_used_suppressions();

} // namespace mg
