// SPDX-License-Identifier: GPL-2.0-or-later
// The page `memgrow-report html` writes: one self-contained HTML file (no
// network at view time) with, per report, a chart of total live bytes by
// space, a card with evidence and chart for each of the top sites of each
// class, the whole site table and leaks grouped by stack. Its size and the
// browser's work stay bounded however many sites a report has: the cards and
// charts (inline SVG drawn here) are few, and the table is one page of rows
// at a time, drawn by the page's own script from compact embedded data
// (sites as small arrays, frames and stacks interned), each stack drawn when
// its site is opened.
#pragma once

#include "report/model.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mg::report {

struct HtmlOptions {
    std::size_t top = 10; // site cards: the top N leaked, growing and plateau sites of each class
    std::size_t frames = 12;  // frames shown per stack
    std::size_t page = 100;   // rows per page of the site table
    std::size_t leaks = 50;   // rows of the leaks-by-stack table
    std::size_t rows = 20000; // site table rows at most (0: all): the smallest stable sites go
    bool suppressed = false;  // list suppressed sites too
    std::string title = "memgrow report";
};

// JSON text made safe inside <script>: "</" and "<!--" cannot close or open
// anything, and U+2028/U+2029 are escaped.
std::string script_safe(const std::string& json);

// An SVG line chart: one polyline per series (each one point per bucket),
// x from `ends` (the bucket ends), axes with tick labels. `names` label the
// legend; `css_class` is set on the <svg>.
struct ChartSeries {
    std::string name;
    std::vector<std::int64_t> values;
    std::string color; // empty: by the name (a space) and position
};
// `events` are dashed vertical lines at clock values (the warm-up's end,
// where a rise began and stopped), each with its label.
struct ChartEvent {
    std::string label;
    std::int64_t at = 0;
};
std::string svg_chart(const std::vector<std::int64_t>& ends, const std::vector<ChartSeries>& series,
                      const std::string& x_label, const std::string& css_class, int width,
                      int height, const std::vector<ChartEvent>& events = {});

// The site table's data for the page's script: {"s": strings, "f": frames
// ([function, file, line, object, python], strings by index, -1 for none),
// "n": stack nodes (flat pairs: frame, caller node or -1), "rows": one array
// per listed site: [id, python, class (0 stable .. 3 leaked), space (a
// string), live, peak, lost bytes, rate, confidence, the naming frame, the
// stack's node, the number of native sub-sites, the largest `subs` live ones
// as [id, class, live bytes, live blocks, node], suppressed, its holders
// (`held_by`) as [path, root, its type, length and bound in words (strings),
// bytes, blocks, share]]}.
nlohmann::json site_table_data(const Report& r, const std::vector<const Site*>& listed,
                               std::size_t subs);

// Who holds the memory (report/html_holders.cpp): a site's `held_by` as
// chains from the root to the holder for its card (empty without), and the
// report's `holders` of problem sites as the table that leads its section
// (nothing without).
std::string held_by_html(const Report& r, const Site& s);
void holders_section(std::string& out, const Report& r, const std::string& rid,
                     const HtmlOptions& o);

// The page's own style sheet and script (report/html_assets.cpp).
extern const char* const kHtmlStyle;
extern const char* const kHtmlScript;

// The growth flame graph (report/html_flame.cpp): its container for report
// `rid`, its style and script, and the bundled d3-flame-graph (kFlameLib,
// generated at build time by scripts/embed-js.sh).
void flame_section(std::string& out, const std::string& rid);
extern const char* const kFlameStyle;
extern const char* const kFlameScript;
extern const char* const kFlameLib;

// The whole page for these reports, one section per report.
std::string html_page(const std::vector<Report>& reports, const HtmlOptions& o);

} // namespace mg::report
