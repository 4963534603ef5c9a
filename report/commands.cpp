// The list of commands beyond show and diff. A new command is a file
// report/cmd_NAME.cpp defining add_NAME_command, declared and called here.
#include "report/commands.hpp"

namespace mg::report {

void add_commands(CLI::App& /*app*/, Commands& /*commands*/) {}

} // namespace mg::report
