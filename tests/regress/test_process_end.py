# SPDX-License-Identifier: GPL-2.0-or-later
"""The report is written however the process ends: a fatal signal, _exit(),
fork (one report per process)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import TestCase, program, run, source_line  # noqa: E402


class ProcessEnd(TestCase):
    def test_segfault_still_writes_the_report(self):
        r = run([program("segfault")])
        self.assertNotEqual(r.rc, 0)
        self.assertIn("Process terminating with default action of signal 11", r.log)
        rep = r.report
        self.assertEqual(rep["teardown"], "process_end")
        line = source_line("tests/regress/segfault.c", "GROW_HERE")
        site = self.assertClass(rep, "growing", file="segfault.c", line=line)[0]
        self.assertEqual(site["live_blocks"], 5000)

    def test_underscore_exit_still_writes_the_report(self):
        r = run([program("underscore_exit")])
        self.assertEqual(r.rc, 3)
        rep = r.report
        self.assertEqual(rep["teardown"], "process_end")
        line = source_line("tests/regress/underscore_exit.c", "GROW_HERE")
        self.assertClass(rep, "growing", file="underscore_exit.c", line=line)

    def check_fork_reports(self, r):
        self.assertEqual(r.rc, 0, r.log)
        self.assertEqual(len(r.reports), 3, r.log)
        by_pid = {rep["pid"]: rep for rep in r.reports}
        self.assertEqual(len(by_pid), 3)
        parents = [rep for rep in r.reports if rep["ppid"] not in by_pid]
        self.assertEqual(len(parents), 1)
        parent = parents[0]
        children = [rep for rep in r.reports if rep["ppid"] == parent["pid"]]
        self.assertEqual(len(children), 2)
        line = source_line("tests/regress/fork_workers.c", "WORK_HERE")
        # The parent allocated 100 blocks of 64 bytes; each child inherited
        # them and added its own of 128 bytes.
        def work_bytes(rep):
            return sum(s["allocated_bytes"] for s in rep["sites"]
                       if any(f["line"] == line and f["file"] and f["file"].endswith("fork_workers.c")
                              for f in s["frames"]))
        self.assertEqual(work_bytes(parent), 100 * 64)
        self.assertEqual(sorted(work_bytes(c) for c in children),
                         [100 * 64 + 500 * 128, 100 * 64 + 600 * 128])

    def test_fork_writes_one_report_per_process(self):
        self.check_fork_reports(run([program("fork_workers")]))

    def test_fork_without_pid_in_the_name_still_gives_each_process_its_own(self):
        self.check_fork_reports(run([program("fork_workers")], json_name="fixed.json"))

    def test_traced_exec_child_writes_its_own_report_under_a_shared_name(self):
        r = run([program("exec_child")], options=["--trace-children=yes"],
                json_name="fixed.json")
        self.assertEqual(r.rc, 0, r.log)
        self.assertEqual(len(r.reports), 2, r.log)
        sizes = sorted(sum(s["live_bytes"] for s in rep["sites"]
                           if any(f["file"] and f["file"].endswith("exec_child.c")
                                  for f in s["frames"]))
                       for rep in r.reports)
        self.assertEqual(sizes, [100 * 100, 100 * 200])
        self.assertEqual(len({rep["pid"] for rep in r.reports}), 2)


if __name__ == "__main__":
    unittest.main()
