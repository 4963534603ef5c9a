// SPDX-License-Identifier: GPL-2.0-or-later
// The growth flame graph on the HTML page (report/html.hpp, flame_section):
// its container and controls, written here, and the page's script that
// draws it with the bundled d3-flame-graph (kFlameLib, built from npm by
// scripts/embed-js.sh) from each report's "flame" data (report/flame.hpp).
#include "report/html.hpp"

#include <fmt/format.h>

namespace mg::report {

void flame_section(std::string& out, const std::string& rid) {
    fmt::format_to(
        std::back_inserter(out),
        "<h3>Where memory grows <span class=\"muted\">(stacks merged from the outermost "
        "frame down; width: bytes; colour: the class of the largest site beneath; click to "
        "zoom)</span></h3>\n"
        "<div class=\"flame\" id=\"{0}-flame\">\n<div class=\"flame-controls\">"
        "<label><input type=\"radio\" name=\"{0}-metric\" value=\"0\" checked> bytes gained "
        "after the warm-up</label> "
        "<label><input type=\"radio\" name=\"{0}-metric\" value=\"1\"> live at teardown</label> "
        "<label><input type=\"radio\" name=\"{0}-metric\" value=\"2\"> leaked</label> "
        "<label>search <input type=\"search\" class=\"flame-search\" "
        "placeholder=\"function or file\"></label> "
        "<button type=\"button\" class=\"flame-reset\">reset zoom</button></div>\n"
        "<div class=\"flame-details muted\">&nbsp;</div>\n<div class=\"flame-chart\"></div>\n"
        "<p class=\"flame-empty muted\" hidden></p>\n"
        "<noscript><p>The flame graph needs JavaScript; <code>memgrow-report speedscope</code> "
        "and <code>pprof</code> export the same stacks.</p></noscript></div>\n",
        rid);
}

const char* const kFlameStyle = R"CSS(
.flame-controls{margin:4px 0}.flame-controls label{margin-right:10px}
.flame-details{font-size:13px;min-height:1.4em}.flame-chart{width:100%}
.d3-flame-graph-label{font:11px system-ui,sans-serif}
)CSS";

// Per report: the tree of the chosen metric as nested objects (nodes with
// nothing of it left out), drawn by d3-flame-graph; the radio buttons redraw
// it, the search box marks matching frames (plain text, not a pattern).
const char* const kFlameScript = R"JS(
(function () {
  "use strict";
  var CLASS = ["stable", "plateau", "growing", "leaked"];
  var COLOR = ["#9e9e9e", "#64b5f6", "#ffb74d", "#e57373"];
  var METRIC = ["gained after the warm-up", "live at teardown", "leaked"];
  var W = 8; // values per node row (report/flame.hpp)
  var data = JSON.parse(document.getElementById("mg-data").textContent);
  function bytes(n) {
    var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
    while (n >= 1024 && i < 4) { n /= 1024; i++; }
    return (i ? n.toFixed(n >= 100 ? 0 : 1) : n) + " " + u[i];
  }
  function tree(f, m) {
    var n = f.nodes, count = n.length / W, objs = new Array(count);
    for (var i = 0; i < count; i++) {
      var v = n[i * W + 2 + m], p = n[i * W];
      if (i && (!(v > 0) || !objs[p])) continue;
      var o = {name: f.names[n[i * W + 1]], value: v, cls: n[i * W + 5 + m],
               all: [n[i * W + 2], n[i * W + 3], n[i * W + 4]], children: []};
      objs[i] = o;
      if (i) objs[p].children.push(o);
    }
    return objs[0];
  }
  data.reports.forEach(function (rep, ri) {
    var box = document.getElementById("r" + ri + "-flame");
    if (!box || !rep.flame) return;
    var f = rep.flame, metric = 0;
    var chartEl = box.querySelector(".flame-chart"), empty = box.querySelector(".flame-empty");
    var details = box.querySelector(".flame-details");
    var chart = flamegraph.default()
      .width(Math.max(400, chartEl.clientWidth || 900))
      .cellHeight(18).minFrameSize(1).inverted(true).sort(true).transitionDuration(0)
      .setDetailsElement(details)
      .setColorMapper(function (d) { return d.highlight ? "#e600e6" : COLOR[d.data.cls]; })
      .label(function (d) {
        var a = d.data.all;
        return d.data.name + "\n" + CLASS[d.data.cls] + " beneath; gained " + bytes(a[0]) +
          ", live " + bytes(a[1]) + ", leaked " + bytes(a[2]) + " (" +
          (100 * d.value / f.totals[metric]).toFixed(1) + "% of " + METRIC[metric] + ")";
      })
      .setSearchHandler(function (found, sum, total) {
        details.textContent = "search: " + found.length + " frames, " + bytes(sum) + " of " +
          bytes(total) + " " + METRIC[metric];
      })
      .setSearchMatch(function (d, term) {
        return !!term && d.data.name.toLowerCase().indexOf(term.toLowerCase()) >= 0;
      });
    function draw() {
      var none = !(f.totals[metric] > 0);
      empty.hidden = !none;
      chartEl.hidden = none;
      if (none) { empty.textContent = "No bytes " + METRIC[metric] + "."; return; }
      var root = tree(f, metric);
      if (chartEl.firstChild) chart.update(root);
      else window.d3.select(chartEl).datum(root).call(chart);
      var term = box.querySelector(".flame-search").value;
      if (term) chart.search(term);
    }
    box.querySelectorAll("input[type=radio]").forEach(function (r) {
      r.addEventListener("change", function () { metric = +r.value; draw(); });
    });
    box.querySelector(".flame-search").addEventListener("input", function (e) {
      if (e.target.value) chart.search(e.target.value);
      else { chart.clear(); details.textContent = "\u00a0"; }
    });
    box.querySelector(".flame-reset").addEventListener("click", function () { chart.resetZoom(); });
    draw();
    box.setAttribute("data-flame-ready", "1");
  });
})();
)JS";

} // namespace mg::report
