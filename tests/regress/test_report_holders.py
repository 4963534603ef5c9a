# SPDX-License-Identifier: GPL-2.0-or-later
"""Holders in memgrow-report (docs/holders.md, docs/memgrow-report.md): a
site's `held_by` and the report's `holders` in `show`, `html` (opened in
headless Chromium), `sarif` and `diff`, on the reports memgrow writes for
tests/regress/holders_native.c (a global list, a global array, a list on
main's stack, a lost list) in both formats, and for py_holders_service.py
(a bounded deque and lru_cache a third full, unbounded dicts and lists) on
the interpreter running the tests. `diff` compares holders_native with a
build of the same program whose lines moved: each site that moved with its
holder is the same finding."""
import html
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
PY_SOURCE = "tests/regress/py_holders_service.py"
MOVED_BY = 3  # lines added above everything in the moved build


def line(marker):
    return source_line(SOURCE, marker)


def memgrow_json(argv, path, fmt, options=()):
    """Runs argv under memgrow, writing the report (format `fmt`) to path;
    returns the log."""
    p = subprocess.run([VALGRIND, "--tool=memgrow", f"--json-file={path}",
                        f"--json-format={fmt}", *options, *argv], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace", timeout=300)
    assert p.returncode == 0, p.stdout
    return p.stdout


def held_text(h):
    """A holder as show, the log and the CI formats write it."""
    what, unit = (h["type"], "items") if h["type"] else (h["root"], "slots")
    if h["length"] is not None and h["bound"] is not None:
        what += f", {h['length']:,} of {h['bound']:,} {unit}"
    elif h["length"] is not None:
        what += f", {h['length']:,} {unit}, no bound"
    return (f"{h['path']} ({what}), {h['bytes']:,} bytes in {h['blocks']:,} blocks, "
            f"{100 * h['share']:.3g}%")


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
        cls.py = os.path.join(cls.tmp, "py.json")
        # Every site listed: the native ones held through a path of two steps.
        memgrow_json([sys.executable, os.path.join(SRC, PY_SOURCE), "2000"], cls.py, 2,
                     ("--json-sites=all",))
        cls.py_report = load_report(cls.py)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def site(self, marker, report=None):
        (s,) = sites_at(report or self.report, file="holders_native.c", line=line(marker))
        return s

    def py_site(self, marker):
        """The largest Python site whose innermost frame is the line of
        `marker` (a comprehension's own frame and its caller's may share it)."""
        at = source_line(PY_SOURCE, marker)
        found = [s for s in self.py_report["python_sites"] if s["class"] != "stable"
                 and s["frames"][0]["line"] == at
                 and s["frames"][0]["file"].endswith("py_holders_service.py")]
        self.assertTrue(found, marker)
        return max(found, key=lambda s: s["live_bytes"])

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
        p = memgrow_report("show", self.raw[2])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = self.site("NODE_HERE")
        self.assertEqual(s["class"], "growing")
        # The log's words and numbers: its live bytes, in the sites it keeps.
        heading = re.search(r"\nGROWING HOLDER \d+ of \d+: journal \(global\) keeps 48\.0 kB in "
                            r"1 site(, [^\n]*)?\n    site (\d+) growing, 48,000 bytes held: "
                            rf"new_node \(holders_native\.c:{line('NODE_HERE')}\)\n", p.stdout)
        self.assertTrue(heading, p.stdout)
        self.assertEqual(int(heading.group(2)), s["id"])
        self.assertRegex(p.stdout, r"\nLEAKED HOLDER 1 of 1: lost block from lose_list "
                                   rf"\(holders_native\.c:{line('LOST_HERE')}\) \(heap\) "
                                   r"keeps 2\.4 kB in 1 site(, [^\n]*)?\n")
        # The holders lead, the sites follow with their own lines.
        self.assertLess(p.stdout.index(" HOLDER 1 of "), p.stdout.index("\nGROWING 1 of "))

    def test_show_names_python_holders_and_their_bounds(self):
        p = memgrow_report("show", self.py, "--top", "10")
        self.assertEqual(p.returncode, 0, p.stderr)
        recent = self.py_site("RECORD_IDS")
        (h,) = [h for h in recent["held_by"] if h["path"] == "__main__.RECENT"]
        self.assertEqual((h["type"], h["length"], h["bound"]), ("collections.deque", 2000, 6000))
        self.assertEqual(recent["class"], "plateau")
        # The holder, and the site beneath it.
        self.assertRegex(p.stdout, r"\nPLATEAU HOLDER \d+ of \d+: __main__\.RECENT "
                                   r"\(collections\.deque, 2,000 of 6,000 items\) keeps [\d.]+ (kB|MB)"
                                   r"[^\n]*\n(    [^\n]*\n)*?    Python site %d plateau, %s bytes held: "
                                   r"handle(\.<locals>\.<listcomp>)? \(py_holders_service\.py:%d\)\n"
                                   % (recent["id"], f"{h['bytes']:,}", recent["frames"][0]["line"]))
        # The site's evidence: its bound, how full, and its bytes when full.
        g = recent["growth"]
        self.assertEqual(g["rule"], "bounded holder")
        self.assertIn(f"  bounded: {g['bound']:,} at most, {int(100 * g['fill'] + 0.5)}% full, "
                      f"{g['bound_bytes']:,} bytes when full\n", p.stdout)
        stats = self.py_site("STAT_KEY")
        self.assertEqual(stats["class"], "growing")
        self.assertRegex(p.stdout, r"\nGROWING HOLDER \d+ of \d+: __main__\.TOKEN_STATS \(dict, "
                                   r"2,000 items, no bound\) keeps ")
        self.assertIn(f"held by: {held_text(stats['held_by'][0])}\n", p.stdout)
        self.assertIn("__main__.TOKEN_STATS (dict, 2,000 items, no bound)", p.stdout)
        # Stable holders (the interpreter's own) only on request.
        self.assertNotIn("STABLE HOLDER", p.stdout)
        p = memgrow_report("show", self.py, "--class", "stable")
        self.assertIn("STABLE HOLDER 1 of ", p.stdout)

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
        p = memgrow_report("html", self.raw[2], self.py, "-o", page)
        self.assertEqual(p.returncode, 0, p.stderr)
        node = self.site("NODE_HERE")
        journal = ('<ol class="chain" data-root="global"><li class="root"><span class="badge '
                   'root">global</span> <code>journal</code></li></ol>')
        dom, log = browse(page, "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        self.assertIn('data-mg-ready="2"', dom)
        # A card: its site's holder drawn as a chain from the root.
        card = re.search(r'<div class="site-card" id="r0-site-%d".*?</div>\n</div>' % node["id"],
                         dom, re.S)
        self.assertTrue(card, dom[:3000])
        self.assertIn(journal + ' <span class="muted">48,000 bytes in 1,000 blocks, 100%</span>',
                      card.group(0))
        # The table's holder column: the largest holder and its share.
        table = dom[dom.index('id="r0-sites"'):]
        table = table[:table.index("</table>")]
        self.assertIn("<th>held by</th>", table)
        self.assertIn('<td class="held"><code>journal</code><span class="muted"> 100%</span>'
                      "</td>", table)
        # Each report leads with its holders, one row per holder, its sites linked.
        for rid in ("r0", "r1"):
            self.assertLess(dom.index(f'id="{rid}-holders"'),
                            dom.index("Top sites", dom.index(f'id="{rid}"')))
        row = self.holder_row(dom, "r0", "<code>journal</code>")
        self.assertIn(f'href="#r0-stack-{node["id"]}"', row)
        self.assertIn('data-v="48000"', row)
        recent = self.py_site("RECORD_IDS")
        row = self.holder_row(dom, "r1", "<code>__main__.RECENT</code>")
        self.assertIn("(collections.deque, 2,000 of 6,000 items)", row)
        self.assertIn('<span class="cls plateau">plateau</span>', row)
        self.assertIn(f'href="#r1-stack-py{recent["id"]}"', row)
        # An opened row of the table: a path of two steps drawn by the script,
        # the root's step, then the next.
        two = [s for s in self.py_report["sites"] if not any(f["python"] for f in s["frames"])
               and s.get("held_by") and " \u2192 " in s["held_by"][0]["path"]]
        self.assertTrue(two)
        h = two[0]["held_by"][0]
        first, second = h["path"].split(" \u2192 ")[:2]
        dom, log = browse(page + f"#r1-stack-{two[0]['id']}", "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        detail = re.search(r'<tr class="detail" id="r1-stack-%d">(.*?)</tr>' % two[0]["id"], dom,
                           re.S)
        self.assertTrue(detail, dom[-3000:])
        self.assertIn(f'<div class="held-by"><span class="muted">held by</span><ul><li><ol '
                      f'class="chain" data-root="{h["root"]}"><li class="root"><span class="badge '
                      f'root">{h["root"]}</span> <code>{html.escape(first, False)}</code></li><li>'
                      f'<code>{html.escape(second, False)}</code></li>', detail.group(1))

    def holder_row(self, dom, rid, what):
        """The row of section rid's holders table that names `what`."""
        table = dom[dom.index(f'id="{rid}-holders"'):]
        table = table[:table.index("</table>")]
        row = re.search(r'<tr data-holder="\d+">(?:(?!</tr>).)*%s.*?</tr>' % re.escape(what),
                        table, re.S)
        self.assertTrue(row, table)
        return row.group(0)



class OneStory(TestCase):
    """The log and `show` tell one story of a service's holders
    (tests/regress/py_holders_late_globals.py): the same findings in the same
    words and numbers. Its deque is the one plateau holder; the records it
    reaches through each other are part of it (no growing holder of their
    own), and its namespace, which gained 40 small values halfway, is none."""

    def test_the_log_and_show_name_the_same_holders(self):
        tmp = tempfile.mkdtemp(prefix="memgrow-holders-story-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        path = os.path.join(tmp, "late.json")
        log = memgrow_json([sys.executable,
                            os.path.join(SRC, "tests", "regress", "py_holders_late_globals.py")],
                           path, 2)
        found = re.findall(r"^==\d+== ((\w+) HOLDER \d+ of \d+: .* keeps .* sites?), ", log, re.M)
        self.assertEqual(len(found), 1, log[-4000:])
        self.assertRegex(found[0][0], r"^PLATEAU HOLDER 1 of 1: __main__\.recent \(collections\."
                                      r"deque, 4,000 of 6,000 items\) keeps [\d.]+ MB in \d sites$")
        p = memgrow_report("show", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        shown = re.findall(r"^((\w+) HOLDER \d+ of \d+: .* keeps .* sites?), ", p.stdout, re.M)
        self.assertEqual(shown, found, p.stdout)


if __name__ == "__main__":
    unittest.main()
