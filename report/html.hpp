// The page `memgrow-report html` writes: one self-contained HTML file (no
// network at view time) with, per report, a chart of total live bytes by
// space, a chart per top site, sortable and filterable site tables, stacks
// and leaks grouped by stack. Charts are inline SVG drawn here; a little
// inline JavaScript only sorts and filters the tables.
#pragma once

#include "report/model.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mg::report {

struct HtmlOptions {
    std::size_t top = 10;    // site charts: the top N leaked/growing/plateau sites by live bytes
    std::size_t frames = 12; // frames shown per stack
    bool suppressed = false; // list suppressed sites too
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

// The whole page for these reports, one section per report.
std::string html_page(const std::vector<Report>& reports, const HtmlOptions& o);

} // namespace mg::report
