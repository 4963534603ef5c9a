// SPDX-License-Identifier: GPL-2.0-or-later
// The commands beyond show and diff register here: each adds its CLI11
// subcommand and the action main() runs when that subcommand was given.
// Exit codes are shared by all commands.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace mg::report {

constexpr int kOk = 0, kGateFailed = 1, kBadInput = 2;

using Commands = std::vector<std::pair<CLI::App*, std::function<int()>>>;

// Adds every registered command (report/commands.cpp lists them).
void add_commands(CLI::App& app, Commands& commands);

} // namespace mg::report
