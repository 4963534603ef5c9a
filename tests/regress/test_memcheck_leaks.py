# SPDX-License-Identifier: GPL-2.0-or-later
"""Programs written for memcheck see memcheck's numbers under memgrow.

Each program follows one of memcheck's own leak regression tests
(memcheck/tests/leak-*.c and leak_cpp_interior.cpp in Valgrind's source; the
file says which) and checks for leaks mid-run (VALGRIND_DO_LEAK_CHECK and its
ADDED, CHANGED, NEW and QUICK forms, the `leak_check` monitor command) and
reads the counts (VALGRIND_COUNT_LEAKS, COUNT_LEAK_BLOCKS). Run under
memcheck and under memgrow, every LEAK SUMMARY (with its changes and its
"reachable via heuristic" lines), every loss record's first line, every "All
heap blocks were freed -- no leaks are possible" and every count the program
prints must be the same, in the same order; the exit scans of
leak_tree_recursive and mc_leak_pool (which checks only at exit) too.
"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import TestCase, program, run  # noqa: E402
from test_leaks import memcheck  # noqa: E402

HEURISTICS = "--leak-check-heuristics=multipleinheritance,stdstring,newarray,length64"
# Each run: the program and its arguments, then the options (memcheck's
# test's where it has some; all kinds where reachable records matter).
RUNS = {
    "mc_leak_zero": (["mc_leak_zero"], ("--show-leak-kinds=all",)),
    "mc_leak_cases": (["mc_leak_cases"], ()),
    "mc_leak_cycle": (["mc_leak_cycle"], ()),
    "mc_leak_tree": (["mc_leak_tree"], ()),
    "mc_leak_delta": (["mc_leak_delta"], ("--show-leak-kinds=all",)),
    "mc_leak_undefined": (["mc_leak_undefined"], ()),
    "mc_leak_heuristics": (["mc_leak_heuristics"], (HEURISTICS,)),
    "leak_tree_recursive": (["leak_tree_recursive"], ()),
    **{f"mc_leak_pool {mode}": (["mc_leak_pool", str(mode)], ()) for mode in range(6)},
}

EVENT = re.compile(
    r"^==\d+==\s+(?P<summary>(?:definitely lost|indirectly lost|possibly lost|still reachable"
    r"|suppressed): .*? blocks)$"
    r"|^==\d+==\s+(?P<heuristic>(?:stdstring|length64|newarray|multipleinheritance)\s*: .*)$"
    r"|^==\d+== (?P<freed>All heap blocks were freed -- no leaks are possible)$"
    r"|^==\d+== (?P<record>.* blocks are .* in (?:new )?loss record [\d,]+ of [\d,]+)$"
    r"|^(?P<counts>counts \w+: [\d ]+blocks[\d ]+)$", re.M)


def events(log):
    """The summaries' lines, the loss records' first lines, "all freed" and
    the program's counts, in order."""
    return [" ".join(m.group(0).split("== ", 1)[-1].split()) for m in EVENT.finditer(log)]


def summary_lines(ev):
    """Of those, the LEAK SUMMARY's lost and reachable lines."""
    kinds = r"(definitely|indirectly|possibly) lost: |still reachable: "
    return [e for e in ev if re.match(kinds, e)]


class MemcheckLeakPrograms(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.logs = {}
        for name, (argv, options) in RUNS.items():
            argv = [program(argv[0]), *argv[1:]]
            cls.logs[name] = (memcheck(argv, options), run(argv, options=options))

    def same(self, name):
        (mc_rc, theirs), r = self.logs[name]
        self.assertEqual((mc_rc, r.rc), (0, 0), f"--- memgrow:\n{r.log}\n--- memcheck:\n{theirs}")
        mine = events(r.log)
        self.assertEqual(mine, events(theirs), f"--- memgrow:\n{r.log}\n--- memcheck:\n{theirs}")
        return mine

    def test_zero(self):
        # Nothing allocated at the first check: memcheck's words, counts 0.
        ev = self.same("mc_leak_zero")
        self.assertEqual(ev[:2], ["All heap blocks were freed -- no leaks are possible",
                                  "counts before: 0 0 0 0 blocks 0 0 0 0"])
        self.assertIn("counts after: 0 0 0 0 blocks 0 0 1 0", ev)
        # Freed: all freed again, the counts of the check before; then the
        # record is new, the summary compared with the check before that.
        at = ev.index("counts freed: 0 0 0 0 blocks 0 0 1 0")
        self.assertEqual(ev[at - 1], "All heap blocks were freed -- no leaks are possible")
        self.assertRegex(ev[at + 1], r"^10 \(\+10\) bytes in 1 \(\+1\) blocks are still reachable")
        self.assertIn("still reachable: 10 (+10) bytes in 1 (+0) blocks", ev[at + 1:])

    def test_cases(self):
        ev = self.same("mc_leak_cases")
        self.assertIn("counts after: 80 96 64 0 blocks 5 6 4 0", ev)

    def test_cycle(self):
        ev = self.same("mc_leak_cycle")
        self.assertIn("counts after: 288 0 0 0 blocks 18 0 0 0", ev)

    def test_tree(self):
        ev = self.same("mc_leak_tree")
        self.assertIn("counts after: 64 0 48 0 blocks 4 0 3 0", ev)

    def test_delta(self):
        ev = self.same("mc_leak_delta")
        self.assertIn("definitely lost: 10 (+10) bytes in 1 (+1) blocks", ev)
        self.assertIn("definitely lost: 32 (+32) bytes in 1 (+1) blocks", ev)

    def test_undefined(self):
        # The only pointer marked undefined (then inaccessible): lost, as
        # memcheck takes no pointer from there; defined or written again:
        # reachable.
        ev = [e for e in self.same("mc_leak_undefined") if e.startswith("definitely lost")]
        self.assertEqual(ev, ["definitely lost: 0 bytes in 0 blocks",
                              "definitely lost: 1,000 bytes in 1 blocks",
                              "definitely lost: 0 bytes in 0 blocks",
                              "definitely lost: 1,000 bytes in 1 blocks",
                              "definitely lost: 2,000 bytes in 2 blocks",
                              "definitely lost: 2,000 bytes in 2 blocks",
                              "definitely lost: 1,000 bytes in 1 blocks"])

    def test_heuristics(self):
        ev = self.same("mc_leak_heuristics")
        for h in ("stdstring", "length64", "newarray", "multipleinheritance"):
            self.assertIn(h, " ".join(ev))
        self.assertEqual(ev[-1], "All heap blocks were freed -- no leaks are possible")

    def test_recursive_tree(self):
        # Stale pointers to the nodes in stack that exit()'s frames cover
        # unwritten: memcheck does not take them, nor may memgrow.
        ev = summary_lines(self.same("leak_tree_recursive"))
        self.assertEqual(ev[:2], ["definitely lost: 48 bytes in 1 blocks",
                                  "indirectly lost: 672 bytes in 14 blocks"])
        self.assertEqual(ev[3], "still reachable: 0 bytes in 0 blocks")

    def test_pool(self):
        # The cells held only in main's dead frame are lost, whatever
        # exit()'s frames (and memgrow's wrapper of it) pushed over them.
        for mode in range(6):
            with self.subTest(mode=mode):
                ev = summary_lines(self.same(f"mc_leak_pool {mode}"))
                if mode == 0:
                    self.assertEqual(ev[:2], ["definitely lost: 1,608 bytes in 100 blocks",
                                              "indirectly lost: 16 bytes in 1 blocks"])


if __name__ == "__main__":
    unittest.main()
