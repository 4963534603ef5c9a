# SPDX-License-Identifier: GPL-2.0-or-later
"""Python programs that show each behaviour, classified at their Python
lines from the JSON report: an ever-growing dict → growing and a bounded
deque → plateau on every interpreter; on the representative ones (mgtest),
stored exc_info tuples → growing; buffers rebuilt longer each turn → growing; lru_cache bounded → plateau, unbounded →
growing; collected reference cycles, a steady loop and `-c pass` → nothing
growing or leaked (test_python.py runs the steady loop and `-c pass` on
every interpreter)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import (SRC, TestCase, describe, python_interpreters,  # noqa: E402
                    representative_interpreters, run, source_line)

INTERPRETERS = python_interpreters()
REPRESENTATIVE = representative_interpreters()
MALLOC = {"PYTHONMALLOC": "malloc"}


def script(name):
    return os.path.join(SRC, "tests", "regress", name)


def innermost_python(site, name):
    """The site's innermost Python frame, if it is in script `name`."""
    for f in site["frames"]:
        if f["python"]:
            return f if os.path.basename(f["file"] or "") == name else None
    return None


def classes_at(report, name, line):
    """Classes of the sites whose innermost Python frame is name:line."""
    return {s["class"] for s in report["sites"]
            if (f := innermost_python(s, name)) and f["line"] == line}


def script_sites(report, name):
    return [s for s in report["sites"]
            if any(f["python"] and os.path.basename(f["file"] or "") == name
                   for f in s["frames"])]


class Behaviour(TestCase):
    def each(self, name, *args, interpreters=REPRESENTATIVE):
        for interp, py in interpreters.items():
            with self.subTest(interpreter=interp, script=name):
                r = run([*py.argv, script(name), *args], env=MALLOC)
                self.assertEqual(r.rc, 0, r.log)
                yield r.report

    def assertClassAt(self, report, name, marker, cls):
        line = source_line(os.path.join("tests", "regress", name), marker)
        self.assertIn(cls, classes_at(report, name, line), f"{name}:{line}\n{describe(report)}")

    def assertNoPythonSite(self, report, classes):
        """No Python site (classified on the summed series) has these classes."""
        self.assertIn("python_sites", report)
        bad = [(ps["class"], ps["frames"][:2]) for ps in report["python_sites"]
               if ps["class"] in classes]
        self.assertFalse(bad)

    def assertNothingGrows(self, report, name):
        bad = [s for s in script_sites(report, name) if s["class"] in ("growing", "leaked")]
        self.assertFalse(bad, describe(report))

    def test_statistics_dict_grows_at_the_insert(self):
        for rep in self.each("py_stats_dict.py", interpreters=INTERPRETERS):
            self.assertClassAt(rep, "py_stats_dict.py", "STATS_INSERT", "growing")
            # The request's temporary buffer comes and goes.
            self.assertNotIn("growing", classes_at(rep, "py_stats_dict.py", source_line(
                "tests/regress/py_stats_dict.py", "temporary: freed") ))

    def test_bounded_deque_is_a_plateau(self):
        for rep in self.each("py_deque.py", interpreters=INTERPRETERS):
            self.assertClassAt(rep, "py_deque.py", "DEQUE_RECORD", "plateau")
            self.assertNothingGrows(rep, "py_deque.py")

    def test_stored_exc_info_grows(self):
        for rep in self.each("py_exc_info.py"):
            # The buffers pinned by each traceback's frame.
            self.assertClassAt(rep, "py_exc_info.py", "EXC_BUFFER", "growing")

    def test_lru_cache_bounded_plateau_unbounded_growing(self):
        for rep in self.each("py_lru.py", "bounded"):
            self.assertClassAt(rep, "py_lru.py", "LRU_RENDER", "plateau")
            self.assertNothingGrows(rep, "py_lru.py")
        for rep in self.each("py_lru.py", "unbounded"):
            self.assertClassAt(rep, "py_lru.py", "LRU_RENDER", "growing")

    def test_buffers_rebuilt_longer_grow(self):
        # Issue 43, B11: under the bytes clock the buffers' own copies carry
        # the clock over the buckets' ends; sampled with the new copy in
        # flight beside the old, four buffers were a plateau, one stable; and
        # the deque's bound on their count was taken for a bound on their bytes.
        for rep in self.each("py_grow_bytes.py"):
            self.assertClassAt(rep, "py_grow_bytes.py", "REBUILT_FOUR", "growing")
            self.assertClassAt(rep, "py_grow_bytes.py", "REBUILT_ONE", "growing")

    def test_collected_cycles_do_not_grow(self):
        for rep in self.each("py_gc_cycles.py"):
            line = source_line("tests/regress/py_gc_cycles.py", "CYCLE_DATA")
            self.assertTrue(classes_at(rep, "py_gc_cycles.py", line), describe(rep))
            self.assertNothingGrows(rep, "py_gc_cycles.py")

    def test_steady_loop_has_nothing_growing_or_leaked(self):
        for rep in self.each("py_steady.py"):
            self.assertTrue(script_sites(rep, "py_steady.py"))
            self.assertNoClass(rep, "growing")
            self.assertNoClass(rep, "leaked")
            self.assertNoPythonSite(rep, ("growing", "leaked"))

    def test_pass_has_nothing_growing_or_leaked(self):
        for interp, py in REPRESENTATIVE.items():
            with self.subTest(interpreter=interp):
                r = run([*py.argv, "-c", "pass"], env=MALLOC)
                self.assertEqual(r.rc, 0, r.log)
                self.assertNoClass(r.report, "growing")
                self.assertNoClass(r.report, "leaked")
                self.assertNoPythonSite(r.report, ("growing", "leaked"))
                self.assertEqual(r.report["leak_check"]["definite"]["bytes"], 0)


if __name__ == "__main__":
    unittest.main()
