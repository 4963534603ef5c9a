// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report merge FILE... -o OUT (report/merge.hpp).
#include "report/commands.hpp"
#include "report/load.hpp"
#include "report/merge.hpp"
#include "report/write_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

namespace mg::report {

void add_merge_command(CLI::App& app, Commands& commands) {
    struct Options {
        std::vector<std::string> files;
        std::string output;
    };
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "merge", "one report from the reports of several processes (fork children, "
                 "--trace-children, workers, ranks), each site tagged with its pid");
    cmd->add_option("FILE", o->files, "memgrow JSON reports (or merged ones)")->required();
    cmd->add_option("-o,--output", o->output, "the merged report to write")->required();
    commands.emplace_back(cmd, [o]() {
        std::vector<MergeInput> inputs;
        for (std::size_t i = 0; i < o->files.size(); ++i) {
            const std::string& f = o->files[i];
            std::error_code ec;
            if (std::filesystem::is_directory(f, ec))
                throw LoadError(f, "cannot read: it is a directory");
            // One file named twice (or by two paths) is refused before it
            // is read; a copy is found by its bytes (merge_reports).
            for (std::size_t j = 0; j < i; ++j)
                if (std::filesystem::equivalent(o->files[j], f, ec))
                    throw LoadError(f,
                                    "the same report given twice: it is the file " + o->files[j]);
            MergeInput in{f, {}};
            if (!read_file(f, in.text))
                throw LoadError(f, std::string("cannot open: ") + std::strerror(errno));
            inputs.push_back(std::move(in));
        }
        nlohmann::json merged = merge_reports(inputs);
        write_file(o->output, merged.dump() + "\n");
        std::cout << "merged " << merged["processes"].size() << " processes, "
                  << merged["sites"].size() << " sites into " << o->output << "\n";
        return kOk;
    });
}

} // namespace mg::report
