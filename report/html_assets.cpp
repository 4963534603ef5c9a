// SPDX-License-Identifier: GPL-2.0-or-later
// The page's own style sheet and script (report/html.hpp): no library, no
// network. The script draws each report's site table a page at a time from
// the page's embedded data, draws a site's stack when it is opened, sorts,
// filters and pages, and follows links to a site (#rN-stack-ID) or a page
// (#rN-page-P). It marks <body> when it ran without an exception
// (data-mg-ready, the number of reports), or with one (data-mg-error).
#include "report/html.hpp"

namespace mg::report {

const char* const kHtmlStyle = R"CSS(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 24px 40px;color:#222}
h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;margin:28px 0 4px;padding-top:8px;border-top:2px solid #ccc}
h3{font-size:15px;margin:18px 0 6px}h4{font-size:14px;margin:4px 0}
.muted{color:#777;font-weight:normal}code{font:12px ui-monospace,Menlo,Consolas,monospace}
.meta{margin:2px 0;color:#444}.verdict{font-size:16px;font-weight:600;margin:6px 0}
.cls{font-weight:600}.cls.leaked{color:#c62828}.cls.growing{color:#ef6c00}.cls.plateau{color:#1565c0}.cls.stable{color:#616161}
.site-charts{display:flex;flex-wrap:wrap;gap:12px}
.site-card{border:1px solid #ddd;border-radius:6px;padding:8px;width:580px}
dl.evidence{display:grid;grid-template-columns:max-content auto;gap:0 10px;margin:4px 0;font-size:13px}
dl.evidence dt{color:#666}dl.evidence dd{margin:0}
svg.chart{display:block;background:#fff}svg.chart text{font:11px system-ui,sans-serif;fill:#444}
svg.chart .grid{stroke:#eee}svg.chart .axis{stroke:#888}
svg.chart .series{fill:none;stroke-width:2}svg.chart .event{stroke-dasharray:4 3;stroke-width:1}
table{border-collapse:collapse;font-size:13px;margin:4px 0}
th,td{border-bottom:1px solid #e4e4e4;padding:3px 8px;text-align:left;vertical-align:top}
td[data-v]{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f4f4f4;position:sticky;top:0}
table.sortable th{cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
.filters{margin:4px 0}.filters input{width:260px}
ol.stack{margin:2px 0 6px;padding-left:28px}ol.stack li.py{background:#f3f8e8}
.badge.py{background:#3776ab;color:#fff;border-radius:3px;padding:0 4px;font-size:11px}
.src{color:#2e7d32}.obj{color:#777}details{margin:2px 0}summary{cursor:pointer}
.pager{margin:4px 0}.pager button{margin-right:6px}
table.sites td.name a{cursor:pointer}tr.detail>td{background:#fafafa;padding:4px 12px 8px}
tr.open td{background:#f0f4fa}
ol.chain{display:inline;list-style:none;padding:0;margin:0}ol.chain>li{display:inline}
ol.chain>li+li::before{content:"\2192";padding:0 4px;color:#777}
.badge.root{background:#eceff1;color:#455a64;border-radius:3px;padding:0 4px;font-size:11px}
div.held-by{font-size:13px;margin:4px 0}div.held-by ul,ul.holder-sites{margin:2px 0;padding-left:20px}
)CSS";

const char* const kHtmlScript = R"JS(
(function () {
  "use strict";
  function fail(e) {
    document.body.setAttribute("data-mg-error", String(e && e.message || e));
  }
  window.addEventListener("error", function (e) { fail(e.error || e.message); });
  var CLASSES = ["stable", "plateau", "growing", "leaked"];
  // Row fields (report/html.hpp, site_table_data).
  var ID = 0, PY = 1, CLS = 2, SPACE = 3, LIVE = 4, PEAK = 5, LOST = 6, RATE = 7, CONF = 8,
      TITLE = 9, NODE = 10, NSUB = 11, SUBS = 12, SUPP = 13, HELD = 14;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function commas(n) {
    var s = String(Math.abs(Math.round(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return n < 0 ? "-" + s : s;
  }
  // Numbers as the log prints them (core/format.hpp): shares with one
  // decimal, rates with 4 significant digits or whole from 1,000 on.
  function pct(v) { return String(Math.round(1000 * v) / 10) + "%"; }
  function rateText(v) {
    if (Math.abs(v) >= 999.5 && Math.abs(v) < 9e18) return (v < 0 ? "" : "+") + commas(v);
    return (v < 0 ? "" : "+") + String(Number(v.toPrecision(4)));
  }

  // One report's site table: sorting, filtering and paging over its rows,
  // a page of <tr>s at a time; a site's stack is drawn when it is opened.
  function SiteTable(section, d, rid, opts) {
    var S = d.s, F = d.f, N = d.n, rows = d.rows;
    var table = document.getElementById(rid + "-sites");
    var body = table.tBodies[0];
    var box = section.querySelector(".filters");
    var text = box.querySelector(".f-text"), cls = box.querySelector(".f-class");
    var count = box.querySelector(".f-count");
    var pager = section.querySelector(".pager");
    var prev = pager.querySelector(".p-prev"), next = pager.querySelector(".p-next");
    var where = pager.querySelector(".p-label");
    var order = rows.map(function (_, i) { return i; }); // as the page lists them
    var shown = order, page = 0, open = {}, texts = [];
    var byAnchor = {};
    rows.forEach(function (r, i) { byAnchor[anchor(r)] = i; });

    function anchor(r) { return (r[PY] ? "py" : "") + r[ID]; }
    function str(i) { return i < 0 ? null : S[i]; }
    function base(path) { return path.slice(path.lastIndexOf("/") + 1); }
    function label(fi) {
      if (fi < 0) return "(no frames)";
      var f = F[fi], fn = str(f[0]) || "???", file = str(f[1]), obj = str(f[3]);
      if (file) return fn + " (" + base(file) + (f[2] >= 0 ? ":" + f[2] : "") + ")";
      return obj ? fn + " (in " + base(obj) + ")" : fn;
    }
    function stackFrames(node) {
      var out = [];
      for (; node >= 0 && out.length < 100000; node = N[2 * node + 1]) out.push(N[2 * node]);
      return out;
    }
    function stackEl(node) {
      var frames = stackFrames(node);
      if (!frames.length) return el("p", "muted", "(no frames)");
      var ol = el("ol", "stack");
      var n = Math.min(opts.frames, frames.length);
      for (var i = 0; i < n; i++) {
        var f = F[frames[i]], li = el("li", f[4] ? "py" : null);
        if (f[4]) {
          var badge = el("span", "badge py", "py");
          badge.title = "Python frame";
          li.appendChild(badge);
          li.appendChild(document.createTextNode(" "));
        }
        li.appendChild(el("code", null, str(f[0]) || "???"));
        var file = str(f[1]), obj = str(f[3]);
        if (file) {
          li.appendChild(document.createTextNode(" "));
          li.appendChild(el("span", "src", file + (f[2] >= 0 ? ":" + f[2] : "")));
        } else if (obj) {
          li.appendChild(document.createTextNode(" "));
          li.appendChild(el("span", "obj", "in " + obj));
        }
        ol.appendChild(li);
      }
      if (n < frames.length)
        ol.appendChild(el("li", "muted", "\u2026 " + (frames.length - n) + " more"));
      return ol;
    }
    // A site's holders (docs/holders.md): each path as a chain of its
    // steps from the root, what the tool read of it, its share of the site.
    function holderText(h) { return S[h[0]] + (S[h[2]] ? " (" + S[h[2]] + ")" : ""); }
    function chainEl(h) {
      var root = S[h[1]], ol = el("ol", "chain");
      ol.setAttribute("data-root", root);
      S[h[0]].split(" \u2192 ").forEach(function (step, k) {
        var first = k === 0 && step !== "\u2026", li = el("li", first ? "root" : null);
        if (first) {
          li.appendChild(el("span", "badge root", root));
          li.appendChild(document.createTextNode(" "));
        }
        li.appendChild(el("code", null, step));
        ol.appendChild(li);
      });
      return ol;
    }
    function heldEl(r) {
      var div = el("div", "held-by"), ul = el("ul");
      div.appendChild(el("span", "muted", "held by"));
      r[HELD].forEach(function (h) {
        var li = el("li");
        li.appendChild(chainEl(h));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("span", "muted", (S[h[2]] ? "(" + S[h[2]] + ") " : "") + commas(h[3]) +
                                           " bytes in " + commas(h[4]) + " blocks, " + pct(h[5])));
        ul.appendChild(li);
      });
      div.appendChild(ul);
      return div;
    }
    function rowText(i) {
      if (texts[i] === undefined) {
        var r = rows[i], parts = [anchor(r), CLASSES[r[CLS]], S[r[SPACE]], label(r[TITLE])];
        stackFrames(r[NODE]).forEach(function (fi) { parts.push(label(fi)); });
        r[HELD].forEach(function (h) { parts.push(S[h[0]]); });
        texts[i] = parts.join(" ").toLowerCase();
      }
      return texts[i];
    }
    function cell(tr, value, textValue) {
      var td = el("td", null, textValue);
      if (value !== null) td.setAttribute("data-v", String(value));
      tr.appendChild(td);
      return td;
    }
    function rowEl(i) {
      var r = rows[i], tr = el("tr", open[i] ? "open" : null);
      tr.setAttribute("data-class", CLASSES[r[CLS]]);
      cell(tr, r[PY] ? -1 - r[ID] : r[ID], anchor(r));
      var c = cell(tr, null, null);
      c.appendChild(el("span", "cls " + CLASSES[r[CLS]], CLASSES[r[CLS]]));
      if (r[SUPP]) c.appendChild(document.createTextNode(" (suppressed)"));
      cell(tr, null, S[r[SPACE]]);
      cell(tr, r[LIVE], commas(r[LIVE]));
      cell(tr, r[PEAK], commas(r[PEAK]));
      cell(tr, r[LOST], commas(r[LOST]));
      cell(tr, r[RATE], rateText(r[RATE]));
      cell(tr, r[CONF], String(Math.round(1000 * r[CONF]) / 1000));
      var name = cell(tr, null, null), a = el("a", null, null);
      name.className = "name";
      a.href = "#" + rid + "-stack-" + anchor(r);
      a.appendChild(el("code", null, label(r[TITLE])));
      a.addEventListener("click", function (e) {
        e.preventDefault();
        if (open[i]) delete open[i]; else open[i] = true;
        render();
      });
      name.appendChild(a);
      var held = r[HELD][0], hc = cell(tr, null, null);
      hc.className = "held";
      if (held) {
        hc.appendChild(el("code", null, holderText(held)));
        hc.appendChild(el("span", "muted", " " + pct(held[5])));
      }
      return tr;
    }
    function detailEl(i) {
      var r = rows[i], tr = el("tr", "detail"), td = el("td");
      tr.id = rid + "-stack-" + anchor(r);
      td.colSpan = 10;
      if (r[HELD].length) td.appendChild(heldEl(r));
      td.appendChild(stackEl(r[NODE]));
      if (r[PY]) {
        td.appendChild(el("p", "muted sub-sites", r[NSUB] + " native sub-sites"));
        r[SUBS].forEach(function (sub) {
          var det = el("details", "sub-site"), sum = el("summary");
          sum.appendChild(el("span", "cls " + CLASSES[sub[1]], CLASSES[sub[1]]));
          sum.appendChild(document.createTextNode(" site " + sub[0] + " "));
          sum.appendChild(el("span", "muted", commas(sub[2]) + " bytes live in " +
                                              commas(sub[3]) + " blocks"));
          det.appendChild(sum);
          det.appendChild(stackEl(sub[4]));
          td.appendChild(det);
        });
      }
      tr.appendChild(td);
      return tr;
    }
    function render() {
      var pages = Math.max(1, Math.ceil(shown.length / opts.page));
      page = Math.max(0, Math.min(page, pages - 1));
      var from = page * opts.page, to = Math.min(shown.length, from + opts.page);
      var frag = document.createDocumentFragment();
      for (var k = from; k < to; k++) {
        frag.appendChild(rowEl(shown[k]));
        if (open[shown[k]]) frag.appendChild(detailEl(shown[k]));
      }
      body.textContent = "";
      body.appendChild(frag);
      count.textContent = shown.length + " of " + rows.length + " sites";
      where.textContent = shown.length ? "page " + (page + 1) + " of " + pages + " (rows " +
                                         (from + 1) + "\u2013" + to + ")" : "no rows";
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
      table.setAttribute("data-page", String(page + 1));
      table.setAttribute("data-pages", String(pages));
      table.setAttribute("data-shown", String(shown.length));
    }
    function apply() {
      var want = text.value.toLowerCase(), c = cls.value;
      shown = order.filter(function (i) {
        return (!c || CLASSES[rows[i][CLS]] === c) && (!want || rowText(i).indexOf(want) >= 0);
      });
      page = 0;
      render();
    }
    // Sorting: each column's value of a row.
    var keys = [
      function (r) { return r[PY] ? -1 - r[ID] : r[ID]; }, function (r) { return r[CLS]; },
      function (r) { return S[r[SPACE]]; }, function (r) { return r[LIVE]; },
      function (r) { return r[PEAK]; }, function (r) { return r[LOST]; },
      function (r) { return r[RATE]; }, function (r) { return r[CONF]; },
      function (r) { return label(r[TITLE]).toLowerCase(); },
      function (r) { return r[HELD].length ? holderText(r[HELD][0]).toLowerCase() : ""; }];
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.addEventListener("click", function () {
        var descending = th.getAttribute("aria-sort") !== "descending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var key = keys[col];
        order = order.slice().sort(function (a, b) {
          var x = key(rows[a]), y = key(rows[b]);
          var c = x < y ? -1 : x > y ? 1 : 0;
          return descending ? -c : c;
        });
        apply();
      });
    });
    text.addEventListener("input", apply);
    cls.addEventListener("change", apply);
    prev.addEventListener("click", function () { page--; render(); });
    next.addEventListener("click", function () { page++; render(); });
    apply();

    // "#rN-stack-ID": the page holding site ID, its stack open;
    // "#rN-page-P": page P (1-based).
    this.go = function (what, arg) {
      if (what === "page") {
        page = parseInt(arg, 10) - 1;
        render();
        return table;
      }
      var i = byAnchor[arg];
      if (i === undefined) return null;
      if (shown.indexOf(i) < 0) {
        text.value = "";
        cls.value = "";
        apply();
      }
      open[i] = true;
      page = Math.floor(shown.indexOf(i) / opts.page);
      render();
      return document.getElementById(rid + "-stack-" + arg);
    };
  }

  try {
    var data = JSON.parse(document.getElementById("mg-data").textContent);
    var sections = document.querySelectorAll("section.report");
    if (sections.length !== data.reports.length)
      throw new Error("report sections do not match the page's data");
    var tables = {};
    data.reports.forEach(function (d, i) {
      tables["r" + i] = new SiteTable(sections[i], d, "r" + i, data.options);
    });
    // Static tables (leaks by stack) sort on their data-v cells.
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
      var heads = table.tHead.rows[0].cells;
      Array.prototype.forEach.call(heads, function (th, col) {
        th.addEventListener("click", function () {
          var numeric = th.getAttribute("data-type") === "num";
          var descending = th.getAttribute("aria-sort") !== "descending";
          Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
          th.setAttribute("aria-sort", descending ? "descending" : "ascending");
          var body = table.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows);
          function value(row) {
            var cell = row.cells[col];
            if (!numeric) return cell ? cell.textContent.toLowerCase() : "";
            var v = cell ? parseFloat(cell.getAttribute("data-v")) : 0;
            return isNaN(v) ? 0 : v;
          }
          rows.sort(function (a, b) {
            var x = value(a), y = value(b), c = x < y ? -1 : x > y ? 1 : 0;
            return descending ? -c : c;
          });
          rows.forEach(function (r) { body.appendChild(r); });
        });
      });
    });
    function follow() {
      var m = /^#(r\d+)-(stack|page)-([\w.-]+)$/.exec(location.hash);
      if (!m || !tables[m[1]]) return;
      var target = tables[m[1]].go(m[2], m[3]);
      if (target) target.scrollIntoView();
    }
    window.addEventListener("hashchange", follow);
    follow();
    if (!document.body.hasAttribute("data-mg-error"))
      document.body.setAttribute("data-mg-ready", String(data.reports.length));
  } catch (e) {
    fail(e);
    throw e;
  }
})();
)JS";

} // namespace mg::report
