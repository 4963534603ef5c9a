// SPDX-License-Identifier: GPL-2.0-or-later
// Who holds the memory, on the page (docs/holders.md): the report's holders
// as a table that leads the section, and a site's holders as short chains
// from the root to the holder (root → … → holder) on its card. The site
// table's holder column and chains are drawn by the page's script from the
// row data (html_data.cpp).
#include "report/html.hpp"

#include "report/holders.hpp"
#include "report/locate.hpp"
#include "report/text.hpp"

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include <fmt/format.h>

namespace mg::report {

namespace {

// The holder's path as a chain of its steps, the root's kind on the first,
// then what the tool read of it (type, length, bound).
std::string chain_html(const HolderName& h) {
    std::string out = fmt::format("<ol class=\"chain\" data-root=\"{}\">", markup_escape(h.root));
    std::vector<std::string> steps = holder_steps(h.path);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        // The first step is the root, unless the path was cut ("… →").
        bool root = i == 0 && steps[i] != "\u2026";
        out += fmt::format(
            "<li{}>{}<code>{}</code></li>", root ? " class=\"root\"" : "",
            root ? fmt::format("<span class=\"badge root\">{}</span> ", markup_escape(h.root)) : "",
            markup_escape(steps[i]));
    }
    out += "</ol>";
    if (holder_read(h))
        out += " <span class=\"muted\">(" + markup_escape(holder_about(h)) + ")</span>";
    return out;
}

} // namespace

std::string held_by_html(const Report& r, const Site& s) {
    const std::vector<HeldBy>& held = held_by(r, s);
    if (held.empty()) return {};
    std::string out = "<div class=\"held-by\"><span class=\"muted\">held by</span><ul>";
    for (const HeldBy& h : held)
        out += fmt::format("<li>{} <span class=\"muted\">{} bytes in {} blocks, {}%</span>"
                           "</li>",
                           chain_html(h), with_commas(h.bytes), with_commas(h.blocks),
                           percent_text(h.share));
    return out + "</ul></div>\n";
}

void holders_section(std::string& out, const Report& r, const std::string& rid,
                     const HtmlOptions& o) {
    // The holders of leaked, growing and plateau memory, the `o.top` largest
    // of each class: as bounded as the cards, however many holders there are.
    std::vector<const Holder*> shown;
    std::size_t problems = 0;
    for (SiteClass c : {SiteClass::leaked, SiteClass::growing, SiteClass::plateau}) {
        std::vector<const Holder*> of_class;
        for (const Holder& h : r.holders)
            if (h.cls == c && !part_of_holder_finding(r, h)) of_class.push_back(&h);
        problems += of_class.size();
        std::stable_sort(of_class.begin(), of_class.end(),
                         [](const Holder* a, const Holder* b) { return a->bytes > b->bytes; });
        if (of_class.size() > o.top) of_class.resize(o.top);
        shown.insert(shown.end(), of_class.begin(), of_class.end());
    }
    if (shown.empty()) return;
    SiteIndex native, python;
    for (const Site& s : r.sites)
        native.emplace(s.id, &s);
    for (const Site& s : r.python_sites)
        python.emplace(s.id, &s);
    auto it = std::back_inserter(out);
    fmt::format_to(it,
                   "<h3>Holders <span class=\"muted\">(what keeps the memory: the {} largest of "
                   "each class, {} of {} holders of leaked, growing or plateau sites)</span></h3>\n"
                   "<table class=\"holders sortable\" id=\"{}-holders\"><thead><tr><th>class</th>"
                   "<th>holder</th><th data-type=\"num\">bytes</th><th data-type=\"num\">blocks"
                   "</th><th data-type=\"num\">rate (bytes per {})</th><th>sites</th></tr></thead>"
                   "<tbody>\n",
                   o.top, shown.size(), problems, rid, markup_escape(clock_unit(r.time_unit)));
    for (const Holder* h : shown) {
        std::vector<HeldSite> sites = holder_members(r, *h, native, python);
        std::string list;
        for (std::size_t i = 0; i < std::min(o.top, sites.size()); ++i) {
            const Site& s = *sites[i].site;
            fmt::format_to(std::back_inserter(list),
                           "<li><a href=\"#{}-stack-{}{}\"><span class=\"cls {}\">{}</span> "
                           "<code>{}</code></a> <span class=\"muted\">{} bytes</span></li>",
                           rid, s.python ? "py" : "", s.id, class_name(s.cls), class_name(s.cls),
                           markup_escape(site_title(s)), with_commas(sites[i].bytes));
        }
        // The log's and show's numbers: its share of its sites' live bytes,
        // in all the sites it keeps (older reports: what the scan found).
        std::int64_t keeps = h->live_bytes.value_or(h->bytes);
        std::size_t n_sites = h->n_sites ? static_cast<std::size_t>(*h->n_sites) : sites.size();
        std::size_t listed = std::min(o.top, sites.size());
        if (n_sites > listed)
            list += fmt::format("<li class=\"muted\">and {} more site{}</li>", n_sites - listed,
                                n_sites - listed == 1 ? "" : "s");
        fmt::format_to(it,
                       "<tr data-holder=\"{}\"><td><span class=\"cls {}\">{}</span></td>"
                       "<td>{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>"
                       "<td data-v=\"{}\">{}</td><td><ul class=\"holder-sites\">{}</ul></td>"
                       "</tr>\n",
                       h->id, class_name(h->cls), class_name(h->cls), chain_html(*h), keeps,
                       with_commas(keeps), h->blocks, with_commas(h->blocks), h->rate.value_or(0),
                       h->rate ? rate_text(*h->rate) : "", list);
    }
    out += "</tbody></table>\n";
}

} // namespace mg::report
