# SPDX-License-Identifier: GPL-2.0-or-later
"""A report sized to what matters (docs/output-format.md, "What the report
lists"): by default the report lists the classified, leaking, device-side
and large sites in full and folds the rest into groups whose counts keep
the totals whole; --json-sites=all lists every site. Checked: the size of a
Python one-liner's report, that folded and listed sites add up to the heap,
that the tables hold only what listed rows and groups name, that the
selection follows its rule, that merge and expand keep the groups, and that
`memgrow-report diff` gives the same verdicts on default reports as on
complete ones (the CI docs' project, the seed-pattern service, the C
example service)."""
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
from mgtest import BUILD, SRC, VALGRIND, TestCase, memgrow_report  # noqa: E402
import test_ci_docs  # noqa: E402  (the CI docs' project: its tests and application)

ONE_LINER = ["-c", "x = [str(i) for i in range(100)]"]
SEED = os.path.join(SRC, "tests", "regress", "py_seed_service.py")
EXAMPLE = os.path.join(BUILD, "examples", "leaky_service")
# The seed service without its growing dict: the baseline a new leak is
# judged against.
FIXED_SEED = ("bigrams[key] = bigrams.get(key, 0) + 1  # BIGRAM_COUNT",
              "bigrams.get(key, 0)  # BIGRAM_COUNT")
ENV = {"PYTHONHASHSEED": "0"}


def run(tmp, name, argv, sites, options=(), env=None):
    """Runs argv under memgrow with --json-sites=`sites`; the raw report's
    path (format 2, as written)."""
    path = os.path.join(tmp, f"{name}.{sites}.json")
    p = subprocess.run([VALGRIND, "--tool=memgrow", "-q", f"--json-file={path}",
                        f"--json-sites={sites}", *options, *argv], cwd=tmp,
                       env=dict(os.environ, **ENV, **(env or {})), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=900)
    assert os.path.exists(path), p.stdout[-3000:]
    return path


def verdict(base, new):
    """`memgrow-report diff`'s exit code, result and the sites it fails on.
    Byte counts are left out (two runs of a program may differ by a few), and
    so is what BASE had at the site: a stable site that a default BASE folds
    is "new" where a complete BASE says "(was stable)"."""
    p = memgrow_report("diff", base, new)
    lines = []
    for line in p.stdout.splitlines():
        if line.startswith("result: "):
            lines.append(line)
        elif line.startswith("FAIL: "):
            m = re.match(r"FAIL: (?:new )?(\w+) site (.*?)(?: \(was \w+\))?: [-+\d,]+ bytes", line)
            lines.append(m.groups() if m else re.sub(r"[-+]?[\d,]+ bytes", "N bytes", line))
    return p.returncode, sorted(map(str, lines))


