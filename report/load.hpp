// SPDX-License-Identifier: GPL-2.0-or-later
// Loads a JSON report from a file into the model, or says clearly why it
// cannot: the file, where in it (line and column for broken JSON, a JSON
// pointer for a field of the wrong type), and what is wrong.
#pragma once

#include "report/model.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace mg::report {

// The newest format version this reader understands (docs/output-format.md);
// it reads version 1 too.
constexpr int kFormatVersion = 2;

class LoadError : public std::runtime_error {
  public:
    LoadError(std::string file, std::string message, std::string pointer = {},
              std::optional<std::uint64_t> byte = std::nullopt, std::uint64_t line = 0,
              std::uint64_t column = 0);

    std::string file;    // as given on the command line
    std::string message; // what is wrong, without the file
    std::string pointer; // JSON pointer of the offending value ("/sites/3/line"), or empty
    std::optional<std::uint64_t> byte;  // offset of a JSON syntax error
    std::uint64_t line = 0, column = 0; // 1-based, with `byte`
};

// Parses `text` as the report named `file` (the name only labels messages).
// Unknown fields are ignored: the format only ever adds fields.
Report parse_report(const std::string& text, const std::string& file);

// Reads and parses a report file, streaming: the file is never in memory
// whole.
Report load_report(const std::string& file);

} // namespace mg::report
