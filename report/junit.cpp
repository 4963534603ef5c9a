// SPDX-License-Identifier: GPL-2.0-or-later
// JUnit XML output (report/junit.hpp).
#include "report/junit.hpp"
#include "report/text.hpp"

#include "report/errors_view.hpp"
#include "report/locate.hpp"
#include "report/site_key.hpp"

#include <iterator>

#include <fmt/format.h>

namespace mg::report {

namespace {

struct Suite {
    std::string name;
    const Report* report = nullptr;
    std::int64_t pid = 0, ppid = 0;
    std::vector<std::string> command;
    std::vector<const Site*> problems; // leaked or growing, suppressed too
    std::vector<const Error*> errors;  // each a failing testcase
};

// A suite's failing testcases (unsuppressed problems and errors) and skipped ones.
std::pair<std::size_t, std::size_t> failures_and_skipped(const Suite& suite) {
    std::size_t failures = suite.errors.size(), skipped = 0;
    for (const Site* s : suite.problems)
        (s->suppressed ? skipped : failures) += 1;
    return {failures, skipped};
}

std::size_t tests_of(const Suite& suite, std::size_t failures) {
    return suite.problems.size() + suite.errors.size() + (failures == 0 ? 1 : 0);
}

// An error as a failing testcase, named by its kind and where it is.
void print_error(std::string& out, const Error& e, const std::string& classname) {
    auto it = std::back_inserter(out);
    auto at = error_frame(e);
    std::string attrs, where = "(no frames)";
    if (at) {
        const Frame& f = e.frames[*at];
        attrs += fmt::format(" file=\"{}\"", markup_escape(*f.file));
        if (f.line) attrs += fmt::format(" line=\"{}\"", *f.line);
        where = frame_label(f);
    }
    fmt::format_to(it, "    <testcase classname=\"{}\" name=\"{}\"{}>\n", markup_escape(classname),
                   markup_escape(e.kind + " " + where), attrs);
    std::string text = error_text(e);
    fmt::format_to(it, "      <failure type=\"{}\" message=\"{}\">{}\n{}</failure>\n",
                   markup_escape(e.kind), markup_escape(text), markup_escape(text),
                   markup_escape(error_stack_text(e)));
    fmt::format_to(it, "    </testcase>\n");
}

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

std::string stack_text(const Site& s) {
    std::string out;
    for (std::size_t i = 0; i < s.frames.size(); ++i)
        out += (i ? "    by " : "    at ") + frame_label(s.frames[i]) + "\n";
    return out;
}

void print_suite(std::string& out, const Suite& suite) {
    auto it = std::back_inserter(out);
    auto [failures, skipped] = failures_and_skipped(suite);
    std::size_t tests = tests_of(suite, failures);
    fmt::format_to(it,
                   "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
                   "skipped=\"{}\">\n",
                   markup_escape(suite.name), tests, failures, skipped);
    fmt::format_to(it, "    <properties>\n");
    for (auto [name, value] :
         {std::pair<const char*, std::string>{"pid", std::to_string(suite.pid)},
          {"ppid", std::to_string(suite.ppid)},
          {"command", joined(suite.command)},
          {"report", suite.report->path}})
        fmt::format_to(it, "      <property name=\"{}\" value=\"{}\"/>\n", name,
                       markup_escape(value));
    fmt::format_to(it, "    </properties>\n");
    std::string classname = fmt::format("memgrow.pid{}", suite.pid);
    for (const Site* s : suite.problems) {
        auto at = locate_site(*s);
        std::string attrs;
        if (at) {
            const Frame& f = s->frames[at->frame];
            attrs += fmt::format(" file=\"{}\"", markup_escape(*f.file));
            if (f.line) attrs += fmt::format(" line=\"{}\"", *f.line);
        }
        std::string name =
            fmt::format("{} {}{}", class_name(s->cls), s->python ? "python " : "", site_key(*s));
        fmt::format_to(it, "    <testcase classname=\"{}\" name=\"{}\"{}>\n",
                       markup_escape(classname), markup_escape(name), attrs);
        std::string evidence = evidence_text(*suite.report, *s);
        evidence =
            (s->python ? python_headline(*suite.report, *s) : site_title(*s)) + ": " + evidence;
        if (s->suppressed)
            fmt::format_to(it, "      <skipped message=\"{}\"/>\n",
                           markup_escape("suppressed by " + s->suppression.str()));
        else
            fmt::format_to(it, "      <failure type=\"{}\" message=\"{}\">{}\n{}</failure>\n",
                           class_name(s->cls), markup_escape(evidence), markup_escape(evidence),
                           markup_escape(stack_text(*s)));
        fmt::format_to(it, "    </testcase>\n");
    }
    for (const Error* e : suite.errors)
        print_error(out, *e, classname);
    if (failures == 0)
        fmt::format_to(it, "    <testcase classname=\"{}\" name=\"no leaked or growing sites\"/>\n",
                       markup_escape(classname));
    fmt::format_to(it, "  </testsuite>\n");
}

} // namespace

std::string junit_xml(const std::vector<Report>& reports) {
    std::vector<Suite> suites;
    for (const Report& r : reports) {
        std::size_t first = suites.size();
        auto name_of = [&](std::int64_t pid, const std::vector<std::string>& command) {
            std::string prog = command.empty() ? std::string("?") : base_name(command[0]);
            return fmt::format("memgrow {} (pid {})", prog, pid);
        };
        if (r.processes.empty()) {
            suites.push_back({name_of(r.pid, r.command), &r, r.pid, r.ppid, r.command, {}, {}});
        } else {
            for (const Process& p : r.processes)
                suites.push_back({name_of(p.pid, p.command), &r, p.pid, p.ppid, p.command, {}, {}});
        }
        for (const Site* s : leading_sites(r)) {
            if (!is_problem(s->cls)) continue;
            std::size_t i = first + (s->process ? static_cast<std::size_t>(*s->process) : 0);
            if (i >= suites.size()) i = first; // the loader checks the indices
            suites[i].problems.push_back(s);
        }
        for (const Error& e : r.errors) {
            std::size_t i = first + (e.process ? static_cast<std::size_t>(*e.process) : 0);
            if (i >= suites.size()) i = first;
            suites[i].errors.push_back(&e);
        }
    }
    std::size_t tests = 0, failures = 0, skipped = 0;
    for (const Suite& s : suites) {
        auto [f, k] = failures_and_skipped(s);
        failures += f;
        skipped += k;
        tests += tests_of(s, f);
    }
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += fmt::format("<testsuites name=\"memgrow\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
                       "skipped=\"{}\">\n",
                       tests, failures, skipped);
    for (const Suite& s : suites)
        print_suite(out, s);
    out += "</testsuites>\n";
    return out;
}

} // namespace mg::report
