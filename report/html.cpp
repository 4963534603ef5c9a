// SPDX-License-Identifier: GPL-2.0-or-later
// The HTML page of `memgrow-report html` (docs/memgrow-report.md): built as
// one string, charts as inline SVG, no external resource of any kind; the
// site table's rows come from embedded data (html_data.cpp) that the page's
// script (html_assets.cpp) draws a page at a time.
#include "report/html.hpp"
#include "report/fork_view.hpp"

#include "report/flame.hpp"
#include "report/locate.hpp"
#include "report/site_key.hpp"
#include "report/text.hpp"
#include "report/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

#include <fmt/format.h>

namespace mg::report {

std::string script_safe(const std::string& json) {
    std::string out;
    out.reserve(json.size());
    for (std::size_t i = 0; i < json.size(); ++i) {
        char c = json[i];
        // "<" only ever occurs inside JSON strings, where \u003c means the same.
        if (c == '<') {
            out += "\\u003c";
        } else if (c == '>') {
            out += "\\u003e";
        } else if (c == '\xe2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
                   (json[i + 2] == '\xa8' || json[i + 2] == '\xa9')) {
            out += json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

namespace {

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
    if (!(raw > 0)) return 1;
    double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

// Byte counts on an axis: powers of 1024 ("1.5 MiB").
std::string bytes_short(double v) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (std::fabs(v) >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    if (std::fabs(v) >= 100 || u == 0) return fmt::format("{:.0f} {}", v, units[u]);
    return fmt::format("{:.3g} {}", v, units[u]);
}

// Clock values on an axis: powers of 1000 ("2.5M").
std::string count_short(double v) {
    const char* units[] = {"", "k", "M", "G", "T", "P", "E"};
    int u = 0;
    while (std::fabs(v) >= 1000 && u < 6) {
        v /= 1000;
        ++u;
    }
    if (std::fabs(v) >= 100 || u == 0) return fmt::format("{:.0f}{}", v, units[u]);
    return fmt::format("{:.3g}{}", v, units[u]);
}

const char* space_color(const std::string& space, std::size_t i) {
    if (space == "host") return "#1f77b4";
    if (space == "device") return "#d62728";
    if (space == "managed") return "#2ca02c";
    if (space == "pinned") return "#9467bd";
    if (space == "mapped") return "#ff7f0e";
    if (space == "all spaces") return "#333333";
    const char* other[] = {"#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    return other[i % 4];
}

const char* class_color(SiteClass c) {
    switch (c) {
    case SiteClass::leaked:
        return "#c62828";
    case SiteClass::growing:
        return "#ef6c00";
    case SiteClass::plateau:
        return "#1565c0";
    default:
        return "#616161";
    }
}

// The site's name: its innermost frame in the program's own code
// (core/site_name.hpp), the same in every view.
std::string user_frame_label(const Site& s) {
    return site_title(s);
}

// A Python site's anchor and name stay apart from the native sites' ids.
std::string anchor(const Site& s) {
    return s.python ? fmt::format("py{}", s.id) : std::to_string(s.id);
}

std::string site_name(const Site& s) {
    return fmt::format("{} {}", s.python ? "Python site" : "site", s.id);
}

std::int64_t lost_bytes(const Site& s) {
    return s.lost ? s.lost->definite + s.lost->indirect + s.lost->possible : 0;
}

std::string space_label(const Site& s) {
    return s.device ? fmt::format("{} {}", s.space.str(), *s.device) : s.space.str();
}

std::string frame_html(const Frame& f) {
    std::string out = "<li";
    if (f.python) out += " class=\"py\"";
    out += ">";
    if (f.python) out += "<span class=\"badge py\" title=\"Python frame\">py</span> ";
    out += "<code>" + markup_escape(f.function ? *f.function : "???") + "</code>";
    if (f.file) {
        out += " <span class=\"src\">" + markup_escape(*f.file);
        if (f.line) out += ":" + std::to_string(*f.line);
        out += "</span>";
    } else if (f.object) {
        out += " <span class=\"obj\">in " + markup_escape(*f.object) + "</span>";
    }
    return out + "</li>";
}

std::string stack_html(const std::vector<Frame>& frames, std::size_t max) {
    if (frames.empty()) return "<p class=\"muted\">(no frames)</p>";
    std::string out = "<ol class=\"stack\">";
    std::size_t n = std::min(max, frames.size());
    for (std::size_t i = 0; i < n; ++i)
        out += frame_html(frames[i]);
    if (n < frames.size())
        out += fmt::format("<li class=\"muted\">&hellip; {} more</li>", frames.size() - n);
    return out + "</ol>";
}

std::string evidence_html(const Report& r, const Site& s) {
    const Growth& g = *s.growth;
    std::string unit = markup_escape(clock_unit(r.time_unit));
    std::string out = "<dl class=\"evidence\">";
    auto item = [&](const std::string& k, const std::string& v) {
        out += "<dt>" + k + "</dt><dd>" + v + "</dd>";
    };
    item("class", fmt::format("<span class=\"cls {0}\">{0}</span>", class_name(s.cls)));
    item("live", fmt::format("{} bytes in {} blocks (peak {})", with_commas(s.live_bytes),
                             with_commas(s.live_blocks), with_commas(s.peak_bytes)));
    if (s.lost && lost_bytes(s))
        item("lost",
             fmt::format("{} definitely, {} indirectly, {} possibly", with_commas(s.lost->definite),
                         with_commas(s.lost->indirect), with_commas(s.lost->possible)));
    if (!g.rule.empty() && g.rule != "none") {
        item("rule", markup_escape(g.rule));
        item("rate", fmt::format("{} bytes per {} ({} per bucket)", rate_text(g.rate), unit,
                                 rate_text(g.rate_per_bucket)));
        if (g.rate_per_mark)
            item("per mark",
                 fmt::format("{} bytes ({} of {} marks added)", rate_text(*g.rate_per_mark),
                             g.marks_adding, g.marks_used));
        item("confidence", confidence_text(g.confidence));
    }
    if (g.began_at) item("began at", with_commas(*g.began_at) + " " + unit);
    if (g.stopped_at) item("stopped at", with_commas(*g.stopped_at) + " " + unit);
    if (g.next_step_at)
        item("resize staircase", fmt::format("{} steps; next resize {} {} {}", g.staircase_steps,
                                             g.rule == "staircase" ? "due at" : "overdue since",
                                             with_commas(*g.next_step_at), unit));
    if (g.released_at_end) item("at end", "released (the last bucket gave back half the level)");
    if (s.suppressed) item("suppressed", markup_escape(s.suppression.str()));
    return out + "</dl>";
}

// A Python site's largest native sub-sites, each with its stack (for its
// card; the table draws them on demand).
std::string sub_sites_html(const Report& r, const Site& py, const HtmlOptions& o) {
    std::set<std::int64_t> ids(py.sub_sites.begin(), py.sub_sites.end());
    std::vector<const Site*> subs;
    for (const Site& s : r.sites) // one pass: a card's cost stays linear in the sites
        if (s.live_bytes > 0 && ids.count(s.id)) subs.push_back(&s);
    std::stable_sort(subs.begin(), subs.end(),
                     [](const Site* a, const Site* b) { return a->live_bytes > b->live_bytes; });
    std::string out =
        fmt::format("<p class=\"muted sub-sites\">{} native sub-sites</p>\n", py.sub_sites.size());
    for (std::size_t i = 0; i < std::min<std::size_t>(3, subs.size()); ++i) {
        const Site& s = *subs[i];
        out +=
            fmt::format("<details class=\"sub-site\"><summary><span class=\"cls {0}\">{0}</span> "
                        "site {1} <span class=\"muted\">{2} bytes live</span></summary>\n",
                        class_name(s.cls), s.id, with_commas(s.live_bytes));
        out += stack_html(s.frames, o.frames) + "</details>\n";
    }
    return out;
}

// The rows the site table lists: every site the views list (or the
// unsuppressed ones) in their order, at most `o.rows` of them: past that,
// the stable sites with the least live bytes are left out (and counted), so
// that a report of a million sites still gives a page a browser opens.
struct TableSites {
    std::vector<const Site*> rows;
    std::size_t left_out = 0;
};

TableSites table_sites(const Report& r, const HtmlOptions& o) {
    TableSites t;
    for (const Site* s : leading_sites(r))
        if (o.suppressed || !s->suppressed) t.rows.push_back(s);
    std::stable_sort(t.rows.begin(), t.rows.end(), [](const Site* a, const Site* b) {
        if (a->python != b->python) return a->python;
        if (a->cls != b->cls) return a->cls > b->cls;
        return a->live_bytes > b->live_bytes;
    });
    if (o.rows == 0 || t.rows.size() <= o.rows) return t;
    std::vector<const Site*> stable;
    for (const Site* s : t.rows)
        if (s->cls == SiteClass::stable) stable.push_back(s);
    std::size_t keep =
        o.rows > t.rows.size() - stable.size() ? o.rows - (t.rows.size() - stable.size()) : 0;
    std::stable_sort(stable.begin(), stable.end(),
                     [](const Site* a, const Site* b) { return a->live_bytes > b->live_bytes; });
    std::set<const Site*> dropped(stable.begin() + static_cast<std::ptrdiff_t>(keep), stable.end());
    t.left_out = dropped.size();
    t.rows.erase(std::remove_if(t.rows.begin(), t.rows.end(),
                                [&](const Site* s) { return dropped.count(s) != 0; }),
                 t.rows.end());
    return t;
}

// errors[]: memcheck's words, how often, and the stack.
void errors_table(std::string& out, const Report& r, const std::string& rid, const HtmlOptions& o) {
    auto it = std::back_inserter(out);
    fmt::format_to(it, "<h3>Errors <span class=\"muted\">({})</span></h3>\n", r.errors.size());
    if (r.errors.empty()) {
        out += "<p class=\"muted\">No errors.</p>\n";
        return;
    }
    fmt::format_to(it,
                   "<table class=\"errors sortable\" id=\"{}-errors\"><thead><tr><th>kind</th>"
                   "<th>error</th><th data-type=\"num\">count</th><th>stack</th></tr></thead>"
                   "<tbody>\n",
                   rid);
    for (const Error& e : r.errors) {
        std::string text = e.message.empty() ? e.kind : e.message;
        if (!e.description.empty()) text += ": " + e.description;
        fmt::format_to(it, "<tr><td>{}</td><td>{}</td><td data-v=\"{}\">{}</td><td>{}</td></tr>\n",
                       markup_escape(e.kind), markup_escape(text), e.count, with_commas(e.count),
                       stack_html(e.frames, o.frames));
    }
    out += "</tbody></table>\n";
}

// Heap vs mapped vs resident (`pages`): what the process holds in memory
// beside what its heap says it uses; a heap back at its start with the
// resident bytes still up is memory the allocator kept (docs/pages.md).
void pages_chart(std::string& out, const Report& r, const std::vector<std::int64_t>& ends,
                 const std::string& x_label) {
    if (!r.pages) return;
    const Pages& p = *r.pages;
    std::vector<ChartSeries> series = {{"heap", p.heap, "#1f77b4"},
                                       {"mapped", p.mapped, "#ff7f0e"},
                                       {"resident", p.resident, "#2ca02c"}};
    out += "<h3>Heap vs mapped vs resident</h3>\n";
    if (p.teardown_resident && !p.heap.empty())
        fmt::format_to(std::back_inserter(out),
                       "<p class=\"meta pages-teardown\">at teardown: heap {}, mapped {}, "
                       "resident {}</p>\n",
                       human_bytes(p.heap.back()), human_bytes(p.mapped.back()),
                       human_bytes(*p.teardown_resident));
    out += svg_chart(ends, series, x_label, "chart pages-chart", 900, 220);
}

// A device allocator's blocks against its reserve (`device_memory`): the
// gap between the lines is cache and fragmentation, no line's growth
// (docs/cuda.md, "The reserve").
void device_memory_chart(std::string& out, const Report& r, const std::vector<std::int64_t>& ends,
                         const std::string& x_label) {
    for (const DeviceMemory& d : r.device_memory) {
        std::vector<ChartSeries> series = {{"allocated", d.allocated, "#d62728"},
                                           {"reserved", d.reserved, "#9467bd"}};
        fmt::format_to(std::back_inserter(out),
                       "<h3>Device {}: the allocator's blocks vs its reserve</h3>\n"
                       "<p class=\"meta device-memory\">now: allocated {}, reserved {}</p>\n",
                       d.device, human_bytes(d.allocated_bytes), human_bytes(d.reserved_bytes));
        out += svg_chart(ends, series, x_label, "chart device-memory-chart", 900, 220);
    }
}

void report_section(std::string& out, const Report& r, std::size_t index, const TableSites& table,
                    const HtmlOptions& o) {
    auto it = std::back_inserter(out);
    std::string rid = fmt::format("r{}", index);
    std::string command;
    for (const std::string& c : r.command)
        command += (command.empty() ? "" : " ") + c;
    fmt::format_to(it, "<section class=\"report\" id=\"{}\" data-report=\"{}\">\n", rid, index);
    fmt::format_to(it, "<h2>{} <span class=\"muted\">pid {}</span></h2>\n",
                   markup_escape(command.empty() ? r.path : command), r.pid);

    const std::vector<const Site*> leading = leading_sites(r);
    // The first screen: the verdict, the heap over time, where it grows.
    fmt::format_to(it, "<p class=\"verdict\">{}</p>\n", markup_escape(verdict_text(r)));
    if (std::string cow = fork_line({&r}); !cow.empty())
        fmt::format_to(it, "<p class=\"meta\">copy-on-write: {}</p>\n", markup_escape(cow));
    std::vector<std::int64_t> ends;
    for (const Bucket& b : r.buckets)
        ends.push_back(b.end);
    std::string x_label = "clock (" + clock_unit(r.time_unit) + ")";

    // Total live bytes by space.
    std::vector<ChartSeries> spaces;
    for (std::size_t i = 0; i < r.buckets.size(); ++i)
        for (const SpaceBucket& sb : r.buckets[i].spaces) {
            auto found = std::find_if(spaces.begin(), spaces.end(),
                                      [&](const ChartSeries& c) { return c.name == sb.space; });
            if (found == spaces.end()) {
                spaces.push_back({sb.space, std::vector<std::int64_t>(r.buckets.size(), 0), {}});
                found = spaces.end() - 1;
            }
            found->values[i] = sb.live_bytes;
        }
    // "host" first, then the others by name.
    std::stable_sort(spaces.begin(), spaces.end(), [](const ChartSeries& a, const ChartSeries& b) {
        return (a.name == "host") > (b.name == "host");
    });
    if (spaces.size() != 1) {
        ChartSeries total{"all spaces", {}, {}};
        for (const Bucket& b : r.buckets)
            total.values.push_back(b.live_bytes);
        spaces.insert(spaces.begin(), std::move(total));
    }
    out += "<h3>Live bytes over time</h3>\n";
    std::vector<ChartEvent> warmup;
    if (r.warmup_end > 0) warmup.push_back({"warm-up", r.warmup_end});
    out += svg_chart(ends, spaces, x_label, "chart total-chart", 900, 220, warmup);
    pages_chart(out, r, ends, x_label);
    device_memory_chart(out, r, ends, x_label);
    flame_section(out, rid);
    holders_section(out, r, rid, o);

    // The top sites of each problem class, each with its evidence, chart
    // and stack: a bounded number of cards however many sites there are.
    std::vector<const Site*> top;
    std::size_t problem_sites = 0;
    for (SiteClass c : {SiteClass::leaked, SiteClass::growing, SiteClass::plateau}) {
        std::vector<const Site*> of_class;
        for (const Site* s : leading)
            if (s->cls == c && (o.suppressed || !s->suppressed)) of_class.push_back(s);
        problem_sites += of_class.size();
        std::stable_sort(of_class.begin(), of_class.end(), [](const Site* a, const Site* b) {
            if (a->python != b->python) return a->python;
            return a->live_bytes > b->live_bytes;
        });
        if (of_class.size() > o.top) of_class.resize(o.top);
        top.insert(top.end(), of_class.begin(), of_class.end());
    }
    fmt::format_to(it,
                   "<h3>Top sites <span class=\"muted\">(the {} largest of each class: {} of {} "
                   "leaked, growing or plateau sites, by live bytes)</span></h3>\n",
                   o.top, top.size(), problem_sites);
    if (top.empty()) out += "<p class=\"muted\">No leaked, growing or plateau site.</p>\n";
    out += "<div class=\"site-charts\">\n";
    for (const Site* s : top) {
        fmt::format_to(it,
                       "<div class=\"site-card\" id=\"{0}-site-{1}\" data-site=\"{1}\" "
                       "data-class=\"{2}\">\n<h4><span class=\"cls {2}\">{2}</span> {5}: "
                       "<code>{3}</code> <span class=\"muted\">{4}</span></h4>\n",
                       rid, anchor(*s), class_name(s->cls),
                       markup_escape(s->python ? python_headline(r, *s) : user_frame_label(*s)),
                       markup_escape(space_label(*s)), site_name(*s));
        out += evidence_html(r, *s);
        out += held_by_html(r, *s);
        std::vector<ChartSeries> one{{site_name(*s), s->series.dense(), class_color(s->cls)}};
        // The evidence on the chart: the warm-up, where the rise began and stopped.
        std::vector<ChartEvent> events;
        if (r.warmup_end > 0) events.push_back({"warm-up", r.warmup_end});
        if (s->growth->began_at) events.push_back({"began", *s->growth->began_at});
        if (s->growth->stopped_at) events.push_back({"stopped", *s->growth->stopped_at});
        out += svg_chart(ends, one, x_label, "chart site-chart", 560, 200, events);
        out += "<details class=\"card-stack\"><summary>stack</summary>\n";
        out += stack_html(s->frames, o.frames);
        if (s->python) out += sub_sites_html(r, *s, o);
        fmt::format_to(it, "</details>\n<p><a href=\"#{}-stack-{}\">in the table</a></p>\n</div>\n",
                       rid, anchor(*s));
    }
    out += "</div>\n";

    // The run, in one paragraph, after the first screen.
    std::size_t counts[4] = {};
    for (const Site* s : leading)
        if (!s->suppressed) ++counts[static_cast<std::size_t>(s->cls)];
    fmt::format_to(it,
                   "<p class=\"meta\">file <code>{}</code>; ppid {}; clock: {} per bucket of {} "
                   "{}; {} buckets; teardown {} at {}; {} sites",
                   markup_escape(r.path), r.ppid, markup_escape(r.time_unit),
                   with_commas(r.bucket_width), markup_escape(clock_unit(r.time_unit)),
                   r.buckets.size(), markup_escape(r.teardown), with_commas(r.teardown_at),
                   r.sites.size());
    if (!r.python_sites.empty())
        fmt::format_to(it, "; {} Python sites, listed first, then the sites without Python frames",
                       r.python_sites.size());
    for (SiteClass c :
         {SiteClass::leaked, SiteClass::growing, SiteClass::plateau, SiteClass::stable})
        fmt::format_to(it, ", <span class=\"cls {0}\">{1} {0}</span>", class_name(c),
                       counts[static_cast<std::size_t>(c)]);
    if (r.marks.count) fmt::format_to(it, "; {} marks", r.marks.count);
    out += "</p>\n";
    if (r.leak_check) {
        const LeakCheck& l = *r.leak_check;
        fmt::format_to(it,
                       "<p class=\"meta\">leak check ({}, {} scans): definitely lost {} bytes, "
                       "indirectly {}, possibly {}, still reachable {}, suppressed {}</p>\n",
                       markup_escape(l.mode), l.scans, with_commas(l.definite.bytes),
                       with_commas(l.indirect.bytes), with_commas(l.possible.bytes),
                       with_commas(l.reachable.bytes), with_commas(l.suppressed.bytes));
    }

    // Every site: the page's script draws the table a page at a time from
    // the embedded data (html_page), so the page's size and the browser's
    // work do not grow with one DOM row per site.
    fmt::format_to(
        it,
        "<h3>Sites{1}</h3>\n<div class=\"filters\" data-table=\"{0}-sites\">"
        "<label>filter <input type=\"search\" class=\"f-text\" "
        "placeholder=\"function, file, space...\"></label> "
        "<label>class <select class=\"f-class\"><option value=\"\">all</option>"
        "<option>leaked</option><option>growing</option><option>plateau</option>"
        "<option>stable</option></select></label> "
        "<span class=\"f-count muted\"></span></div>\n"
        "<div class=\"pager\"><button type=\"button\" class=\"p-prev\">&larr; "
        "previous</button><button type=\"button\" class=\"p-next\">next &rarr;"
        "</button><span class=\"p-label muted\"></span></div>\n",
        rid,
        table.left_out
            ? fmt::format(" <span class=\"muted left-out\">({} listed; the {} stable sites "
                          "with the least live bytes are left out: --rows)</span>",
                          table.rows.size(), table.left_out)
            : std::string());
    fmt::format_to(it,
                   "<table class=\"sites\" id=\"{}-sites\"><thead><tr>"
                   "<th>site</th><th>class</th><th>space</th><th>live bytes</th>"
                   "<th>peak bytes</th><th>lost bytes</th><th>rate (bytes per {})</th>"
                   "<th>confidence</th><th>innermost user frame (click: stack)</th>"
                   "<th>held by</th>"
                   "</tr></thead><tbody></tbody></table>\n"
                   "<noscript><p>The site table needs JavaScript; <code>memgrow-report show</code> "
                   "prints the same sites.</p></noscript>\n",
                   rid, markup_escape(clock_unit(r.time_unit)));

    // Leaks grouped by stack: sites whose blocks the last scan found lost.
    struct Group {
        const Site* first = nullptr;
        Lost lost;
        std::vector<std::int64_t> ids;
    };
    std::map<std::string, Group> groups;
    std::set<std::int64_t> in_table; // native sites the table lists (their links work)
    for (const Site* s : table.rows)
        if (!s->python) in_table.insert(s->id);
    for (const Site& s : r.sites) {
        if (!s.lost || !lost_bytes(s) || (s.suppressed && !o.suppressed)) continue;
        std::string key;
        for (const Frame& f : s.frames)
            key += frame_label(f) + "\n";
        Group& g = groups[key];
        if (!g.first) g.first = &s;
        g.lost.definite += s.lost->definite;
        g.lost.indirect += s.lost->indirect;
        g.lost.possible += s.lost->possible;
        g.ids.push_back(s.id);
    }
    std::vector<const Group*> sorted;
    for (const auto& [key, g] : groups)
        sorted.push_back(&g);
    std::stable_sort(sorted.begin(), sorted.end(), [](const Group* a, const Group* b) {
        return a->lost.definite + a->lost.indirect + a->lost.possible >
               b->lost.definite + b->lost.indirect + b->lost.possible;
    });
    fmt::format_to(it, "<h3>Leaks by stack <span class=\"muted\">({} stacks{})</span></h3>\n",
                   sorted.size(),
                   sorted.size() > o.leaks ? fmt::format(", the {} largest shown", o.leaks) : "");
    if (sorted.size() > o.leaks) sorted.resize(o.leaks);
    if (!r.leak_check)
        out += "<p class=\"muted\">No leak scan ran (--leak-check=no).</p>\n";
    else if (sorted.empty())
        out += "<p class=\"muted\">The leak scan found nothing lost.</p>\n";
    else {
        fmt::format_to(it,
                       "<table class=\"leaks sortable\" id=\"{}-leaks\"><thead><tr>"
                       "<th data-type=\"num\">definitely lost</th>"
                       "<th data-type=\"num\">indirectly lost</th>"
                       "<th data-type=\"num\">possibly lost</th><th>sites</th><th>stack</th>"
                       "</tr></thead><tbody>\n",
                       rid);
        for (const Group* g : sorted) {
            std::string ids;
            for (std::int64_t id : g->ids)
                ids += in_table.count(id) ? fmt::format("{}<a href=\"#{}-stack-{}\">{}</a>",
                                                        ids.empty() ? "" : ", ", rid, id, id)
                                          : fmt::format("{}{}", ids.empty() ? "" : ", ", id);
            fmt::format_to(it,
                           "<tr><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>"
                           "<td data-v=\"{}\">{}</td><td>{}</td><td>{}</td></tr>\n",
                           g->lost.definite, with_commas(g->lost.definite), g->lost.indirect,
                           with_commas(g->lost.indirect), g->lost.possible,
                           with_commas(g->lost.possible), ids,
                           stack_html(g->first->frames, o.frames));
        }
        out += "</tbody></table>\n";
    }
    errors_table(out, r, rid, o);
    out += "</section>\n";
}

} // namespace

std::string svg_chart(const std::vector<std::int64_t>& ends, const std::vector<ChartSeries>& series,
                      const std::string& x_label, const std::string& css_class, int width,
                      int height, const std::vector<ChartEvent>& events) {
    std::string out;
    auto it = std::back_inserter(out);
    const double left = 74, right = 16, top = 24, bottom = 40;
    const double pw = width - left - right, ph = height - top - bottom;
    double x_max = ends.empty() ? 1 : static_cast<double>(std::max<std::int64_t>(ends.back(), 1));
    double y_max = 0;
    for (const ChartSeries& s : series)
        for (std::int64_t v : s.values)
            y_max = std::max(y_max, static_cast<double>(v));
    double y_step = nice_step(std::max(y_max, 1.0) / 4);
    double y_top = std::max(y_step, std::ceil(std::max(y_max, 1.0) / y_step) * y_step);
    double x_step = nice_step(x_max / 5);
    auto px = [&](double x) { return left + pw * x / x_max; };
    auto py = [&](double y) { return top + ph * (1 - y / y_top); };

    fmt::format_to(it,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{}\" width=\"{}\" "
                   "height=\"{}\" viewBox=\"0 0 {} {}\" data-buckets=\"{}\" role=\"img\">\n",
                   markup_escape(css_class), width, height, width, height, ends.size());
    // Horizontal grid and y ticks.
    for (double y = 0; y <= y_top + y_step / 2; y += y_step)
        fmt::format_to(it,
                       "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" "
                       "y2=\"{2:.1f}\"/><text class=\"ytick\" x=\"{3:.1f}\" y=\"{4:.1f}\" "
                       "text-anchor=\"end\">{5}</text>\n",
                       left, left + pw, py(y), left - 6, py(y) + 4, bytes_short(y));
    // X ticks.
    for (double x = 0; x <= x_max * 1.0001; x += x_step)
        fmt::format_to(it,
                       "<line class=\"axis\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" "
                       "y2=\"{2:.1f}\"/><text class=\"xtick\" x=\"{0:.1f}\" y=\"{3:.1f}\" "
                       "text-anchor=\"middle\">{4}</text>\n",
                       px(x), top + ph, top + ph + 4, top + ph + 16, count_short(x));
    fmt::format_to(it,
                   "<line class=\"axis\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" "
                   "y2=\"{2:.1f}\"/><line class=\"axis\" x1=\"{0:.1f}\" x2=\"{3:.1f}\" "
                   "y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>\n",
                   left, top, top + ph, left + pw);
    fmt::format_to(it,
                   "<text class=\"xlabel\" x=\"{:.1f}\" y=\"{:.1f}\" "
                   "text-anchor=\"middle\">{}</text>\n",
                   left + pw / 2, static_cast<double>(height) - 4, markup_escape(x_label));
    fmt::format_to(it, "<text class=\"ylabel\" x=\"4\" y=\"{:.1f}\">live bytes</text>\n", top - 8);
    if (ends.empty())
        fmt::format_to(it,
                       "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">no buckets</text>\n",
                       left + pw / 2, top + ph / 2);
    // Labels stack downwards, so that events close together stay legible;
    // near the right edge a label ends at its line.
    double label_y = top + 10;
    for (const ChartEvent& e : events) {
        if (e.at < 0 || static_cast<double>(e.at) > x_max) continue;
        double x = px(static_cast<double>(e.at));
        bool at_right = x > left + pw * 0.85;
        fmt::format_to(it,
                       "<line class=\"event\" stroke=\"#555\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" "
                       "y1=\"{1:.1f}\" y2=\"{2:.1f}\"/><text class=\"event-label\" "
                       "x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"{5}\">{6}</text>\n",
                       x, top, top + ph, at_right ? x - 3 : x + 3, label_y,
                       at_right ? "end" : "start", markup_escape(e.label));
        label_y += 12;
    }
    // One polyline per series, one point per bucket.
    double legend_x = left + 8;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const ChartSeries& s = series[i];
        std::string color = s.color.empty() ? space_color(s.name, i) : s.color;
        std::string points;
        std::size_t n = std::min(s.values.size(), ends.size());
        for (std::size_t k = 0; k < n; ++k)
            points += fmt::format("{}{:.1f},{:.1f}", k ? " " : "", px(static_cast<double>(ends[k])),
                                  py(static_cast<double>(s.values[k])));
        fmt::format_to(it,
                       "<polyline class=\"series\" data-series=\"{}\" stroke=\"{}\" "
                       "points=\"{}\"><title>{}</title></polyline>\n",
                       markup_escape(s.name), color, points, markup_escape(s.name));
        fmt::format_to(it,
                       "<rect x=\"{0:.1f}\" y=\"6\" width=\"10\" height=\"10\" fill=\"{1}\"/>"
                       "<text x=\"{2:.1f}\" y=\"15\">{3}</text>\n",
                       legend_x, color, legend_x + 14, markup_escape(s.name));
        legend_x += 24 + 7.0 * static_cast<double>(s.name.size());
    }
    out += "</svg>\n";
    return out;
}

std::string html_page(const std::vector<Report>& reports, const HtmlOptions& o) {
    std::string out;
    auto it = std::back_inserter(out);
    fmt::format_to(it,
                   "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width\">\n"
                   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                   "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
                   "<title>{}</title>\n<style>{}{}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
                   markup_escape(o.title), kHtmlStyle, kFlameStyle, markup_escape(o.title));
    fmt::format_to(it, "<p class=\"meta\">{} report{} (one section per process)</p>\n",
                   reports.size(), reports.size() == 1 ? "" : "s");
    if (reports.size() > 1) {
        std::vector<const Report*> all;
        for (const Report& r : reports)
            all.push_back(&r);
        if (std::string cow = fork_line(all); !cow.empty())
            fmt::format_to(it, "<p class=\"meta\">copy-on-write: {}</p>\n", markup_escape(cow));
        out += "<ul class=\"toc\">\n";
        for (std::size_t i = 0; i < reports.size(); ++i) {
            std::string command;
            for (const std::string& c : reports[i].command)
                command += (command.empty() ? "" : " ") + c;
            fmt::format_to(it, "<li><a href=\"#r{}\">pid {}</a> <code>{}</code></li>\n", i,
                           reports[i].pid, markup_escape(command));
        }
        out += "</ul>\n";
    }
    std::vector<TableSites> tables;
    for (const Report& r : reports)
        tables.push_back(table_sites(r, o));
    for (std::size_t i = 0; i < reports.size(); ++i)
        report_section(out, reports[i], i, tables[i], o);

    // What the script reads: per report, its name and its site table's
    // data (site_table_data); compact, without spaces.
    nlohmann::json data = {
        {"options", {{"frames", o.frames}, {"page", std::max<std::size_t>(1, o.page)}}},
        {"reports", nlohmann::json::array()}};
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const Report& r = reports[i];
        nlohmann::json d = site_table_data(r, tables[i].rows, 3);
        d["file"] = r.path;
        d["pid"] = r.pid;
        d["command"] = r.command;
        d["buckets"] = r.buckets.size();
        d["sites"] = r.sites.size();
        d["flame"] = flame_data(r);
        data["reports"].push_back(std::move(d));
    }
    // Bytes that are not UTF-8 (a hostile report) become U+FFFD.
    std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    fmt::format_to(it,
                   "<script id=\"mg-data\" type=\"application/json\">{}</script>\n"
                   "<script>{}</script>\n<script>{}</script>\n<script>{}</script>\n"
                   "</body>\n</html>\n",
                   script_safe(text), kHtmlScript, kFlameLib, kFlameScript);
    return out;
}

} // namespace mg::report