class Selection(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-test-size-")
        cls.default = run(cls.tmp, "one", [sys.executable, *ONE_LINER], "relevant")
        cls.complete = run(cls.tmp, "one", [sys.executable, *ONE_LINER], "all")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_size(self):
        small, whole = os.path.getsize(self.default), os.path.getsize(self.complete)
        self.assertLessEqual(small, 200_000, "the one-liner's default report")
        self.assertLess(small * 5, whole, "the default lists far less than every site")

    def test_totals_add_up(self):
        for path in (self.default, self.complete):
            r = mgtest.load_report(path)
            folded = r["folded"]
            # Listed and folded sites hold the heap when teardown began.
            self.assertEqual(sum(s["live_bytes"] for s in r["sites"]) +
                             sum(g["live_bytes"] for g in folded),
                             r["buckets"][-1]["live_bytes"], path)
        r = mgtest.load_report(self.default)
        self.assertEqual(sum(g["sites"] for g in r["folded"]), r["omitted_sites"]["sites"])
        self.assertEqual(sum(g["at_exit_bytes"] for g in r["folded"]),
                         r["omitted_sites"]["at_exit_bytes"])
        self.assertEqual(sum(g["peak_bytes"] for g in r["folded"]),
                         r["omitted_sites"]["peak_bytes"])
        whole = mgtest.load_report(self.complete)
        self.assertNotIn("omitted_sites", whole)
        self.assertEqual(whole["folded"], [])
        self.assertEqual(len(whole["sites"]), len(r["sites"]) + r["omitted_sites"]["sites"])

    def test_groups(self):
        r = mgtest.load_report(self.default)
        groups, floor = r["folded"], r["omitted_sites"]["min_bytes"]
        self.assertTrue(groups)
        listed = {ps["id"]: ps for ps in r["python_sites"]}
        for i, g in enumerate(groups):
            self.assertGreater(g["sites"], 0)
            if g["python_site"] is not None:  # a listed Python site's folded sub-sites
                ps = listed[g["python_site"]]
                self.assertEqual(g["sites"], ps["omitted_sites"])
                self.assertEqual(g["frames"], ps["frames"])
            else:  # the frame that names them
                self.assertLessEqual(len(g["frames"]), 1)
            # Groups that never held nor allocated the threshold are one,
            # last, without frames.
            if g["peak_bytes"] < floor and g["allocated_bytes"] < floor:
                self.assertEqual((i, g["frames"], g["python_site"]), (len(groups) - 1, [], None))

    def test_rule(self):
        r = mgtest.load_report(self.default)
        floor = r["omitted_sites"]["min_bytes"]
        peak = max(b["live_bytes"] for b in r["buckets"])
        self.assertEqual(floor, max(65536, peak // 1000))
        evidence = {i for ps in r["python_sites"] if ps["class"] in ("growing", "plateau")
                    for i in ps["sites"]}
        churn = max(floor, sum(b["allocated_bytes"] for b in r["buckets"]) // 100)
        for s in r["sites"]:
            lost = s.get("lost", {})
            self.assertTrue(s["class"] != "stable" or s["peak_bytes"] >= floor or
                            s["allocated_bytes"] >= churn or s["space"] != "host" or
                            any(lost.values()) or s["id"] in evidence, s)
        for ps in r["python_sites"]:
            self.assertTrue(ps["class"] != "stable" or ps["peak_bytes"] >= floor or
                            ps["sites"] or ps["suppressed"], ps)
        # And what the rule asks for is there: the complete run's classified
        # and large sites (with a margin: two runs may differ by a few bytes).
        listed = {mgtest.frames_text(s) for s in r["sites"]}
        for s in mgtest.load_report(self.complete)["sites"]:
            if s["class"] != "stable" or s["peak_bytes"] >= 2 * floor:
                self.assertIn(mgtest.frames_text(s), listed)
        # --json-stable-min-bytes sets the floor.
        path = run(self.tmp, "floor", [sys.executable, *ONE_LINER], "relevant",
                   ["--json-stable-min-bytes=1048576"])
        r = mgtest.load_report(path)
        self.assertEqual(r["omitted_sites"]["min_bytes"], max(1048576, peak // 1000))
        self.assertLessEqual(len(r["sites"]), len(mgtest.load_report(self.default)["sites"]))

    def test_churn_is_listed_and_folded_lines_keep_their_name(self):
        # A line that allocated most of the run's bytes is listed though it
        # holds nothing at the end; one that allocated and freed 400 KB at
        # once is folded in a group that keeps its line.
        path = run(self.tmp, "churn", [os.path.join(BUILD, "tests", "regress", "churn_share")],
                   "relevant")
        r = mgtest.load_report(path)
        src = "tests/regress/churn_share.c"
        most = mgtest.sites_at(r, file="churn_share.c",
                               line=mgtest.source_line(src, "/* CHURN_MOST"))
        self.assertEqual([(s["allocated_bytes"], s["live_bytes"]) for s in most],
                         [(25000 * 4096, 0)], mgtest.describe(r))
        some = mgtest.source_line(src, "/* CHURN_SOME")
        self.assertFalse(mgtest.sites_at(r, file="churn_share.c", line=some))
        named = [g for g in r["folded"]
                 if [(f["function"], f["line"]) for f in g["frames"]] == [("churn_some", some)]]
        self.assertEqual([(g["sites"], g["allocated_bytes"]) for g in named], [(1, 100 * 4096)],
                         r["folded"])

    def test_tables_hold_only_what_is_named(self):
        with open(self.default) as f:
            doc = json.load(f)
        stacks = doc["stacks"]
        n = len(stacks) // 2
        reached = set()
        roots = [row[1] for row in doc["sites"] + doc["python_sites"]] + \
                [row[0] for row in doc["folded"]]
        for node in roots:
            while node is not None and node not in reached:
                reached.add(node)
                back = stacks[2 * node + 1]
                node = node - back if back else None
        self.assertEqual(reached, set(range(n)), "every stack node is named by a row")
        used = {stacks[2 * i] for i in range(n)}
        self.assertEqual(used, set(range(len(doc["frames"]))), "every frame is in a node")
        self.assertEqual(doc["folded_count"], len(doc["folded"]))

    def test_load_expand_merge(self):
        expanded = os.path.join(self.tmp, "expanded.json")
        p = memgrow_report("expand", "-o", expanded, self.default)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(expanded) as f:
            ours = json.load(f)
        self.assertEqual(ours["folded"], mgtest.load_report(self.default)["folded"])
        p = memgrow_report("show", self.default)
        self.assertEqual(p.returncode, 0, p.stderr)
        groups = mgtest.load_report(self.default)["folded"]
        self.assertIn(f"folded: {sum(g['sites'] for g in groups):,} small stable sites", p.stdout)
        merged = os.path.join(self.tmp, "merged.json")
        p = memgrow_report("merge", "-o", merged, self.default, self.complete)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(merged) as f:
            m = json.load(f)
        self.assertEqual(len(m["folded"]), len(groups))
        self.assertEqual({g["process"] for g in m["folded"]}, {0})
        py_ids = {ps["id"] for ps in m["python_sites"]}
        for g in m["folded"]:
            self.assertTrue(g["python_site"] is None or g["python_site"] in py_ids)
        p = memgrow_report("show", merged)
        self.assertEqual(p.returncode, 0, p.stderr)


class DiffVerdicts(TestCase):
    """The default report gates as the complete one does."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="memgrow-test-size-diff-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check(self, runs, pairs):
        """runs: name -> {sites: report}; each (base, new) pair gives the same
        verdict with default and complete reports, and across them."""
        for base, new, fails in pairs:
            whole = verdict(runs[base]["all"], runs[new]["all"])
            self.assertEqual(whole[0], 1 if fails else 0, (base, new, whole))
            for b, n in (("relevant", "relevant"), ("all", "relevant"), ("relevant", "all")):
                self.assertEqual(verdict(runs[base][b], runs[new][n]), whole, (base, new, b, n))

    def test_seed_service(self):
        with open(SEED) as f:
            text = f.read()
        self.assertIn(FIXED_SEED[0], text)
        fixed = os.path.join(self.tmp, "fixed_seed_service.py")
        with open(fixed, "w") as f:
            f.write(text.replace(*FIXED_SEED))
        runs = {name: {sites: run(self.tmp, name, [sys.executable, script], sites)
                       for sites in ("relevant", "all")}
                for name, script in (("seed", SEED), ("fixed", fixed))}
        self.check(runs, [("fixed", "seed", True), ("seed", "fixed", False),
                          ("seed", "seed", False)])

    def test_example_service(self):
        # The C example keeps growing with more requests than its baseline.
        runs = {name: {sites: run(self.tmp, name, [EXAMPLE, n], sites)
                       for sites in ("relevant", "all")}
                for name, n in (("few", "1"), ("many", "3000"))}
        self.check(runs, [("few", "many", True), ("many", "many", False),
                          ("many", "few", False)])

    def test_ci_docs_project(self):
        runs = {}
        for name, leaky in (("main", False), ("leaky", True)):
            root = os.path.join(self.tmp, name)
            os.makedirs(os.path.join(root, "tests"))
            for path, text in (("tests/test_app.py", test_ci_docs.TESTS),
                               ("tests/conftest.py", "import os, sys\n\nsys.path.insert(0, "
                                "os.path.dirname(os.path.dirname(__file__)))\n"),
                               ("app.py", test_ci_docs.LEAKY_APP if leaky else
                                test_ci_docs.APP)):
                with open(os.path.join(root, path), "w") as f:
                    f.write(text)
            argv = ["/usr/bin/python3", "-m", "pytest", "-p", "memgrow.pytest",
                    "--memgrow-repeat=3", "-q", "-p", "no:cacheprovider", "tests/"]
            runs[name] = {sites: run(root, name, argv, sites,
                                     env={"PYTHONPATH": test_ci_docs.PACKAGE})
                          for sites in ("relevant", "all")}
        self.check(runs, [("main", "leaky", True), ("leaky", "main", False),
                          ("main", "main", False)])


if __name__ == "__main__":
    unittest.main()
