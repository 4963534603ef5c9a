// SPDX-License-Identifier: GPL-2.0-or-later
// The errors of a report (errors[]: invalid frees, invalid reads and writes,
// ...) as the CI formats and the HTML page show them: where each "is" and
// its words, memcheck's.
#pragma once

#include "report/model.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace mg::report {

// The error's innermost frame in the user's code, else its innermost frame
// with a source file; nullopt when none has one.
std::optional<std::size_t> error_frame(const Error& e);

// "Invalid read of size 1 (3 times): Address 0x4a4b39a is 0 bytes after a
// block of size 10 alloc'd": the message (the kind in reports that predate
// messages), the count when above one, and the description.
std::string error_text(const Error& e);

// The error's stack in Valgrind's style, one "at"/"by" line per frame.
std::string error_stack_text(const Error& e);

} // namespace mg::report
