# SPDX-License-Identifier: GPL-2.0-or-later
"""Python sites (docs/python.md): the seed pattern of a service (a bounded
deque of request records holding token lists, an ever-growing token-bigram
dict), classified by Python line through the report's python_sites on every
interpreter; and the Python-site view leading the log, `show`, `html`
(headless Chromium), `sarif` and `junit`."""
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import (SRC, describe, memgrow_report, python_interpreters, run,  # noqa: E402
                    source_line)
from test_report_html import browse, chromium, console_errors  # noqa: E402

NAME = "py_seed_service.py"
SCRIPT = os.path.join(SRC, "tests", "regress", NAME)
MALLOC = {"PYTHONMALLOC": "malloc"}


def line_of(marker):
    return source_line(os.path.join("tests", "regress", NAME), marker)


def headline_frame(ps):
    """A Python site's innermost frame in the script, else None."""
    for f in ps["frames"]:
        if os.path.basename(f["file"] or "") == NAME:
            return f
    return None


def classes_by_line(report):
    """{line: {classes}} of the Python sites whose innermost frame in the
    user's code is in the script."""
    out = {}
    for ps in report["python_sites"]:
        f = headline_frame(ps)
        if f:
            out.setdefault(f["line"], set()).add(ps["class"])
    return out


def python_site_at(report, line, cls):
    return [ps for ps in report["python_sites"]
            if (f := headline_frame(ps)) and f["line"] == line and ps["class"] == cls]


class SeedPattern(unittest.TestCase):
    def test_dict_lines_grow_deque_lines_hold(self):
        grow = {line_of("BIGRAM_KEY"), line_of("BIGRAM_COUNT")}
        hold = {line_of("TOKENS"), line_of("RECORD")}
        for interp, py in python_interpreters().items():
            with self.subTest(interpreter=interp):
                r = run([*py.argv, SCRIPT], env=MALLOC)
                self.assertEqual(r.rc, 0, r.log)
                rep = r.report
                by_line = classes_by_line(rep)
                text = f"{by_line}\n{describe(rep)}"
                for line in grow:
                    self.assertIn("growing", by_line.get(line, ()), text)
                    self.assertNotIn("plateau", by_line[line], text)
                for line in hold:
                    self.assertIn("plateau", by_line.get(line, ()), text)
                    self.assertNotIn("growing", by_line[line], text)
                # Nothing else in the script grows or holds: the lists the
                # `tokens[1:]` slice makes are temporaries, and those that
                # records keep were revived from CPython's free list by the
                # TOKENS line, which is charged for them (docs/python.md).
                others = {line for line, c in by_line.items()
                          if c & {"growing", "plateau"}} - grow - hold
                self.assertFalse(others, text)
                # The dict's table grows by resizing: a staircase whose next
                # resize is not yet due.
                table = python_site_at(rep, line_of("BIGRAM_COUNT"), "growing")[0]
                self.assertEqual(table["growth"]["rule"], "staircase", json.dumps(table)[:2000])
                self.assertGreater(table["growth"]["next_step_at"], rep["teardown_at"])
                # Each Python site sums its native sub-sites.
                by_id = {s["id"]: s for s in rep["sites"]}
                for ps in rep["python_sites"]:
                    if ps["omitted_sites"] == 0 and ps["class"] != "stable":
                        self.assertEqual(ps["live_bytes"],
                                         sum(by_id[i]["live_bytes"] for i in ps["sites"]))
                        self.assertTrue(all(f["python"] for f in ps["frames"]))


