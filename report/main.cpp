// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report: reads memgrow's JSON reports on the host. `show` prints the
// summary, `diff` compares a run against a baseline and gates CI on it.
// Exit codes: 0 ok, 1 the diff's gate failed, 2 bad input or usage.
#include "report/commands.hpp"
#include "report/diff.hpp"
#include "report/load.hpp"
#include "report/show.hpp"
#include "report/write_file.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <unistd.h>

#include <CLI/CLI.hpp>

namespace {

using namespace mg::report;

int fail_usage(const std::string& message) {
    std::cerr << "memgrow-report: " << message << "\n";
    return kBadInput;
}

// Replaces `target` by a copy of `source` (report/write_file.hpp: a reader,
// or a crash, never sees half a baseline).
void write_baseline(const std::string& source, const std::string& target) {
    // A first baseline goes into a directory a CI cache will keep: make it.
    std::filesystem::path dir = std::filesystem::path(target).parent_path();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    std::ifstream in(source, std::ios::binary);
    OutputFile out(target);
    std::vector<char> chunk(1 << 20);
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
        out.write(std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())));
    if (in.bad()) throw std::runtime_error("cannot read " + source);
    out.commit();
}

int run_show(const std::vector<std::string>& files, const ShowOptions& o) {
    std::vector<Report> reports;
    for (const std::string& f : files)
        reports.push_back(load_report(f));
    for (std::size_t i = 0; i < reports.size(); ++i)
        std::cout << (i ? "\n" : "") << show_report(reports[i], o);
    return kOk;
}

int run_diff(const std::string& base_file, const std::string& new_file,
             const std::string& budget_text, bool update, const DiffPrintOptions& o) {
    Budget budget;
    if (!budget_text.empty()) {
        try {
            budget = parse_budget(budget_text);
        } catch (const std::invalid_argument& e) {
            return fail_usage(e.what());
        }
    }
    Report next = load_report(new_file);
    // The first nightly run has no baseline yet: --baseline-update makes one.
    if (update && !std::filesystem::exists(base_file)) {
        write_baseline(new_file, base_file);
        std::cout << "no baseline yet: wrote " << base_file << " from " << new_file << "\n";
        return kOk;
    }
    Report base = load_report(base_file);
    if (std::string w = different_programs(base, next); !w.empty())
        std::cerr << "memgrow-report: warning: " << w << "\n";
    DiffResult d = diff_reports(base, next, budget);
    std::cout << print_diff(d, base, next, o);
    if (update) {
        // Accepting NEW as the baseline is a decision to pass.
        write_baseline(new_file, base_file);
        std::cout << "baseline updated: " << base_file << " now holds " << new_file << "\n";
        return kOk;
    }
    return d.failed() ? kGateFailed : kOk;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"memgrow-report: reads the JSON reports of memgrow (valgrind --tool=memgrow)",
                 "memgrow-report"};
    app.set_version_flag("--version", PACKAGE_VERSION);
    app.require_subcommand(1);

    std::vector<std::string> files;
    std::vector<std::string> classes;
    ShowOptions show_options;
    CLI::App* show = app.add_subcommand("show", "summary of each report: per class, the top "
                                                "sites with frames, bytes, rates, a sparkline");
    show->add_option("FILE", files, "memgrow JSON reports")->required();
    show->add_option("--class", classes, "only these classes (comma-separated)")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(CLI::IsMember({"leaked", "growing", "plateau", "stable"}));
    show->add_option("--space", show_options.spaces,
                     "only these spaces: host, device, managed, pinned, mapped")
        ->delimiter(',')
        ->allow_extra_args(false);
    show->add_option("--file", show_options.files,
                     "only sites with a frame in this source file (a name or a path suffix)")
        ->allow_extra_args(false);
    show->add_option("--function", show_options.functions,
                     "only sites with a frame whose function contains this text")
        ->allow_extra_args(false);
    show->add_flag("--suppressed", show_options.suppressed, "list suppressed sites too");
    show->add_option("--top", show_options.top, "sites per class (default 5)");
    show->add_option("--frames", show_options.frames, "frames per site (default 8)");
    show->add_option("--width", show_options.width, "sparkline columns (default 32)");
    show->add_flag("--ascii", show_options.ascii, "draw sparklines in ASCII");

    std::string base_file, new_file, budget_text;
    bool update = false;
    DiffPrintOptions diff_options;
    CLI::App* diff = app.add_subcommand(
        "diff", "compare NEW with the baseline BASE; exit 1 when NEW has a leaked or growing "
                "site BASE did not, or grew over --max-growth");
    diff->add_option("BASE", base_file, "the baseline report")->required();
    diff->add_option("NEW", new_file, "the new report")->required();
    diff->add_option("--max-growth", budget_text,
                     "budget for the rise of leaked+growing live bytes, in total and per site: "
                     "bytes (64K, 10M, 1G) or a percentage of BASE (5%)");
    diff->add_flag("--baseline-update", update,
                   "after the diff, copy NEW over BASE (creating it if missing) and exit 0");
    diff->add_option("--top", diff_options.top, "sites listed per section (default 10)");
    diff->add_option("--frames", diff_options.frames, "frames per site (default 4)");

    // The other commands add themselves (report/commands.hpp).
    Commands commands;
    add_commands(app, commands);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; every usage error exits 2.
        return app.exit(e) == 0 ? kOk : kBadInput;
    }
    for (const std::string& c : classes)
        show_options.classes.push_back(*parse_class(c));

    try {
        if (*show) return run_show(files, show_options);
        if (*diff) return run_diff(base_file, new_file, budget_text, update, diff_options);
        for (auto& [command, action] : commands)
            if (*command) return action();
        return kBadInput;
    } catch (const LoadError& e) {
        std::cerr << "memgrow-report: " << e.what() << "\n";
        return kBadInput;
    } catch (const std::exception& e) {
        std::cerr << "memgrow-report: " << e.what() << "\n";
        return kBadInput;
    }
}
