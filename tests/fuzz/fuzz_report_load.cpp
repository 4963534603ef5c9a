// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for the report loader (report/load.cpp): the bytes are a
// report file. A LoadError is the expected answer to bad input; any other
// exception, a crash, a leak (ASan) or undefined behaviour (UBSan) is a
// finding. A report that loads goes on through the site keys, `show` and a
// diff against itself, so the code that trusts the loader's checks runs too;
// a format-2 one also through `expand`, whose result must load to the same
// sites.
// Built with clang++ -fsanitize=fuzzer,address,undefined (Makefile.am);
// tests/fuzz/run_fuzz.sh runs it.
#include "report/diff.hpp"
#include "report/expand.hpp"
#include "report/load.hpp"
#include "report/show.hpp"
#include "report/site_key.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

using namespace mg::report;

static volatile std::size_t sink; // keeps the work from being optimised away

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    Report r;
    try {
        r = parse_report(text, "fuzz.json");
    } catch (const LoadError& e) {
        // Every message names the file.
        if (std::string(e.what()).rfind("fuzz.json", 0) != 0) {
            std::fprintf(stderr, "LoadError without the file name: %s\n", e.what());
            std::abort();
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "loader threw something other than LoadError: %s\n", e.what());
        std::abort();
    }
    try {
        std::size_t total = 0;
        for (const Site& s : r.sites)
            total += site_key(s).size();
        ShowOptions o;
        total += show_report(r, o).size();
        o.ascii = true;
        o.suppressed = true;
        o.top = 1000;
        o.frames = 1000;
        o.width = 7;
        total += show_report(r, o).size();
        DiffResult d = diff_reports(r, r);
        total += print_diff(d, r, r, DiffPrintOptions{}).size();
        // A format-2 report that loads expands to format 1, which loads to
        // the same sites.
        if (r.version == 2) {
            Report again =
                parse_report(expand_document(nlohmann::json::parse(text)).dump(), "fuzz.json");
            if (again.sites.size() != r.sites.size() ||
                again.python_sites.size() != r.python_sites.size()) {
                std::fprintf(stderr, "expand changed the sites\n");
                std::abort();
            }
            for (std::size_t i = 0; i < r.sites.size(); ++i)
                if (site_key(again.sites[i]) != site_key(r.sites[i]) ||
                    again.sites[i].series != r.sites[i].series) {
                    std::fprintf(stderr, "expand changed site %zu\n", i);
                    std::abort();
                }
        }
        sink = total;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "a loaded report made show/diff throw: %s\n", e.what());
        std::abort();
    }
    return 0;
}
