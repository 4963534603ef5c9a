// SPDX-License-Identifier: GPL-2.0-or-later
// The list of commands beyond show and diff. A new command is a file
// report/cmd_NAME.cpp defining add_NAME_command, declared and called here.
#include "report/commands.hpp"

namespace mg::report {

void add_html_command(CLI::App& app, Commands& commands);
void add_merge_command(CLI::App& app, Commands& commands);
void add_sarif_command(CLI::App& app, Commands& commands);
void add_junit_command(CLI::App& app, Commands& commands);
void add_expand_command(CLI::App& app, Commands& commands);
void add_export_commands(CLI::App& app, Commands& commands);

void add_commands(CLI::App& app, Commands& commands) {
    add_html_command(app, commands);
    add_merge_command(app, commands);
    add_sarif_command(app, commands);
    add_junit_command(app, commands);
    add_expand_command(app, commands);
    add_export_commands(app, commands);
}

} // namespace mg::report
