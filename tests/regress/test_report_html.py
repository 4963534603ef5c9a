"""memgrow-report html: the page for two real reports (gains_leak_new: a
growing list, a plateau ring and a leak; grow_list: a growing list), opened
in headless Chromium. The page must run its script without a console error
(its script marks <body data-mg-ready> when it ran), its SVG charts must have
one point per bucket (the total by space and one chart per top site), and a
screenshot is kept as a test artifact ($MG_BUILD_DIR/tests/artifacts/
report.png). Report text that looks like markup stays text. Bad input exits 2
naming the file.
"""
import html.parser
import json
import os
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
        self.assertEqual(text.count("</script>"), 2)  # the page's own two
        dom, log = browse(page, "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        body = self.charts(dom).body
        self.assertEqual(body.get("data-mg-ready"), "1", body)
        self.assertNotIn("data-pwned", body)
        self.assertIn("&lt;img src=x onerror=alert(1)&gt;", dom)

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
