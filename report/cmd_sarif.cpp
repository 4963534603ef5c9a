// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report sarif FILE... -o OUT.sarif (report/sarif.hpp).
#include "report/commands.hpp"
#include "report/load.hpp"
#include "report/sarif.hpp"
#include "report/write_file.hpp"

#include <iostream>
#include <memory>

namespace mg::report {

void add_sarif_command(CLI::App& app, Commands& commands) {
    struct Options {
        std::vector<std::string> files;
        std::string output;
        SarifOptions sarif;
    };
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "sarif", "SARIF 2.1.0 for code scanning: one result per leaked or growing site and per "
                 "error, at its innermost frame in your own code");
    cmd->add_option("FILE", o->files, "memgrow JSON reports (merged ones too)")->required();
    cmd->add_option("-o,--output", o->output, "the SARIF file to write")->required();
    cmd->add_option("--source-root", o->sarif.source_root,
                    "write paths relative to this directory (uriBaseId SRCROOT)");
    commands.emplace_back(cmd, [o]() {
        std::vector<Report> reports;
        for (const std::string& f : o->files)
            reports.push_back(load_report(f));
        o->sarif.version = PACKAGE_VERSION;
        nlohmann::json log = sarif_log(reports, o->sarif);
        write_file(o->output, log.dump(2) + "\n");
        std::cout << "wrote " << log["runs"][0]["results"].size() << " results to " << o->output
                  << "\n";
        return kOk;
    });
}

} // namespace mg::report
