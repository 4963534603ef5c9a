# SPDX-License-Identifier: GPL-2.0-or-later
"""Settings and programs that would silently change the answer (issue 32):
marks that stop early or whose hook the program removes, --mark-at specs
that never match, a --warmup longer than the run, a gate on leaks without a
leak scan. Each gets its answer right, or a word at the end of the log."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import (SRC, TestCase, memgrow_report, program, python_interpreters,  # noqa: E402
                    run, source_line)

DROPPED = os.path.join(SRC, "tests", "regress", "py_mark_at_dropped.py")
SERVICE = os.path.join(SRC, "tests", "regress", "py_mark_at_service.py")


def python311():
    """A CPython 3.11, whose --mark-at hook is a profile function the
    program can replace."""
    return next(py for py in python_interpreters().values() if py.minor == 11)


class MarksThatStop(TestCase):
    def test_growth_after_the_last_mark_is_growing(self):
        r = run([program("marks_stop")])
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        self.assertEqual(rep["marks"]["count"], 50)
        self.assertTrue(rep["marks"]["stopped_early"])
        self.assertLess(rep["marks"]["last_at"], rep["teardown_at"] // 2)
        line = source_line("tests/regress/marks_stop.c", "AFTER_MARKS_HERE")
        (site,) = self.assertClass(rep, "growing", file="marks_stop.c", line=line)
        g = site["growth"]
        self.assertEqual(g["rule"], "trend")
        self.assertTrue(g["after_marks"])
        self.assertEqual(g["marks_adding"], 0)  # the marks saw none of it
        self.assertGreaterEqual(g["began_at"], rep["marks"]["last_at"] // 2)
        self.assertIn("the marks stopped early: the last at clock", r.log)
        self.assertIn("after the last mark", r.log)
        with tempfile.TemporaryDirectory(prefix="memgrow-test-") as tmp:
            path = os.path.join(tmp, "report.json")
            with open(path, "w") as f:
                json.dump(rep, f)
            shown = memgrow_report("show", path)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn("trend rule, confidence 1, after the last mark", shown.stdout)

    def test_marks_to_the_end_do_not_say_so(self):
        r = run([program("mark_leak")])
        self.assertFalse(r.report["marks"]["stopped_early"])
        self.assertNotIn("the marks stopped early", r.log)

    def test_a_removed_mark_at_hook_leaves_growth_growing_and_is_named(self):
        r = run(python311().argv + [DROPPED, "3000"], options=["--mark-at=__main__:handle"])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        rep = r.report
        self.assertEqual(rep["marks"]["count"], 100)
        self.assertTrue(rep["marks"]["stopped_early"])
        self.assertTrue(rep["marks"]["mark_at"]["hook_removed"])
        self.assertEqual(rep["marks"]["mark_at"]["never_called"], [])
        line = source_line("tests/regress/py_mark_at_dropped.py", "KEPT_TO_THE_END")
        sites = self.assertClass(rep, "growing", file="py_mark_at_dropped.py", line=line)
        self.assertTrue(any(s["growth"].get("after_marks") for s in sites))
        self.assertIn("memgrow: --mark-at: the program removed memgrow's hook", r.log)
        self.assertNotIn("was never called", r.log)


class MarkAtNeverCalled(TestCase):
    def test_a_typo_is_named_at_the_end(self):
        r = run(python311().argv + [SERVICE, "50"],
                options=["--mark-at=__main__:handel", "--mark-at=__main__:handle",
                         "--mark-at=__main__:handle"])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        self.assertEqual(r.report["marks"]["count"], 50)
        self.assertIn("memgrow: --mark-at=__main__:handel was never called: no mark came from "
                      "it\n", r.log)
        self.assertNotIn("--mark-at=__main__:handle was never", r.log)
        at = r.report["marks"]["mark_at"]
        self.assertEqual(at["never_called"], ["__main__:handel"])
        self.assertTrue(at["python"])
        self.assertFalse(at["hook_removed"])

    def test_a_native_program(self):
        r = run([program("mark_leak")], options=["--mark-at=__main__:handle"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("memgrow: --mark-at=__main__:handle was never called: no mark came from "
                      "it (no Python program ran)", r.log)
        self.assertFalse(r.report["marks"]["mark_at"]["python"])

    def test_without_mark_at_nothing_is_said(self):
        r = run([program("mark_leak")])
        self.assertNotIn("mark_at", r.report["marks"])
        self.assertNotIn("never called", r.log)


class Options(TestCase):
    def test_a_warmup_longer_than_the_run(self):
        r = run([program("grow_list")], options=["--warmup=100000000000"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("memgrow: --warmup=100000000000 covers the whole run (clock ", r.log)
        self.assertIn("every site is stable", r.log)
        # A warm-up inside the run says nothing.
        r = run([program("grow_list")], options=["--warmup=1000"])
        self.assertNotIn("covers the whole run", r.log)

    def test_a_gate_on_leaks_without_a_leak_scan(self):
        warning = "--errors-for counts leaked sites, but --leak-check=no scans for none"
        for options in (["--leak-check=no", "--errors-for=leaked"],
                        ["--errors-for=growing,teardown", "--leak-check=no"]):
            with self.subTest(options=options):
                r = run([program("grow_list")], options=options)
                self.assertIn(warning, r.log)
        for options in (["--leak-check=no"], ["--leak-check=no", "--errors-for=growing"],
                        ["--leak-check=summary", "--errors-for=leaked"]):
            with self.subTest(options=options):
                self.assertNotIn(warning, run([program("grow_list")], options=options).log)


if __name__ == "__main__":
    unittest.main()
