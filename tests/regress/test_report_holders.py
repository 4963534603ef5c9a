"""Holders in memgrow-report (docs/holders.md, docs/memgrow-report.md): a
site's `held_by` in `show`, `html` (opened in headless Chromium), `sarif` and
`diff`, on the reports memgrow writes for tests/regress/holders_native.c (a
global list, a global array, a list on main's stack, a lost list) in both
formats. `diff` compares it with a build of the same program whose lines
moved: each site that moved with its holder is the same finding.

FIXTURE: what the tool does not write yet (the report's `holders`, a
holder's type, length and bound, a path of two steps) is added by hand to a
copy of the real report, in `with_holders()`, so that the views of those
fields are checked too; each such value is marked there."""
import copy
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
from mgtest import (SRC, VALGRIND, TestCase, load_report, memgrow_report, program,  # noqa: E402
                    sites_at, source_line)
from test_report_html import browse, chromium, console_errors  # noqa: E402

SOURCE = "tests/regress/holders_native.c"
MOVED_BY = 3  # lines added above everything in the moved build


def line(marker):
    return source_line(SOURCE, marker)


def memgrow_json(argv, path, fmt):
    """Runs argv under memgrow, writing the report (format `fmt`) to path."""
    p = subprocess.run([VALGRIND, "--tool=memgrow", f"--json-file={path}",
                        f"--json-format={fmt}", *argv], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace", timeout=300)
    assert p.returncode == 0, p.stdout


def held_text(h):
    """A holder as show, the log and the CI formats write it."""
    return (f"{h['path']} ({h['root']}), {h['bytes']:,} bytes in {h['blocks']:,} blocks, "
            f"{100 * h['share']:.3g}%")


def with_holders(report):
    """A copy of `report` (format 1) with what the tool does not write yet."""
    r = copy.deepcopy(report)
    holders = {}
    rank = {"stable": 0, "plateau": 1, "growing": 2, "leaked": 3}
    for s in r["sites"]:
        for h in s.get("held_by", []):
            if h["path"] == "slots":
                h["path"] = "table \u2192 block from grow_table (cache.c:40)"  # FIXTURE: two steps
            o = holders.setdefault(h["path"], {
                "id": len(holders), "path": h["path"], "root": h["root"], "type": None,
                "length": None, "bound": None, "class": "stable", "bytes": 0, "blocks": 0,
                "rate": 0.0, "sites": [], "python_sites": []})
            h["holder"] = o["id"]
            if rank[s["class"]] > rank[o["class"]]:
                o["class"] = s["class"]
            o["bytes"] += h["bytes"]
            o["blocks"] += h["blocks"]
            o["rate"] += s["growth"]["rate"] * h["share"]
            o["sites"].append(s["id"])
    journal = holders["journal"]
    journal["type"], journal["length"] = "list", 1000  # FIXTURE: a Python holder's fields
    for s in r["sites"]:
        for h in s.get("held_by", []):
            if h["path"] == "journal":
                h["type"], h["length"] = "list", 1000
    r["holders"] = sorted(holders.values(), key=lambda o: (-rank[o["class"]], -o["bytes"]))
    return r


class ReportHolders(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-holders-test-")
        cls.raw = {fmt: os.path.join(cls.tmp, f"base{fmt}.json") for fmt in (1, 2)}
        for fmt, path in cls.raw.items():
            memgrow_json([program("holders_native"), "1000"], path, fmt)
        cls.report = load_report(cls.raw[2])
        # The same program with every line MOVED_BY lower.
        moved_src = os.path.join(cls.tmp, "holders_native.c")
        with open(os.path.join(SRC, SOURCE)) as f:
            text = f.read()
        with open(moved_src, "w") as f:
            f.write("/* moved */\n" * MOVED_BY + text)
        moved_bin = os.path.join(cls.tmp, "holders_native")
        subprocess.run(["cc", "-g", "-O0", "-Wall", "-o", moved_bin, moved_src], check=True)
        cls.moved = os.path.join(cls.tmp, "moved.json")
        memgrow_json([moved_bin, "1000"], cls.moved, 2)
        cls.fixture = os.path.join(cls.tmp, "fixture.json")
        with open(cls.fixture, "w") as f:
            json.dump(with_holders(cls.report), f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def site(self, marker, report=None):
        (s,) = sites_at(report or self.report, file="holders_native.c", line=line(marker))
        return s

    def test_show_prints_each_sites_holders(self):
        for fmt, path in self.raw.items():
            p = memgrow_report("show", path)
            self.assertEqual(p.returncode, 0, p.stderr)
            for marker in ("NODE_HERE", "SLOT_HERE", "LOCAL_HERE", "LOST_HERE"):
                with self.subTest(format=fmt, site=marker):
                    s = self.site(marker)
                    self.assertTrue(s["held_by"], s)
                    for h in s["held_by"]:
                        self.assertIn(f"\n  held by: {held_text(h)}\n", p.stdout)
        self.assertIn("held by: journal (global), 48,000 bytes in 1,000 blocks, 100%\n", p.stdout)

    def test_show_leads_with_one_finding_per_holder(self):
        p = memgrow_report("show", self.fixture)
        self.assertEqual(p.returncode, 0, p.stderr)
        s = self.site("NODE_HERE")
        heading = re.search(r"\n(\w+) HOLDER (\d+) of (\d+): journal \(list, 1,000 items, no "
                            r"bound\) keeps 48,000 bytes in 1,000 blocks, 1 site[^\n]*\n"
                            r"    site (\d+) (\w+), 48,000 bytes held: new_node "
                            rf"\(holders_native\.c:{line('NODE_HERE')}\)\n", p.stdout)
        self.assertTrue(heading, p.stdout)
        self.assertEqual(heading.group(1), s["class"].upper())
        self.assertEqual((int(heading.group(4)), heading.group(5)), (s["id"], s["class"]))
        # The holders lead, the sites follow with their own lines.
        self.assertLess(p.stdout.index(" HOLDER 1 of "), p.stdout.index(" 1 of "))
        self.assertIn("held by: journal (list, 1,000 items, no bound), 48,000 bytes", p.stdout)

    def test_sarif_names_the_holder_in_the_message(self):
        out = os.path.join(self.tmp, "r.sarif")
        p = memgrow_report("sarif", self.raw[2], "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            results = json.load(f)["runs"][0]["results"]
        for marker in ("NODE_HERE", "LOCAL_HERE", "LOST_HERE"):
            with self.subTest(site=marker):
                s = self.site(marker)
                self.assertIn(s["class"], ("growing", "leaked"), s)
                (r,) = [r for r in results if r["locations"] and r["locations"][0]
                        ["physicalLocation"].get("region", {}).get("startLine") == line(marker)]
                for h in s["held_by"]:
                    self.assertIn(f"; held by {held_text(h)}", r["message"]["text"])
                self.assertEqual(r["properties"]["held_by"],
                                 [{"path": h["path"], "root": h["root"], "bytes": h["bytes"]}
                                  for h in s["held_by"]])

    def test_diff_matches_sites_that_moved_with_their_holder(self):
        moved = load_report(self.moved)
        node = self.site("NODE_HERE")
        # The moved build really moved: no site keeps its key.
        self.assertFalse(sites_at(moved, file="holders_native.c", line=line("NODE_HERE")))
        self.assertTrue(sites_at(moved, file="holders_native.c",
                                 line=line("NODE_HERE") + MOVED_BY))
        p = memgrow_report("diff", self.raw[2], self.moved)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("result: OK", p.stdout)
        moved_line = re.search(r"\n  \w+ +[\d,]+ -> [\d,]+ bytes \([^)]*\)  [^\n]*new_node "
                               rf"\(holders_native\.c:{line('NODE_HERE') + MOVED_BY}\)[^\n]*\n"
                               r" +moved from [^\n]*new_node "
                               rf"\(holders_native\.c:{line('NODE_HERE')}\)[^\n]*, held by "
                               r"journal\n", p.stdout)
        self.assertTrue(moved_line, p.stdout)
        self.assertIn(node["class"], moved_line.group(0))
        # Each site with holders moved with them: none is new or gone.
        with_holder = [s for s in self.report["sites"] if s.get("held_by")]
        self.assertGreaterEqual(len(with_holder), 4)
        self.assertEqual(p.stdout.count("moved from"), len(with_holder), p.stdout)
        for s in with_holder:
            self.assertNotRegex(p.stdout, r"\n(new|gone) sites: [^\n]*\n(  [^\n]*\n)*?  [^\n]*"
                                + re.escape(f"{s['frames'][1]['function']} (holders_native.c:"),
                                p.stdout)

    def test_diff_without_holders_sees_new_sites(self):
        # The same two reports without held_by: the moved sites are new and
        # gone, and the new growing or leaked ones fail the gate.
        paths = []
        for name, src in (("base", load_report(self.raw[2])), ("new", load_report(self.moved))):
            for s in src["sites"]:
                s.pop("held_by", None)
            paths.append(os.path.join(self.tmp, f"bare-{name}.json"))
            with open(paths[-1], "w") as f:
                json.dump(src, f)
        p = memgrow_report("diff", *paths)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertNotIn("moved from", p.stdout)
        self.assertRegex(p.stdout, rf"FAIL: new \w+ site [^\n]*new_node \(holders_native\.c:"
                                   rf"{line('NODE_HERE') + MOVED_BY}\)")

    def test_html_draws_holders_as_chains(self):
        if not chromium():
            raise AssertionError("no chromium: scripts/install-deps.sh installs it")
        page = os.path.join(self.tmp, "holders.html")
        p = memgrow_report("html", self.raw[2], self.fixture, "-o", page)
        self.assertEqual(p.returncode, 0, p.stderr)
        node, slot = self.site("NODE_HERE"), self.site("SLOT_HERE")
        journal = ('<ol class="chain" data-root="global"><li class="root"><span class="badge '
                   'root">global</span> <code>journal</code></li></ol>')
        dom, log = browse(page, "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        self.assertIn('data-mg-ready="2"', dom)
        # A card: its site's holder drawn as a chain from the root.
        card = re.search(r'<div class="site-card" id="r0-site-%d".*?</div>\n</div>' % node["id"],
                         dom, re.S)
        self.assertTrue(card, dom[:3000])
        self.assertIn(journal, card.group(0))
        self.assertIn("48,000 bytes in 1,000 blocks, 100%", card.group(0))
        # The table's holder column: the largest holder and its share.
        table = dom[dom.index('id="r0-sites"'):]
        table = table[:table.index("</table>")]
        self.assertIn("<th>held by</th>", table)
        self.assertIn('<td class="held"><code>journal</code><span class="muted"> 100%</span>'
                      "</td>", table)
        # The report with holders (FIXTURE) leads with them: one row per holder.
        holders = dom[dom.index('id="r1-holders"'):]
        holders = holders[:holders.index("</table>")]
        self.assertLess(dom.index('id="r1-holders"'), dom.index("Top sites", dom.index('id="r1"')))
        row = re.search(r'<tr data-holder="\d+">(?:(?!</tr>).)*<code>journal</code>.*?</tr>',
                        holders, re.S)
        self.assertTrue(row, holders)
        self.assertIn("(list, 1,000 items, no bound)", row.group(0))
        self.assertIn(f'href="#r1-stack-{node["id"]}"', row.group(0))
        self.assertIn('data-v="48000"', row.group(0))
        # A path of two steps: the root's step, then the block's.
        self.assertIn('<ol class="chain" data-root="global"><li class="root"><span class="badge '
                      'root">global</span> <code>table</code></li><li><code>block from '
                      'grow_table (cache.c:40)</code></li></ol>', holders)
        # An opened row of the table: the stack and the holders, drawn by the script.
        dom, log = browse(page + f"#r1-stack-{slot['id']}", "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        detail = re.search(r'<tr class="detail" id="r1-stack-%d">(.*?)</tr>' % slot["id"], dom,
                           re.S)
        self.assertTrue(detail, dom[-3000:])
        self.assertIn('<div class="held-by"><span class="muted">held by</span><ul><li><ol '
                      'class="chain" data-root="global"><li class="root"><span class="badge '
                      'root">global</span> <code>table</code></li><li><code>block from '
                      'grow_table (cache.c:40)</code></li></ol>', detail.group(1))
        self.assertIn("<code>new_slot</code>", detail.group(1))


if __name__ == "__main__":
    unittest.main()
