// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report junit FILE... -o OUT.xml (report/junit.hpp).
#include "report/commands.hpp"
#include "report/junit.hpp"
#include "report/load.hpp"
#include "report/write_file.hpp"

#include <iostream>
#include <memory>

namespace mg::report {

void add_junit_command(CLI::App& app, Commands& commands) {
    struct Options {
        std::vector<std::string> files;
        std::string output;
    };
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "junit", "JUnit XML for CI: one testsuite per process, a failing testcase per leaked "
                 "or growing site and per error");
    cmd->add_option("FILE", o->files, "memgrow JSON reports (merged ones too)")->required();
    cmd->add_option("-o,--output", o->output, "the XML file to write")->required();
    commands.emplace_back(cmd, [o]() {
        std::vector<Report> reports;
        for (const std::string& f : o->files)
            reports.push_back(load_report(f));
        write_file(o->output, junit_xml(reports));
        std::cout << "wrote " << o->output << "\n";
        return kOk;
    });
}

} // namespace mg::report
