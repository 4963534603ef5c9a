# SPDX-License-Identifier: GPL-2.0-or-later
"""MEMGROW_MARK: the per-mark view and CPython's refleak rule."""
import itertools
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import (SRC, TestCase, program, representative_interpreters, run,  # noqa: E402
                    sites_at, source_line)

SERVICE = os.path.join(SRC, "tests", "regress", "py_mark_at_service.py")


class Marks(TestCase):
    def test_fixed_leak_per_mark_is_growing_with_that_rate(self):
        r = run([program("mark_leak")]).report
        self.assertEqual(r["marks"]["count"], 200)
        line = source_line("tests/regress/mark_leak.c", "PER_MARK_HERE")
        site = self.assertClass(r, "growing", file="mark_leak.c", line=line)[0]
        g = site["growth"]
        self.assertEqual(g["rule"], "refleak")
        self.assertAlmostEqual(g["rate_per_mark"], 96.0, places=3)
        self.assertEqual(g["marks_adding"], g["marks_used"])
        self.assertGreater(g["marks_used"], 2)
        self.assertEqual(site["live_blocks"], 200)
        # Per-mark levels: 96 bytes more at every mark (bucket of marks).
        levels = site["mark_series"]
        steps = {b - a for a, b in zip(levels, levels[1:])}
        self.assertEqual(steps, {96 * r["marks"]["per_bucket"]})
        # The warm-up ends at the first mark.
        self.assertEqual(r["warmup_end"], r["marks"]["first_at"])
        # The per-request scratch buffer is freed each time: not growing.
        scratch = source_line("tests/regress/mark_leak.c", "SCRATCH_HERE")
        self.assertClass(r, "stable", file="mark_leak.c", line=scratch)
        self.assertEqual([s["class"] for s in sites_at(r, file="mark_leak.c", line=scratch)],
                         ["stable"])

    def test_many_marks_merge_into_64_buckets(self):
        r = run([program("mark_leak"), "1000"]).report
        self.assertEqual(r["marks"]["count"], 1000)
        self.assertEqual(r["marks"]["per_bucket"], 16)
        line = source_line("tests/regress/mark_leak.c", "PER_MARK_HERE")
        site = self.assertClass(r, "growing", file="mark_leak.c", line=line)[0]
        self.assertLessEqual(len(site["mark_series"]), 64)
        self.assertAlmostEqual(site["growth"]["rate_per_mark"], 96.0, places=3)

    def test_mark_at_makes_calls_of_a_python_function_marks(self):
        # 3.11 (shared and static) through a profile function, 3.14 through
        # sys.monitoring.
        line = source_line("tests/regress/py_mark_at_service.py", "KEEP_PER_REQUEST")
        for name, py in representative_interpreters().items():
            with self.subTest(python=name):
                r = run(py.argv + [SERVICE, "300"], options=["--mark-at=__main__:handle"])
                self.assertEqual(r.rc, 0, r.log[-3000:])
                rep = r.report
                self.assertEqual(rep["marks"]["count"], 300, name)
                self.assertEqual(rep["marks"]["label"], "handle", name)
                site = self.assertClass(rep, "growing", file="py_mark_at_service.py", line=line)
                self.assertEqual(site[0]["growth"]["rule"], "refleak", name)
                self.assertGreaterEqual(sum(s["growth"]["rate_per_mark"] for s in site), 200)
                self.assertIn(" per handle: ", r.log)

    def test_mark_at_methods_and_several_functions(self):
        py = representative_interpreters()["running"]
        r = run(py.argv + [SERVICE, "100"],
                options=["--mark-at=__main__:Worker.work", "--mark-at=__main__:handle"])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        self.assertEqual(r.report["marks"]["count"], 200)
        self.assertIsNone(r.report["marks"]["label"])  # two names: "per mark"
        # A function that is never called makes no mark.
        r = run(py.argv + [SERVICE, "100"], options=["--mark-at=__main__:nowhere"])
        self.assertEqual(r.report["marks"]["count"], 0)

    def test_mark_at_refuses_what_is_not_a_function(self):
        for bad in ("handle", "mod:", ":f", "a:b:c", "mod:f g", "torch2"):
            r = run([program("mark_leak")], options=[f"--mark-at={bad}"])
            self.assertNotEqual(r.rc, 0, bad)
            self.assertIn("expected MODULE:QUALNAME", r.log, bad)

    def test_mark_at_says_why_a_name_is_refused(self):
        # Issue 43 (C3): a long name was "too many --mark-at functions".
        r = run([program("mark_leak")], options=["--mark-at=__main__:" + "f" * 5000])
        self.assertNotEqual(r.rc, 0)
        self.assertIn("the name is 5009 bytes long: --mark-at takes names of at most 2046 bytes",
                      r.log)
        self.assertNotIn("too many", r.log)
        many = [f"--mark-at=__main__:{'f' * 600}{i}" for i in range(4)]
        r = run([program("mark_leak")], options=many)
        self.assertNotEqual(r.rc, 0)
        self.assertIn("too many --mark-at functions: their names add up to more than 2046 bytes",
                      r.log)
        r = run([program("mark_leak")], options=[b"--mark-at=__main__:h\xe4nde".decode(
            "utf-8", "surrogateescape")])  # Latin-1, not UTF-8
        self.assertNotEqual(r.rc, 0)
        self.assertIn("the name is not valid UTF-8", r.log)

    def test_mark_at_takes_a_non_ascii_python_name(self):
        # Issue 43 (C3): a valid Python identifier was a bare "Bad option".
        script = os.path.join(SRC, "tests", "regress", "py_mark_at_names.py")
        line = source_line("tests/regress/py_mark_at_names.py", "KEEP_PER_CALL")
        # 3.11 through a profile function, 3.14 through sys.monitoring; the
        # name also written decomposed (a + U+0308): Python's names are NFKC.
        for (python, py), name in itertools.product(representative_interpreters().items(),
                                                    ("hände", "ha\u0308nde")):
            with self.subTest(python=python, name=ascii(name)):
                r = run(py.argv + [script, "120"], options=[f"--mark-at=__main__:{name}"])
                self.assertEqual(r.rc, 0, r.log[-3000:])
                self.assertEqual(r.report["marks"]["count"], 120)
                self.assertEqual(r.report["marks"]["label"], "hände")
                site = self.assertClass(r.report, "growing", file="py_mark_at_names.py",
                                        line=line)
                self.assertEqual(site[0]["growth"]["rule"], "refleak")
                self.assertNotIn("never called", r.log)

    def test_marks_are_no_ops_natively(self):
        import subprocess
        self.assertEqual(subprocess.run([program("mark_leak")]).returncode, 0)
        self.assertEqual(subprocess.run([program("device_requests")]).returncode, 0)


if __name__ == "__main__":
    unittest.main()
