# SPDX-License-Identifier: GPL-2.0-or-later
"""memgrow-report merge, sarif and junit on reports memgrow writes in this
test: one run of tests/regress/fork_workers (a parent and two forked
workers, three reports) merged into one that keeps every process and still
loads in `show` and `diff`; SARIF validated against the official SARIF 2.1.0
JSON schema (fetched by scripts/install-deps.sh into a cache outside the
tree: MEMGROW_SARIF_SCHEMA or ~/.cache/memgrow/sarif-schema-2.1.0.json);
JUnit XML parsed with xml.etree; bad input exits 2 naming the file.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import VALGRIND, program, source_line  # noqa: E402

WORK_LINE = source_line("tests/regress/fork_workers.c", "WORK_HERE")
SCHEMA = os.environ.get("MEMGROW_SARIF_SCHEMA") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
    "memgrow", "sarif-schema-2.1.0.json")


report = mgtest.memgrow_report


def problems(rep):
    return [s for s in rep["sites"]
            if s["class"] in ("leaked", "growing") and not s["suppressed"]]


class ReportFormats(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-formats-test-")
        p = subprocess.run([VALGRIND, "--tool=memgrow", *mgtest.COMPLETE, "--leak-check=full",
                            f"--json-file={os.path.join(cls.tmp, 'fork.json')}",
                            program("fork_workers")], cwd=cls.tmp, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        assert p.returncode == 0, p.stdout
        cls.files = sorted(glob.glob(os.path.join(cls.tmp, "fork*.json")))
        assert len(cls.files) == 3, (cls.files, p.stdout)
        cls.reports = []
        for name in cls.files:
            cls.reports.append(mgtest.load_report(name))
        cls.merged = os.path.join(cls.tmp, "merged.json")
        m = report("merge", *cls.files, "-o", cls.merged)
        assert m.returncode == 0, m.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, p, rc):
        self.assertEqual(p.returncode, rc, f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")

    def bad_file(self):
        bad = os.path.join(self.tmp, "broken.json")
        with open(bad, "w") as f:
            f.write('{"memgrow": 1, "command": ["x"], "pid": ')
        return bad

    # --- merge -------------------------------------------------------------

    def test_merge_keeps_every_process(self):
        with open(self.merged) as f:
            m = json.load(f)
        self.assertEqual(m["memgrow"], 1)
        pids = {r["pid"] for r in self.reports}
        self.assertEqual({p["pid"] for p in m["processes"]}, pids)
        self.assertEqual(len(m["processes"]), 3)
        # The parent first, and at the top level.
        parent = next(r for r in self.reports if r["ppid"] not in pids)
        self.assertEqual(m["processes"][0]["pid"], parent["pid"])
        self.assertEqual(m["pid"], parent["pid"])
        self.assertEqual(m["buckets"], parent["buckets"])
        # Every site tagged with its process, none lost.
        self.assertEqual(len(m["sites"]), sum(len(r["sites"]) for r in self.reports))
        for s in m["sites"]:
            self.assertEqual(m["processes"][s["process"]]["pid"], s["pid"])
        by_pid = {r["pid"]: r for r in self.reports}
        for i, p in enumerate(m["processes"]):
            self.assertEqual(sum(1 for s in m["sites"] if s["process"] == i),
                             len(by_pid[p["pid"]]["sites"]))
            self.assertEqual(p["buckets"], by_pid[p["pid"]]["buckets"])
        # The workers' sites at WORK_HERE stay apart from the parent's.
        work_pids = {s["pid"] for s in m["sites"]
                     if any(f["line"] == WORK_LINE and (f["file"] or "").endswith("fork_workers.c")
                            for f in s["frames"])}
        self.assertEqual(work_pids, pids)
        # Leak totals summed.
        for kind in ("definite", "indirect", "possible", "reachable", "suppressed"):
            for unit in ("bytes", "blocks"):
                self.assertEqual(m["leak_check"][kind][unit],
                                 sum(r["leak_check"][kind][unit] for r in self.reports),
                                 (kind, unit))
        self.assertEqual(m["leak_check"]["definite"]["bytes"], 2 * 100 * 64)

    def test_merged_report_loads_in_show_and_diff(self):
        p = report("show", self.merged)
        self.check(p, 0)
        self.assertIn("memgrow report", p.stdout)
        # Against itself, and against the parent alone: loads, keys without pids.
        self.check(report("diff", self.merged, self.merged), 0)
        p = report("diff", self.files[0], self.merged)
        self.assertIn(p.returncode, (0, 1), p.stderr)
        self.assertIn("result:", p.stdout)

    def test_merge_of_a_merged_report(self):
        again = os.path.join(self.tmp, "again.json")
        self.check(report("merge", self.merged, "-o", again), 0)
        with open(again) as f, open(self.merged) as g:
            self.assertEqual(json.load(f)["sites"], json.load(g)["sites"])

    # --- sarif -------------------------------------------------------------

    def sarif(self, *extra):
        out = os.path.join(self.tmp, "out.sarif")
        p = report("sarif", self.merged, "-o", out, *extra)
        self.check(p, 0)
        with open(out) as f:
            return json.load(f)

    def test_sarif_is_valid_against_the_official_schema(self):
        if not os.path.exists(SCHEMA):
            self.skipTest(f"no SARIF schema at {SCHEMA}: run scripts/install-deps.sh")
        import jsonschema
        with open(SCHEMA) as f:
            schema = json.load(f)
        for extra in ((), ("--source-root", SRC_ROOT)):
            log = self.sarif(*extra)
            jsonschema.validate(log, schema)

    def test_sarif_results(self):
        log = self.sarif()
        self.assertEqual(log["version"], "2.1.0")
        with open(self.merged) as f:
            m = json.load(f)
        want = problems(m)
        results = log["runs"][0]["results"]
        self.assertEqual(len(results), len(want))
        self.assertGreater(len(results), 0)
        for r, s in zip(results, want):
            self.assertEqual(r["ruleId"], "memgrow/" + s["class"])
            self.assertEqual(r["level"], "error" if s["class"] == "leaked" else "warning")
            self.assertEqual(r["properties"]["pid"], s["pid"])
            loc = r["locations"][0]["physicalLocation"]
            self.assertEqual(loc["artifactLocation"]["uri"], "fork_workers.c")
            self.assertGreaterEqual(loc["region"]["startLine"], 1)
            self.assertIn(s["class"], r["message"]["text"])

    def test_sarif_source_root(self):
        log = self.sarif("--source-root", SRC_ROOT)
        run = log["runs"][0]
        self.assertTrue(run["originalUriBaseIds"]["SRCROOT"]["uri"].startswith("file:///"))
        for r in run["results"]:
            self.assertEqual(r["locations"][0]["physicalLocation"]["artifactLocation"]
                             ["uriBaseId"], "SRCROOT")

    # --- junit -------------------------------------------------------------

    def test_junit_counts(self):
        out = os.path.join(self.tmp, "out.xml")
        self.check(report("junit", self.merged, "-o", out), 0)
        root = ET.parse(out).getroot()
        with open(self.merged) as f:
            m = json.load(f)
        suites = root.findall("testsuite")
        self.assertEqual(len(suites), 3)
        total_failures = 0
        for i, suite in enumerate(suites):
            want = [s for s in problems(m) if s["process"] == i]
            failures = suite.findall("testcase/failure")
            self.assertEqual(len(failures), len(want))
            self.assertEqual(int(suite.get("failures")), len(want))
            self.assertEqual(int(suite.get("tests")), len(suite.findall("testcase")))
            if not want:
                self.assertEqual(suite.find("testcase").get("name"), "no leaked or growing sites")
            total_failures += len(want)
        self.assertEqual(int(root.get("failures")), total_failures)
        self.assertEqual(int(root.get("failures")), len(problems(m)))
        # The separate reports give the same suites.
        out2 = os.path.join(self.tmp, "out2.xml")
        self.check(report("junit", *self.files, "-o", out2), 0)
        self.assertEqual(int(ET.parse(out2).getroot().get("failures")), total_failures)

    # --- bad input ---------------------------------------------------------

    def test_bad_input_exits_2_naming_the_file(self):
        bad = self.bad_file()
        out = os.path.join(self.tmp, "never")
        for cmd in ("merge", "sarif", "junit"):
            p = report(cmd, self.files[0], bad, "-o", out)
            self.check(p, 2)
            self.assertIn("broken.json", p.stderr, cmd)
            self.assertFalse(os.path.exists(out), cmd)
            p = report(cmd, os.path.join(self.tmp, "missing.json"), "-o", out)
            self.check(p, 2)
            self.assertIn("missing.json", p.stderr, cmd)


SRC_ROOT = os.path.abspath(os.environ.get("MG_SRC_DIR", os.path.join(os.path.dirname(__file__),
                                                                      "..", "..")))


ARENA = "tests/regress/custom_arena.c"


class ErrorFormats(unittest.TestCase):
    """errors[] in sarif, junit and html: custom_arena's use after FREELIKE
    and redzone write (--addressability=yes) and its FREELIKE of no block,
    each error a SARIF result (rule: its kind), a failing JUnit testcase and
    a row of the HTML page's errors table, in memcheck's words at the
    innermost user frame."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-formats-errors-")
        cls.files = []
        for name, args in (("uaf", ["uaf", "mmap"]), ("badfree", ["badfree"])):
            path = os.path.join(cls.tmp, f"{name}.json")
            p = subprocess.run([VALGRIND, "--tool=memgrow", *mgtest.COMPLETE,
                                "--addressability=yes",
                                f"--json-file={path}", program("custom_arena"), *args],
                               cwd=cls.tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            assert p.returncode == 0, p.stdout
            cls.files.append(path)
        cls.errors = []
        for path in cls.files:
            with open(path) as f:
                cls.errors += json.load(f)["errors"]
        # (kind, message, line of the innermost frame in custom_arena.c)
        cls.want = [("Addr1", "Invalid read of size 1", source_line(ARENA, "READ_FREED")),
                    ("Addr1", "Invalid write of size 1", source_line(ARENA, "WRITE_REDZONE")),
                    ("InvalidFree", "Invalid free() / delete / delete[] / realloc()",
                     source_line(ARENA, "/* FREELIKE_HERE"))]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_reports_have_the_errors(self):
        self.assertEqual([(e["kind"], e["message"], e["frames"][0]["line"]) for e in self.errors],
                         self.want)

    def test_sarif_result_per_error(self):
        out = os.path.join(self.tmp, "errors.sarif")
        p = report("sarif", *self.files, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            log = json.load(f)
        if os.path.exists(SCHEMA):  # test_sarif_is_valid_against_the_official_schema says so
            import jsonschema
            with open(SCHEMA) as f:
                jsonschema.validate(log, json.load(f))
        run = log["runs"][0]
        rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
        results = [r for r in run["results"] if not r["ruleId"].startswith("memgrow/")]
        got = []
        for r in results:
            self.assertEqual(rules[r["ruleIndex"]], r["ruleId"])
            self.assertEqual(r["level"], "error")
            loc = r["locations"][0]
            self.assertTrue(loc["physicalLocation"]["artifactLocation"]["uri"]
                            .endswith("custom_arena.c"), loc)
            got.append((r["ruleId"], r["message"]["text"].split(":")[0],
                        loc["physicalLocation"]["region"]["startLine"]))
        self.assertEqual(got, self.want)
        # The use after free's message has memcheck's description.
        self.assertIn("is 8 bytes inside a block of size 40 free'd", results[0]["message"]["text"])
        self.assertEqual(results[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
                         "main")

    def test_junit_failing_testcase_per_error(self):
        out = os.path.join(self.tmp, "errors.xml")
        p = report("junit", *self.files, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        root = ET.parse(out).getroot()
        got = []
        for case in root.iter("testcase"):
            failure = case.find("failure")
            if failure is None or failure.get("type") in ("leaked", "growing"):
                continue
            self.assertTrue(case.get("file").endswith("custom_arena.c"))
            self.assertIn("custom_arena.c", failure.text)  # the stack
            got.append((failure.get("type"), failure.get("message").split(":")[0],
                        int(case.get("line"))))
        self.assertEqual(got, self.want)
        for suite in root.findall("testsuite"):
            self.assertEqual(int(suite.get("failures")), len(suite.findall("testcase/failure")))
        self.assertEqual(int(root.get("failures")), len(root.findall("testsuite/testcase/failure")))

    def test_html_errors_table(self):
        out = os.path.join(self.tmp, "errors.html")
        p = report("html", *self.files, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            page = f.read()
        self.assertIn("<h3>Errors <span class=\"muted\">(2)</span></h3>", page)
        self.assertIn("<h3>Errors <span class=\"muted\">(1)</span></h3>", page)
        self.assertIn("Invalid read of size 1: Address", page)
        self.assertIn("Invalid free() / delete / delete[] / realloc()", page)


if __name__ == "__main__":
    unittest.main()
