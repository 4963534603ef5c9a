# SPDX-License-Identifier: GPL-2.0-or-later
"""memgrow-report on reports memgrow writes in this test: `diff` gates on a
program that gains a leak between two builds (tests/regress/gains_leak.c,
built as gains_leak_base and gains_leak_new) and passes on two runs of one
build; `--baseline-update` writes a baseline that then diffs clean; `show`
prints the classes and sparklines; bad input exits 2 naming the file.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import VALGRIND, program, source_line  # noqa: E402

LEAK_LINE = source_line("tests/regress/gains_leak.c", "LEAK_HERE")
GROW_LINE = source_line("tests/regress/gains_leak.c", "GROW_HERE")


def memgrow(tmp, name, argv):
    """Runs argv under memgrow; returns the path of its report."""
    path = os.path.join(tmp, name)
    p = subprocess.run([VALGRIND, "--tool=memgrow", *mgtest.COMPLETE,
                        f"--json-file={path}", *argv], cwd=tmp,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert p.returncode == 0 and os.path.exists(path), p.stdout
    return path


report = mgtest.memgrow_report


class ReportCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-report-test-")
        runs = {
            "base": ("base.json", [program("gains_leak_base")]),
            "base2": ("base2.json", [program("gains_leak_base")]),
            "new": ("new.json", [program("gains_leak_new")]),
            "longer": ("longer.json", [program("gains_leak_base"), "6000"]),
        }
        with concurrent.futures.ThreadPoolExecutor(len(runs)) as pool:
            futures = {k: pool.submit(memgrow, cls.tmp, name, argv)
                       for k, (name, argv) in runs.items()}
            for k, f in futures.items():
                setattr(cls, k, f.result())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, p, rc):
        self.assertEqual(p.returncode, rc, f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")

    # --- diff --------------------------------------------------------------

    def test_diff_fails_on_the_build_that_gains_a_leak(self):
        p = report("diff", self.base, self.new)
        self.check(p, 1)
        self.assertIn(f"FAIL: new leaked site forget (gains_leak.c:{LEAK_LINE})", p.stdout)
        self.assertIn("result: FAIL (1 problem)", p.stdout)
        # The growing list is in both builds: it is not a new problem.
        self.assertNotIn(f"remember (gains_leak.c:{GROW_LINE})", p.stdout)

    def test_diff_passes_on_two_runs_of_one_build(self):
        p = report("diff", self.base, self.base2)
        self.check(p, 0)
        self.assertIn("new sites: 0", p.stdout)
        self.assertIn("gone sites: 0", p.stdout)
        self.assertIn("result: OK", p.stdout)

    def test_diff_of_two_programs_warns(self):
        # Issue 32: two builds named apart are two programs to the diff; it
        # says so on stderr and decides as ever.
        p = report("diff", self.base, self.new)
        self.check(p, 1)
        self.assertIn("memgrow-report: warning: BASE and NEW are reports of different programs "
                      "(gains_leak_base and gains_leak_new)", p.stderr)
        self.assertNotIn("warning", report("diff", self.base, self.longer).stderr)

    def test_merge_refuses_one_report_twice_before_parsing_it(self):
        # Issue 32: by the file (one name twice, or two paths to it), or by
        # its bytes (a copy); found before anything is parsed.
        out = os.path.join(self.tmp, "merged.json")
        copy = os.path.join(self.tmp, "copy-of-base.json")
        shutil.copyfile(self.base, copy)
        for inputs, message in (
                ([self.base, self.new, self.base], f"the same report given twice: it is the "
                                                   f"file {self.base}"),
                ([self.base, os.path.join(self.tmp, ".", os.path.basename(self.base))],
                 "the same report given twice: it is the file"),
                ([self.base, copy], f"the same report given twice: its bytes are those of "
                                    f"{self.base}")):
            with self.subTest(inputs=inputs):
                p = report("merge", *inputs, "-o", out)
                self.check(p, 2)
                self.assertIn(message, p.stderr)
                self.assertFalse(os.path.exists(out))

    def test_a_gone_leak_passes(self):
        self.check(report("diff", self.new, self.base), 0)

    def test_max_growth_budget(self):
        # 4000 -> 6000 requests: the growing list holds 50% more.
        p = report("diff", self.base, self.longer, "--max-growth=1K")
        self.check(p, 1)
        self.assertIn("over --max-growth=1K", p.stdout)
        self.check(report("diff", self.base, self.longer, "--max-growth=10%"), 1)
        self.check(report("diff", self.base, self.longer, "--max-growth=60%"), 0)
        self.check(report("diff", self.base, self.longer, "--max-growth=1M"), 0)
        self.check(report("diff", self.base, self.longer), 0)

    def test_baseline_update(self):
        baseline = os.path.join(self.tmp, "baseline.json")
        shutil.copy(self.base, baseline)
        p = report("diff", baseline, self.new, "--baseline-update")
        self.check(p, 0)
        self.assertIn("baseline updated", p.stdout)
        self.assertIn(f"forget (gains_leak.c:{LEAK_LINE})", p.stdout)  # the diff is still shown
        with open(baseline, "rb") as a, open(self.new, "rb") as b:
            self.assertEqual(a.read(), b.read())
        self.check(report("diff", baseline, self.new), 0)
        # The first run of a nightly job: no baseline yet.
        first = os.path.join(self.tmp, "cache", "first.json")  # in a directory not made yet
        self.check(report("diff", first, self.base, "--baseline-update"), 0)
        self.check(report("diff", first, self.base2), 0)

    # --- show --------------------------------------------------------------

    def test_show(self):
        p = report("show", self.new)
        self.check(p, 0)
        for heading in ("LEAKED 1 of 1", "GROWING 1 of 1", "PLATEAU 1 of 1"):
            self.assertIn(heading, p.stdout)
        self.assertIn(f"at forget (gains_leak.c:{LEAK_LINE})", p.stdout)
        self.assertIn("bytes per byte allocated", p.stdout)
        self.assertRegex(p.stdout, "series: [▁▂▃▄▅▆▇█]{8,}")

    def test_show_filters_and_ascii(self):
        p = report("show", "--ascii", "--class=leaked,growing", self.new)
        self.check(p, 0)
        self.assertTrue(p.stdout.isascii(), p.stdout)
        self.assertIn("LEAKED", p.stdout)
        self.assertNotIn("PLATEAU", p.stdout)
        p = report("show", "--function", "remember", self.new)
        self.check(p, 0)
        self.assertIn("GROWING 1 of 1", p.stdout)
        self.assertNotIn("LEAKED 1", p.stdout)
        p = report("show", "--space", "device", self.new)
        self.check(p, 0)
        self.assertNotIn(" of ", p.stdout)
        p = report("show", "--file", "gains_leak.c", "--class", "growing", self.base, self.new)
        self.check(p, 0)
        self.assertEqual(p.stdout.count("memgrow report "), 2)

    # --- bad input ---------------------------------------------------------

    def bad_files(self):
        with open(self.base, "rb") as f:
            text = f.read()
        files = {
            "truncated.json": text[: len(text) // 2],
            "empty-object.json": b"{}",
            "version3.json": b'{"memgrow": 3}',
            "image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
            "empty.json": b"",
            "array.json": b"[1, 2, 3]",
        }
        # Issue 43 (C5): shown as "state at exit (clock -1 bytes allocated)".
        doc = json.loads(text)
        for name, changes in (("negative-width.json", {"bucket_width": -32768, "teardown_at": -1}),
                              ("zero-width.json", {"bucket_width": 0}),
                              ("negative-clock.json", {"teardown_at": -1})):
            files[name] = json.dumps({**doc, **changes}).encode()
        paths = {}
        for name, data in files.items():
            paths[name] = os.path.join(self.tmp, name)
            with open(paths[name], "wb") as f:
                f.write(data)
        paths["missing.json"] = os.path.join(self.tmp, "missing.json")
        paths["a-directory"] = self.tmp
        return paths

    def test_bad_input_exits_2_naming_the_file(self):
        for name, path in self.bad_files().items():
            for args in (["show", path], ["diff", path, self.base], ["diff", self.base, path]):
                with self.subTest(name=name, command=args[0]):
                    p = report(*args)
                    self.check(p, 2)
                    self.assertIn(path, p.stderr)
                    self.assertEqual(p.stderr.count("\n"), 1, p.stderr)  # one clear line
                    self.assertNotIn("result:", p.stdout)

    def test_bad_input_messages(self):
        paths = self.bad_files()
        p = report("show", paths["truncated.json"])
        self.assertRegex(p.stderr, r"truncated\.json:\d+:\d+: the JSON ends early")
        self.assertIn("version 3", report("show", paths["version3.json"]).stderr)
        self.assertIn("not a memgrow report", report("show", paths["empty-object.json"]).stderr)
        self.assertIn("not valid JSON", report("show", paths["image.png"]).stderr)
        self.assertIn("cannot open", report("show", paths["missing.json"]).stderr)
        for name, message in (
                ("negative-width.json", "a bucket is at least 1 clock unit wide, not -32768 "
                                        "(at /bucket_width)"),
                ("zero-width.json", "a bucket is at least 1 clock unit wide, not 0 "
                                    "(at /bucket_width)"),
                ("negative-clock.json", "a negative clock value (-1) (at /teardown_at)")):
            self.assertIn(message, report("show", paths[name]).stderr, name)

    def test_every_command_skips_an_unknown_field_nested_deep(self):
        # Issue 43 (B3): expand and merge copied and wrote an unknown field
        # as it was, recursively: 100,000 levels overflowed their stack
        # (show accepted the file) and left OUT.tmp.PID behind. Every
        # command now skips what lies below 16 levels, as the loader does.
        with open(self.base) as f:
            doc = json.load(f)
        doc["zz"] = "@DEEP@"  # at the top and in a site's extra fields
        doc["sites"][0][-1]["zz"] = "@DEEP@"
        out = os.path.join(self.tmp, "deep-out")
        os.mkdir(out)
        for depth in (100000, 200000):
            text = json.dumps(doc, separators=(",", ":")).replace('"@DEEP@"', "[" * depth + "]" * depth)
            deep = os.path.join(self.tmp, f"deep{depth}.json")
            other = os.path.join(self.tmp, f"deep{depth}-other-pid.json")
            with open(deep, "w") as f:
                f.write(text)
            with open(other, "w") as f:
                f.write(text.replace(f'"pid":{doc["pid"]}', f'"pid":{doc["pid"] + 1}', 1))
            expanded, merged = os.path.join(out, "expanded.json"), os.path.join(out, "merged.json")
            commands = {
                "show": ["show", deep],
                "html": ["html", deep, "-o", os.path.join(out, "r.html")],
                "speedscope": ["speedscope", deep, "-o", os.path.join(out, "r.speedscope.json")],
                "pprof": ["pprof", deep, "-o", os.path.join(out, "r.pb.gz")],
                "sarif": ["sarif", deep, "-o", os.path.join(out, "r.sarif")],
                "junit": ["junit", deep, "-o", os.path.join(out, "r.xml")],
                "expand": ["expand", deep, "-o", expanded],
                "diff": ["diff", self.base, deep],
                "merge": ["merge", self.base, other, "-o", merged],
                "merge-both-deep": ["merge", deep, other, "-o", merged],
            }
            for name, args in commands.items():
                with self.subTest(depth=depth, command=name):
                    self.check(report(*args), 0)
                    self.assertEqual([f for f in os.listdir(out) if ".tmp." in f], [])
            with self.subTest(depth=depth, command="reload"):
                for path in (expanded, merged):
                    self.check(report("show", path), 0)
                with open(expanded) as f:
                    zz = json.load(f)["zz"]
                for _ in range(15):  # the levels a report can hold, then null
                    self.assertEqual(len(zz), 1)
                    zz = zz[0]
                self.assertIsNone(zz)

    def test_usage_errors_exit_2(self):
        self.check(report(), 2)
        self.check(report("frobnicate"), 2)
        self.check(report("show"), 2)
        self.check(report("diff", self.base), 2)
        self.check(report("show", "--class=huge", self.base), 2)
        self.check(report("diff", self.base, self.new, "--max-growth=lots"), 2)
        self.check(report("--help"), 0)
        self.check(report("diff", "--help"), 0)


if __name__ == "__main__":
    unittest.main()
