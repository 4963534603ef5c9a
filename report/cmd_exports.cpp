// SPDX-License-Identifier: GPL-2.0-or-later
// `memgrow-report speedscope FILE -o OUT.json` and `memgrow-report pprof FILE
// -o OUT.pb.gz` (report/exports.hpp).
#include "report/commands.hpp"
#include "report/exports.hpp"
#include "report/load.hpp"
#include "report/write_file.hpp"

#include <functional>
#include <memory>

namespace mg::report {

namespace {

void add_export(CLI::App& app, Commands& commands, const char* name, const char* help,
                const char* output_help, std::function<std::string(const Report&)> write) {
    struct Options {
        std::string file, output;
    };
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("FILE", o->file, "a memgrow JSON report")->required();
    cmd->add_option("-o,--output", o->output, output_help)->required();
    commands.emplace_back(cmd, [o, write]() {
        write_file(o->output, write(load_report(o->file)));
        return kOk;
    });
}

} // namespace

void add_export_commands(CLI::App& app, Commands& commands) {
    add_export(app, commands, "speedscope",
               "speedscope's JSON: live bytes at teardown and bytes gained after the warm-up, as "
               "two profiles",
               "the .speedscope.json file to write ('-': standard output)", [](const Report& r) {
                   return speedscope_file(r, std::string("memgrow-report ") + PACKAGE_VERSION)
                              .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                          "\n";
               });
    add_export(app, commands, "pprof",
               "pprof's gzipped protobuf profile (pprof, Pyroscope, Grafana): sample types "
               "inuse_space, alloc_space and growth_space (the default)",
               "the .pb.gz file to write ('-': standard output)", pprof_profile);
}

} // namespace mg::report
