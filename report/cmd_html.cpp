// SPDX-License-Identifier: GPL-2.0-or-later
// `memgrow-report html FILE... -o report.html`: one self-contained page for
// one or more reports (report/html.hpp builds it).
#include "report/commands.hpp"
#include "report/html.hpp"
#include "report/load.hpp"
#include "report/write_file.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mg::report {

namespace {

struct HtmlArgs {
    std::vector<std::string> files;
    std::string output;
    HtmlOptions options;
};

int run_html(const HtmlArgs& a) {
    std::vector<Report> reports;
    for (const std::string& f : a.files)
        reports.push_back(load_report(f)); // LoadError: main() prints it and exits 2
    write_file(a.output, html_page(reports, a.options));
    return kOk;
}

} // namespace

void add_html_command(CLI::App& app, Commands& commands) {
    auto args = std::make_shared<HtmlArgs>();
    CLI::App* html = app.add_subcommand(
        "html", "one self-contained HTML page: charts of live bytes over time (total by space "
                "and per top site), the site table a page at a time, stacks, leaks by stack");
    html->add_option("FILE", args->files, "memgrow JSON reports (one section each)")->required();
    html->add_option("-o,--output", args->output, "the page to write ('-': standard output)")
        ->required();
    html->add_option("--top", args->options.top,
                     "cards with charts for the top N sites of each class (leaked, growing, "
                     "plateau) by live bytes (default 10)");
    html->add_option("--frames", args->options.frames, "frames per stack (default 12)");
    html->add_option("--page", args->options.page, "rows per page of the site table (default 100)")
        ->check(CLI::PositiveNumber);
    html->add_option("--rows", args->options.rows,
                     "site table rows at most; past that, the stable sites with the least live "
                     "bytes are left out and counted (default 20000; 0: every site)");
    html->add_option("--title", args->options.title, "the page title");
    html->add_flag("--suppressed", args->options.suppressed, "list suppressed sites too");
    commands.emplace_back(html, [args] { return run_html(*args); });
}

} // namespace mg::report
