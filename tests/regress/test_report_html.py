# SPDX-License-Identifier: GPL-2.0-or-later
"""memgrow-report html: the page for two real reports (gains_leak_new: a
growing list, a plateau ring and a leak; grow_list: a growing list), opened
in headless Chromium. The page must run its script without a console error
(its script marks <body data-mg-ready> when it ran), its SVG charts must have
one point per bucket (the total by space and one chart per top site), and a
screenshot is kept as a test artifact ($MG_BUILD_DIR/tests/artifacts/
report.png). Report text that looks like markup stays text. Bad input exits 2
naming the file.

The page stays bounded on a report of many sites (a synthetic one of 2,345):
no DOM row per site in the file, cards for the top sites of each class only,
the table drawn a page of 100 rows at a time in the listed order (Python
sites, then class, then live bytes), a page reachable by its link
(#r0-page-P), and a site's stack drawn only when the site is opened
(#r0-stack-ID); with --rows, the stable sites with the least live bytes are
left out of the table and counted.
"""
import html.parser
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import BUILD, program, run, sites_at  # noqa: E402

ARTIFACTS = os.path.join(BUILD, "tests", "artifacts")
HOSTILE = "</script><script>document.body.setAttribute('data-pwned','1')</script><b>x</b>"


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browse(page, *args, timeout=120):
    """Runs headless Chromium on `page` (a file); returns (stdout, stderr)."""
    profile = tempfile.mkdtemp(prefix="memgrow-chromium-")
    try:
        p = subprocess.run(
            [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0",
             f"--user-data-dir={profile}", "--virtual-time-budget=5000", *args,
             "file://" + os.path.abspath(page)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
            timeout=timeout)
        return p.stdout, p.stderr
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(stderr):
    """The page's console messages and uncaught exceptions in Chromium's log.
    The page logs nothing when all is well, so any CONSOLE line is an error;
    Chromium's own warnings (D-Bus, GPU, sandbox) do not count."""
    return [line for line in stderr.splitlines()
            if ":CONSOLE" in line or "Uncaught" in line]


class Charts(html.parser.HTMLParser):
    """The <svg> charts of a DOM: their classes, bucket count, the id of the
    element holding them, and the point count of each polyline."""

    def __init__(self):
        super().__init__()
        self.charts = []
        self.stack = []  # (tag, id) of open elements
        self.body = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "svg":
            holder = next((i for t, i in reversed(self.stack) if i), None)
            self.charts.append({"class": a.get("class", "").split(), "holder": holder,
                                "buckets": int(a.get("data-buckets", -1)), "lines": []})
        elif tag == "polyline" and self.charts:
            points = (a.get("points") or "").split()
            self.charts[-1]["lines"].append((a.get("data-series"), points))
        if tag not in ("line", "rect", "polyline", "meta", "br", "input", "img"):
            self.stack.append((tag, a.get("id")))

    def handle_endtag(self, tag):
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                break


memgrow_report = mgtest.memgrow_report

CLASSES = ["stable", "plateau", "growing", "leaked"]


def many_sites_report(n, buckets=12):
    """A format-1 report of n sites: random classes and sizes, frames from a
    small pool (so stacks share callers), one site in 10 suppressed."""
    rnd = random.Random(5)
    width = 4096
    funcs = [f"fn_{i}" for i in range(40)]
    sites = []
    for i in range(n):
        cls = rnd.choice(CLASSES[:1] * 6 + CLASSES[1:])
        live = rnd.randint(0, 1 << 20)
        series = sorted(rnd.randint(0, live) for _ in range(buckets - 1)) + [live]
        depth = rnd.randint(3, 9)
        frames = [{"function": rnd.choice(funcs), "file": f"src/f{rnd.randint(0, 9)}.c",
                   "line": rnd.randint(1, 500), "object": "/opt/app/server", "python": False,
                   "ip": "0x401000"} for _ in range(depth)]
        frames.insert(0, {"function": "malloc", "file": "vg_replace_malloc.c", "line": 446,
                          "object": "/usr/libexec/valgrind/vgpreload_memgrow-amd64-linux.so",
                          "python": False, "ip": "0x4848000"})
        sites.append({
            "id": i, "space": "host", "class": cls, "live_bytes": live, "live_blocks": 1,
            "peak_bytes": live, "allocated_bytes": live, "allocated_blocks": 1,
            "at_exit_bytes": live, "at_exit_blocks": 1, "suppressed": i % 10 == 9,
            "growth": {"class": cls, "rule": "trend" if cls == "growing" else "none",
                       "rate": rnd.random(), "rate_per_bucket": 1.0, "rate_per_mark": None,
                       "confidence": rnd.random(), "began_at": None, "stopped_at": None,
                       "marks_used": 0, "marks_adding": 0, "released_at_end": False},
            "series": series, "frames": frames})
    return {"memgrow": 1, "command": ["./server"], "pid": 77, "ppid": 1, "time_unit": "B",
            "bucket_width": width, "warmup_end": width, "teardown_at": buckets * width,
            "teardown": "exit", "marks": {"count": 0, "first_at": 0, "per_bucket": 1},
            "buckets": [{"end": (k + 1) * width, "live_bytes": k, "allocated_bytes": width,
                         "freed_bytes": 0,
                         "spaces": {"host": {"live_bytes": k, "allocated_bytes": width,
                                             "freed_bytes": 0}}} for k in range(buckets)],
            "sites": sites, "errors": []}


def table_rows(dom, table_id):
    """The rows of a table in a DOM: (first cell's text, tr attributes) of each."""
    start = dom.index(f'id="{table_id}"')
    body = dom[dom.index("<tbody>", start):dom.index("</tbody>", start)]
    return re.findall(r'<tr([^>]*)><td[^>]*>([^<]*)</td>', body)


class ReportHtml(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not chromium():
            raise AssertionError("no chromium: scripts/install-deps.sh installs it")
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-html-test-")
        cls.reports = []
        cls.files = []
        for name, argv in (("gains", [program("gains_leak_new")]),
                           ("grow", [program("grow_list")])):
            r = run(argv)
            assert r.rc == 0, r.log
            cls.reports.append(r.report)
            path = os.path.join(cls.tmp, name + ".json")
            with open(path, "w") as f:
                json.dump(r.report, f)
            cls.files.append(path)
        cls.page = os.path.join(cls.tmp, "report.html")
        p = memgrow_report("html", *cls.files, "-o", cls.page, "--top", "5")
        assert p.returncode == 0, p.stderr
        cls.dom, cls.log = browse(cls.page, "--dump-dom")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def charts(self, dom=None):
        c = Charts()
        c.feed(dom or self.dom)
        return c

    def test_the_page_is_self_contained(self):
        with open(self.page) as f:
            text = f.read()
        # Nothing fetched at view time: no external URL in any src/href.
        self.assertIsNone(re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text))
        self.assertNotIn("<link", text)
        self.assertIn("default-src 'none'", text)  # and the page forbids it anyway

    def test_no_console_errors_and_the_script_ran(self):
        self.assertEqual(console_errors(self.log), [], self.log)
        body = self.charts().body
        self.assertEqual(body.get("data-mg-ready"), "2", f"body: {body}\nlog:\n{self.log}")
        self.assertNotIn("data-mg-error", body)

    def test_total_charts_have_one_point_per_bucket(self):
        charts = [c for c in self.charts().charts if "total-chart" in c["class"]]
        self.assertEqual(len(charts), 2)  # one per report
        for chart, report in zip(charts, self.reports):
            n = len(report["buckets"])
            self.assertGreater(n, 8)
            self.assertEqual(chart["buckets"], n)
            self.assertIn("host", [name for name, _ in chart["lines"]])
            for name, points in chart["lines"]:
                self.assertEqual(len(points), n, name)

    def test_site_charts_for_the_top_sites(self):
        charts = {c["holder"]: c for c in self.charts().charts if "site-chart" in c["class"]}
        gains, grow = self.reports
        expected = {
            "r0": [sites_at(gains, function="remember")[0],
                   sites_at(gains, function="forget")[0],
                   sites_at(gains, function="cache")[0]],
            "r1": [s for s in grow["sites"] if s["class"] == "growing"],
        }
        self.assertTrue(expected["r1"])
        classes = {"r0": {"growing", "leaked", "plateau"}, "r1": {"growing"}}
        for rid, sites in expected.items():
            self.assertEqual({s["class"] for s in sites}, classes[rid])
            for s in sites:
                holder = f"{rid}-site-{s['id']}"
                self.assertIn(holder, charts, f"no chart for {holder}: {sorted(charts)}")
                (name, points), = charts[holder]["lines"]
                self.assertEqual(len(points), len(s["series"]), holder)
        # Stable sites get no chart.
        stable = [s for s in gains["sites"] if s["class"] == "stable"]
        for s in stable:
            self.assertNotIn(f"r0-site-{s['id']}", charts)

    def test_tables_stacks_and_leaks(self):
        dom = self.dom
        self.assertIn('id="r0-sites"', dom)
        self.assertIn('id="r1-sites"', dom)
        self.assertRegex(dom, r'<span class="src">[^<]*gains_leak\.c:\d+</span>')
        leaks = dom[dom.index('id="r0-leaks"'):]
        leaks = leaks[:leaks.index("</table>")]
        forget = sites_at(self.reports[0], function="forget")[0]
        self.assertIn(f'data-v="{forget["lost"]["definite"]}"', leaks)
        self.assertIn("<code>forget</code>", leaks)
        self.assertIn("of", re.search(r'class="f-count[^"]*">([^<]*)<', dom).group(1))

    def test_screenshot(self):
        os.makedirs(ARTIFACTS, exist_ok=True)
        shot = os.path.join(ARTIFACTS, "report.png")
        if os.path.exists(shot):
            os.remove(shot)
        _, log = browse(self.page, f"--screenshot={shot}", "--window-size=1280,2000")
        self.assertTrue(os.path.exists(shot), log)
        with open(shot, "rb") as f:
            data = f.read()
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        self.assertGreater(len(data), 10_000)
        self.assertEqual(console_errors(log), [], log)

    def test_report_text_stays_text(self):
        report = mgtest.load_report(self.files[0])
        report["command"] = [HOSTILE, "<!--", "\u2028"]
        forget = sites_at(report, function="forget")[0]
        forget["frames"][0]["function"] = "<img src=x onerror=alert(1)>"
        path = os.path.join(self.tmp, "hostile.json")
        with open(path, "w") as f:
            json.dump(report, f)
        page = os.path.join(self.tmp, "hostile.html")
        p = memgrow_report("html", path, "-o", page)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(page) as f:
            text = f.read()
        self.assertNotIn("<img src=x", text)
        # The page's own four: its data, its script, the flame graph's library and script.
        self.assertEqual(text.count("</script>"), 4)
        dom, log = browse(page, "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        body = self.charts(dom).body
        self.assertEqual(body.get("data-mg-ready"), "1", body)
        self.assertNotIn("data-pwned", body)
        self.assertIn("&lt;img src=x onerror=alert(1)&gt;", dom)

    def test_a_stack_is_drawn_when_its_site_is_opened(self):
        # Not in the table before: no pre-rendered stack rows.
        self.assertNotIn('class="detail"', self.dom)
        forget = sites_at(self.reports[0], function="forget")[0]
        dom, log = browse(self.page + f"#r0-stack-{forget['id']}", "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        detail = re.search(r'<tr class="detail" id="r0-stack-%d">(.*?)</tr>' % forget["id"], dom,
                           re.S)
        self.assertTrue(detail, dom[-3000:])
        self.assertIn("<code>forget</code>", detail.group(1))
        self.assertRegex(detail.group(1), r'<span class="src">[^<]*gains_leak\.c:\d+</span>')

    def test_many_sites_stay_bounded_and_page(self):
        report = many_sites_report(2345)
        path = os.path.join(self.tmp, "many.json")
        with open(path, "w") as f:
            json.dump(report, f)
        page = os.path.join(self.tmp, "many.html")
        p = memgrow_report("html", path, "-o", page, "--top", "4")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(page) as f:
            text = f.read()
        # No row per site in the file; one card per top site of each class.
        self.assertLess(text.count("<tr"), 20)
        self.assertEqual(text.count('class="site-card"'), 12)  # 4 leaked, growing, plateau
        listed = [s for s in report["sites"] if not s["suppressed"]]
        order = sorted(listed, key=lambda s: (-CLASSES.index(s["class"]), -s["live_bytes"]))
        pages = (len(listed) + 99) // 100
        for number in (1, 3, pages):
            with self.subTest(page=number):
                dom, log = browse(page + f"#r0-page-{number}", "--dump-dom")
                self.assertEqual(console_errors(log), [], log)
                self.assertIn('data-mg-ready="1"', dom)
                table = re.search(r'<table class="sites" id="r0-sites"([^>]*)>', dom).group(1)
                self.assertIn(f'data-page="{number}"', table)
                self.assertIn(f'data-pages="{pages}"', table)
                self.assertIn(f'data-shown="{len(listed)}"', table)
                rows = table_rows(dom, "r0-sites")
                want = order[(number - 1) * 100:number * 100]
                self.assertEqual([int(cell) for _, cell in rows], [s["id"] for s in want])
                # The site's name is its frame of the program, not the allocator.
                self.assertNotIn("<code>malloc (vg_replace_malloc.c:446)</code>", dom)
                # Its charts: the total and the cards'.
                charts = self.charts(dom).charts
                self.assertEqual(len([c for c in charts if "site-chart" in c["class"]]), 12)
                self.assertIn(f"{len(listed)} of {len(listed)} sites", dom)
        # A cap on the rows leaves out the smallest stable sites, and says so.
        capped = os.path.join(self.tmp, "capped.html")
        p = memgrow_report("html", path, "-o", capped, "--rows", "1000")
        self.assertEqual(p.returncode, 0, p.stderr)
        dom, log = browse(capped + "#r0-page-10", "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        self.assertIn('data-shown="1000"', dom)
        self.assertIn(f"the {len(listed) - 1000} stable sites with the least live bytes are left "
                      "out", dom)
        problems = [s for s in order if s["class"] != "stable"]
        stable = sorted((s for s in listed if s["class"] == "stable"),
                        key=lambda s: -s["live_bytes"])[:1000 - len(problems)]
        self.assertEqual([int(cell) for _, cell in table_rows(dom, "r0-sites")],
                         [s["id"] for s in (problems + stable)[900:1000]])

    def test_bad_input_exits_2_naming_the_file(self):
        bad = {"truncated.json": b'{"memgrow": 1, "sites": [', "empty.json": b"",
               "version2.json": b'{"memgrow": 2}'}
        for name, data in bad.items():
            path = os.path.join(self.tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            out = os.path.join(self.tmp, name + ".html")
            with self.subTest(name=name):
                p = memgrow_report("html", self.files[0], path, "-o", out)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(path, p.stderr)
                self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
                self.assertFalse(os.path.exists(out))
        missing = os.path.join(self.tmp, "missing.json")
        p = memgrow_report("html", missing, "-o", os.path.join(self.tmp, "m.html"))
        self.assertEqual(p.returncode, 2)
        self.assertIn(missing, p.stderr)
        self.assertEqual(memgrow_report("html", self.files[0]).returncode, 2)  # no -o
        self.assertEqual(memgrow_report("html", "-o", "x.html").returncode, 2)  # no FILE


if __name__ == "__main__":
    unittest.main()
