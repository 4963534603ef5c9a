// SPDX-License-Identifier: GPL-2.0-or-later
// Text pieces every command prints: numbers with thousands separators, the
// clock's unit, a site's stack on one line, and a sparkline of a series.
#pragma once

#include "report/model.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mg::report {

// Text for HTML and XML (text and attribute values): & < > " ' as entities,
// control characters other than tab, newline and carriage return (invalid in
// both) as U+FFFD.
std::string markup_escape(const std::string& s);

// Text from a report for a terminal, escaped as the tool's log escapes the
// client's names (core/terminal_text.hpp): what could move the cursor, end
// or reorder the line or hide itself is written as an escape instead.
std::string terminal_text(const std::string& s);

// 1234567 -> "1,234,567"; with `sign`, "+1,234,567" and "-5".
std::string with_commas(std::int64_t n, bool sign = false);

// A growth rate as the tool's log prints it (core/format.hpp's
// format_rate): "+0.07362", "+21,418".
std::string rate_text(double v);

// A share (0..1) in percent as the log prints it: a holder's "97.7" (1
// decimal), a bounded holder's fill "85" (0).
std::string percent_text(double share, unsigned decimals = 1);

// A classification's confidence as the log prints it: "0.999", "1".
std::string confidence_text(double c);

// What one clock unit is, for "bytes per ...": "byte allocated", "instruction", "ms".
std::string clock_unit(const std::string& time_unit);

// "2.9 MB": decimal units with one decimal ("512 bytes" below a kilobyte).
std::string human_bytes(std::int64_t n);

// "f (a.c:3) <- g (a.c:9) <- ..." from the innermost frame, at most `frames`.
std::string stack_line(const Site& s, std::size_t frames);

// The series scaled from 0 to its maximum, one character per column: at most
// `width` columns, each the largest value of its slice of the series (so a
// spike is never averaged away). Unicode blocks, or ASCII with `ascii`.
std::string sparkline(const std::vector<std::int64_t>& series, std::size_t width, bool ascii);

} // namespace mg::report
