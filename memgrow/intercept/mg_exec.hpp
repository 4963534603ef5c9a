// SPDX-License-Identifier: GPL-2.0-or-later
// The client's execs: Valgrind follows an exec only with --trace-children=yes,
// and a program it does not follow ends the run without a word. memgrow
// says what is being exec'd and writes the report of what ran; and when the
// client is a launcher (a shell script such as pyenv's shim, or env), it
// follows the exec itself, so `valgrind --tool=memgrow python3 app.py`
// reaches the interpreter behind a shim (docs/robustness.md).
#pragma once

#include "mg_vg.hpp"

namespace mg {

void exec_pre_init(); // registers the system-call hooks (before options)
void exec_init();     // tells whether the client is a launcher (after options)
void exec_at_fork();  // in a forked child: what it allocates from now on is its own
// A launcher's forked child that did not exec is a subshell running the
// shell's own code: it writes no report (a shim forks a dozen of them).
bool launcher_subshell();

} // namespace mg
