# SPDX-License-Identifier: GPL-2.0-or-later
"""--trace-children=yes with Python's ways of starting processes
(subprocess, multiprocessing with fork and with spawn): one report per
process, each with Python frames. fork on every interpreter of
mgtest.python_interpreters(); subprocess and spawn (a dozen seconds more
each) on the shared 3.11 and on 3.14."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import (SRC, TestCase, bytearray_block, describe, python_interpreters,  # noqa: E402
                    run, source_line)

SCRIPT = os.path.join(SRC, "tests", "regress", "py_children.py")
INTERPRETERS = python_interpreters()
SOME = {name: INTERPRETERS[name] for name in ("running", "3.14")}


def buffer_stacks(report, minor):
    """The Python frames (function, line) of each site of a buffer."""
    return [[(f["function"], f["line"]) for f in s["frames"] if f["python"]]
            for s in report["sites"] if s["peak_bytes"] == bytearray_block(200_003, minor)]


def in_work(report, line, minor):
    return any(st and st[0] == ("work", line) for st in buffer_stacks(report, minor))


class Children(TestCase):
    def check(self, py, how, processes):
        r = run([*py.argv, SCRIPT, how], options=["--trace-children=yes"],
                env={"PYTHONMALLOC": "malloc"}, timeout=600)
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn(f"done {how}", r.log)
        self.assertEqual(len(r.reports), processes, r.log)
        pids = {rep["pid"] for rep in r.reports}
        self.assertEqual(len(pids), processes)
        parent_line = source_line("tests/regress/py_children.py", "PARENT_WORK")
        child_line = source_line("tests/regress/py_children.py", "CHILD_WORK")
        # Each process ran the parent's line (a fork child inherits its block).
        self.assertTrue(all([("<module>", parent_line)] in buffer_stacks(rep, py.minor)
                            for rep in r.reports),
                        "\n".join(describe(rep) for rep in r.reports))
        self.assertEqual(sum(in_work(rep, child_line, py.minor) for rep in r.reports), 1,
                         [buffer_stacks(rep, py.minor) for rep in r.reports])
        return r

    def test_subprocess(self):
        for name, py in SOME.items():
            with self.subTest(interpreter=name):
                self.check(py, "subprocess", 2)

    def test_multiprocessing_fork(self):
        for name, py in INTERPRETERS.items():
            with self.subTest(interpreter=name):
                r = self.check(py, "fork", 2)
                # The child's report is its own: it started from the
                # parent's state at fork, and ends with the child's own exit.
                child = [rep for rep in r.reports
                         if rep["ppid"] in {p["pid"] for p in r.reports}]
                self.assertEqual(len(child), 1)

    def test_multiprocessing_spawn(self):
        for name, py in SOME.items():
            with self.subTest(interpreter=name):
                self.spawn(py)

    def spawn(self, py):
        # The spawn start method also starts a resource tracker process.
        r = run([*py.argv, SCRIPT, "spawn"], options=["--trace-children=yes"],
                env={"PYTHONMALLOC": "malloc"}, timeout=600)
        self.assertEqual(r.rc, 0, r.log)
        self.assertGreaterEqual(len(r.reports), 2, r.log)
        child_line = source_line("tests/regress/py_children.py", "CHILD_WORK")
        self.assertEqual(sum(in_work(rep, child_line, py.minor) for rep in r.reports), 1,
                         [buffer_stacks(rep, py.minor) for rep in r.reports])
        for rep in r.reports:
            self.assertTrue(any(f["python"] for s in rep["sites"] for f in s["frames"]),
                            rep["command"])


if __name__ == "__main__":
    unittest.main()