class Views(unittest.TestCase):
    """One run on the interpreter running the tests, read by every view."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-pysites-")
        r = run([sys.executable, SCRIPT], env=MALLOC)
        assert r.rc == 0, r.log
        cls.log, cls.report = r.log, r.report
        cls.json = os.path.join(cls.tmp, "seed.json")
        with open(cls.json, "w") as f:
            json.dump(r.report, f)
        cls.grow = {line_of("BIGRAM_KEY"), line_of("BIGRAM_COUNT")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def headline_re(self, cls):
        return re.compile(cls.upper() + r" 1 of \d+: handle \(" + re.escape(NAME) +
                          r":(\d+)\), [\d.]+ (bytes|kB|MB) in [\d,]+ blocks, [+-][\d.,e+-]+ B per "
                          r"byte allocated")

    def test_log_leads_with_python_sites(self):
        summary = self.log[self.log.index("HEAP GROWTH SUMMARY"):]
        self.assertRegex(summary, r"Python sites: [\d,]+ \(leaked 0, growing [1-9]")
        # The holders of growing memory lead (docs/holders.md), the sites next.
        holder = re.search(r"(GROWING|PLATEAU) HOLDER 1 of .*", summary).group(0)
        self.assertRegex(holder, r"GROWING HOLDER 1 of \d+: __main__\.bigrams \(dict, [\d,]+ items, "
                                 r"no bound\) keeps ")
        first = re.search(r"(GROWING|PLATEAU) 1 of (?!.* keeps ).*", summary)
        m = self.headline_re("growing").search(first.group(0))
        self.assertTrue(m, summary[:3000])
        self.assertIn(int(m.group(1)), self.grow)
        # Then the Python stack and the native sub-sites.
        after = summary[first.end():first.end() + 2000]
        self.assertRegex(after, r"at py: handle \(.*" + re.escape(NAME))
        self.assertRegex(after, r"native sub-sites: \d+")

    def test_show_leads_with_python_sites(self):
        p = memgrow_report("show", self.json)
        self.assertEqual(p.returncode, 0, p.stderr)
        first = re.search(r"\n(LEAKED|GROWING|PLATEAU|STABLE) 1 of .*", p.stdout).group(0)
        m = self.headline_re("growing").search(first)
        self.assertTrue(m, p.stdout[:3000])
        self.assertIn(int(m.group(1)), self.grow)
        self.assertIn("native sub-sites:", p.stdout)

    def test_sarif_and_junit_name_python_lines(self):
        sarif = os.path.join(self.tmp, "out.sarif")
        p = memgrow_report("sarif", self.json, "--output", sarif)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(sarif) as f:
            results = json.load(f)["runs"][0]["results"]
        lines = set()
        for res in results:
            self.assertTrue(res["properties"]["python_site"], res)
            self.assertRegex(res["message"]["text"], r"^handle \(" + re.escape(NAME))
            loc = res["locations"][0]["physicalLocation"]
            self.assertTrue(loc["artifactLocation"]["uri"].endswith(NAME), loc)
            lines.add(loc["region"]["startLine"])
        self.assertEqual(lines, self.grow)
        xml = os.path.join(self.tmp, "out.xml")
        p = memgrow_report("junit", self.json, "--output", xml)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(xml) as f:
            text = f.read()
        cases = re.findall(r'<testcase [^>]*name="growing python ([^"]*)"[^>]*line="(\d+)"', text)
        self.assertEqual({int(line) for _, line in cases}, self.grow, text[:3000])
        self.assertEqual(text.count("<failure"), len(self.grow))

    def test_merge_keeps_python_sites(self):
        merged = os.path.join(self.tmp, "merged.json")
        p = memgrow_report("merge", "-o", merged, self.json)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(merged) as f:
            m = json.load(f)
        self.assertEqual(len(m["python_sites"]), len(self.report["python_sites"]))
        by_id = {s["id"]: s for s in m["sites"]}
        for before, after in zip(self.report["python_sites"], m["python_sites"]):
            self.assertEqual(after["process"], 0)
            self.assertEqual(len(after["sites"]), len(before["sites"]))
            self.assertEqual([by_id[i]["process_site"] for i in after["sites"]], before["sites"])
        p = memgrow_report("show", merged)
        self.assertRegex(p.stdout, r"\nGROWING 1 of \d+: handle \(" + re.escape(NAME))

    def test_diff_keys_python_processes_by_python_sites(self):
        # Another CPython with other native paths under the same Python lines.
        other = json.loads(json.dumps(self.report))
        for site in other["sites"]:
            if any(f["python"] for f in site["frames"]):
                for f in site["frames"]:
                    if not f["python"]:
                        f["function"] = "renamed_" + (f["function"] or "")
        path = os.path.join(self.tmp, "other.json")
        with open(path, "w") as f:
            json.dump(other, f)
        p = memgrow_report("diff", self.json, path)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"new sites: 0\b")
        self.assertRegex(p.stdout, r"gone sites: 0\b")

    def test_html_leads_with_python_sites(self):
        if not chromium():
            raise AssertionError("no chromium: scripts/install-deps.sh installs it")
        page = os.path.join(self.tmp, "seed.html")
        p = memgrow_report("html", self.json, "-o", page)
        self.assertEqual(p.returncode, 0, p.stderr)
        dom, log = browse(page, "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        self.assertTrue('<body data-mg-ready="1">' in dom, dom[:3000])  # one report, script ran
        # The first site card and the first table row are Python sites.
        card = re.search(r'<h4><span class="cls (\w+)">\w+</span> (Python site|site) \d+: '
                         r'<code>([^<]*)</code>', dom)
        self.assertEqual(card.group(2), "Python site", dom[:3000])
        self.assertRegex(card.group(3), r"^handle \(" + re.escape(NAME))
        row = re.search(r'<tr data-class="\w+"><td data-v="(-?\d+)">(\w+)</td>', dom)
        self.assertTrue(row.group(2).startswith("py"), row.group(0))


if __name__ == "__main__":
    unittest.main()
