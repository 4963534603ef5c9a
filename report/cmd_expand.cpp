// memgrow-report expand IN [-o OUT] (report/expand.hpp): a report in the
// format-1 layout, for scripts and jq.
#include "report/commands.hpp"
#include "report/expand.hpp"
#include "report/load.hpp"
#include "report/write_file.hpp"

#include <fstream>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

namespace mg::report {

void add_expand_command(CLI::App& app, Commands& commands) {
    struct Options {
        std::string input, output;
    };
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "expand", "the report in the format-1 layout: every site with its frames inline and "
                  "its series dense (a format-1 report comes out unchanged)");
    cmd->add_option("IN", o->input, "a memgrow JSON report")->required();
    cmd->add_option("-o,--output", o->output, "the file to write (default: standard output)");
    commands.emplace_back(cmd, [o]() {
        load_report(o->input); // every check, and a one-line LoadError naming the file
        std::ifstream in(o->input, std::ios::binary);
        // Ordered: the fields keep the order the tool wrote them in.
        auto root = nlohmann::ordered_json::parse(in);
        std::string text = expand_document(root).dump() + "\n";
        root = nullptr;
        if (o->output.empty())
            std::cout << text;
        else
            write_file(o->output, text);
        return kOk;
    });
}

} // namespace mg::report
