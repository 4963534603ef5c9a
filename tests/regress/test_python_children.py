"""--trace-children=yes with Python's ways of starting processes
(subprocess, multiprocessing with fork and with spawn): one report per
process, each with Python frames."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import SRC, TestCase, describe, run, source_line  # noqa: E402

SCRIPT = os.path.join(SRC, "tests", "regress", "py_children.py")
BLOCK = 200_004


def buffer_stacks(report):
    """The Python frames (function, line) of each site of a buffer."""
    return [[(f["function"], f["line"]) for f in s["frames"] if f["python"]]
            for s in report["sites"] if s["peak_bytes"] == BLOCK]


def in_work(report, line):
    return any(st and st[0] == ("work", line) for st in buffer_stacks(report))


class Children(TestCase):
    def check(self, how, processes):
        r = run([sys.executable, SCRIPT, how], options=["--trace-children=yes"],
                env={"PYTHONMALLOC": "malloc"}, timeout=600)
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn(f"done {how}", r.log)
        self.assertEqual(len(r.reports), processes, r.log)
        pids = {rep["pid"] for rep in r.reports}
        self.assertEqual(len(pids), processes)
        parent_line = source_line("tests/regress/py_children.py", "PARENT_WORK")
        child_line = source_line("tests/regress/py_children.py", "CHILD_WORK")
        # Each process ran the parent's line (a fork child inherits its block).
        self.assertTrue(all([("<module>", parent_line)] in buffer_stacks(rep)
                            for rep in r.reports),
                        "\n".join(describe(rep) for rep in r.reports))
        self.assertEqual(sum(in_work(rep, child_line) for rep in r.reports), 1,
                         [buffer_stacks(rep) for rep in r.reports])
        return r

    def test_subprocess(self):
        self.check("subprocess", 2)

    def test_multiprocessing_fork(self):
        r = self.check("fork", 2)
        # The child's report is its own: it started from the parent's state
        # at fork, and ends with the child's own exit.
        child = [rep for rep in r.reports if rep["ppid"] in {p["pid"] for p in r.reports}]
        self.assertEqual(len(child), 1)

    def test_multiprocessing_spawn(self):
        # The spawn start method also starts a resource tracker process.
        r = run([sys.executable, SCRIPT, "spawn"], options=["--trace-children=yes"],
                env={"PYTHONMALLOC": "malloc"}, timeout=600)
        self.assertEqual(r.rc, 0, r.log)
        self.assertGreaterEqual(len(r.reports), 2, r.log)
        child_line = source_line("tests/regress/py_children.py", "CHILD_WORK")
        self.assertEqual(sum(in_work(rep, child_line) for rep in r.reports), 1,
                         [buffer_stacks(rep) for rep in r.reports])
        for rep in r.reports:
            self.assertTrue(any(f["python"] for s in rep["sites"] for f in s["frames"]),
                            rep["command"])


if __name__ == "__main__":
    unittest.main()
