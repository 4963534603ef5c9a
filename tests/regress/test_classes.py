# SPDX-License-Identifier: GPL-2.0-or-later
"""Growth classes of small C and C++ programs, read from the JSON report."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import TestCase, program, run, source_line, sites_at, describe  # noqa: E402

SRC = "tests/regress"


class Classes(TestCase):
    def test_growing_list_from_global(self):
        r = run([program("grow_list")]).report
        line = source_line(f"{SRC}/grow_list.c", "GROW_HERE")
        site = self.assertClass(r, "growing", file="grow_list.c", line=line)[0]
        self.assertEqual(site["live_blocks"], 20000)
        self.assertEqual(site["live_bytes"], 20000 * 104)
        self.assertGreater(site["growth"]["rate"], 0)
        self.assertGreater(site["growth"]["confidence"], 0.9)
        # The frames name the function, file and line, innermost first.
        frames = site["frames"]
        self.assertEqual(frames[0]["function"], "remember")
        self.assertEqual(frames[1]["function"], "main")
        self.assertTrue(frames[0]["object"].endswith("grow_list"))
        churn = source_line(f"{SRC}/grow_list.c", "CHURN_HERE")
        self.assertClass(r, "stable", file="grow_list.c", line=churn)
        # The series has one value per bucket, ending at teardown.
        self.assertEqual(len(site["series"]), len(r["buckets"]))
        self.assertLessEqual(len(r["buckets"]), 64)
        self.assertEqual(r["buckets"][-1]["end"], r["teardown_at"])
        self.assertEqual(r["teardown"], "exit")

    def test_ring_freeing_the_oldest_is_plateau(self):
        r = run([program("ring_plateau")]).report
        line = source_line(f"{SRC}/ring_plateau.c", "RING_HERE")
        site = self.assertClass(r, "plateau", file="ring_plateau.c", line=line)[0]
        self.assertEqual(site["live_bytes"], 500 * 256)
        self.assertIsNotNone(site["growth"]["stopped_at"])
        self.assertNoClass(r, "growing")

    def test_vector_resize_staircase(self):
        """A vector filled steadily resizes in doubling steps at doubling
        intervals: growing while its next resize is not due, a plateau once
        long overdue (docs/classification.md, resize staircase)."""
        line = source_line(f"{SRC}/vector_staircase.cpp", "VECTOR_PUSH")
        r = run([program("vector_staircase"), "filling"]).report
        site = self.assertClass(r, "growing", file="vector_staircase.cpp", line=line)[0]
        g = site["growth"]
        self.assertEqual(g["rule"], "staircase", describe(r))
        self.assertGreaterEqual(g["staircase_steps"], 3)
        self.assertGreater(g["next_step_at"], r["teardown_at"])  # not due yet
        self.assertNoClass(r, "plateau")
        r = run([program("vector_staircase"), "bounded"]).report
        site = self.assertClass(r, "plateau", file="vector_staircase.cpp", line=line)[0]
        g = site["growth"]
        self.assertEqual(g["rule"], "level")
        self.assertGreaterEqual(g["staircase_steps"], 3)
        self.assertLess(g["next_step_at"], r["teardown_at"] * 3 // 4)  # long overdue
        self.assertNoClass(r, "growing")

    def test_churn_is_stable(self):
        r = run([program("churn")]).report
        self.assertNoClass(r, "growing")
        self.assertNoClass(r, "plateau")
        line = source_line(f"{SRC}/churn.c", "CHURN_HERE")
        self.assertClass(r, "stable", file="churn.c", line=line)

    def test_churn_with_nothing_live_is_stable(self):
        # Issue 43, B12: the block whose own bytes carried the clock over a
        # bucket's end was counted live there; the site held 4,096 bytes at
        # every end and was a plateau of 0 bytes.
        r = run([program("churn_none_live")]).report
        line = source_line(f"{SRC}/churn_none_live.c", "CHURN_NONE_LIVE")
        for site in self.assertClass(r, "stable", file="churn_none_live.c", line=line):
            self.assertEqual(site["live_bytes"], 0)
            # Only while the buckets were narrower than a block (the first
            # 64 blocks: 8 buckets of the end's width) does a block span
            # several ends, and count at those past the first.
            self.assertEqual(max(site["series"][8:]), 0, site["series"])
        self.assertNoClass(r, "plateau")
        self.assertNoClass(r, "growing")

    def test_one_big_startup_allocation_is_stable(self):
        r = run([program("startup_big")]).report
        line = source_line(f"{SRC}/startup_big.c", "BIG_HERE")
        site = self.assertClass(r, "stable", file="startup_big.c", line=line)[0]
        self.assertEqual(site["live_bytes"], 8 << 20)
        self.assertNoClass(r, "growing")
        self.assertNoClass(r, "plateau")

    def test_vector_of_strings_filled_and_cleared_is_stable(self):
        r = run([program("vector_strings")]).report
        line = source_line(f"{SRC}/vector_strings.cpp", "FILL_HERE")
        self.assertTrue(sites_at(r, file="vector_strings.cpp", line=line), describe(r))
        self.assertNoClass(r, "growing")
        self.assertNoClass(r, "plateau")

    def test_memo_freed_by_static_destructor_is_still_growing(self):
        r = run([program("memo_static_dtor")]).report
        line = source_line(f"{SRC}/memo_static_dtor.cpp", "MEMO_HERE")
        growing = self.assertClass(r, "growing", file="memo_static_dtor.cpp", line=line)
        # The destructor freed everything after teardown began...
        for site in growing:
            self.assertEqual(site["at_exit_bytes"], 0)
            self.assertGreater(site["live_bytes"], 0)
        # ...and the biggest of them holds about a node per key.
        self.assertGreaterEqual(max(s["live_blocks"] for s in growing), 20000)
        self.assertEqual(r["teardown"], "exit")

    def test_local_of_main_freed_as_it_returns_is_still_growing(self):
        r = run([program("local_list")]).report
        line = source_line(f"{SRC}/local_list.c", "GROW_HERE")
        site = self.assertClass(r, "growing", file="local_list.c", line=line)[0]
        self.assertTrue(site["growth"]["released_at_end"])
        self.assertEqual(site["peak_bytes"], 20000 * 80)
        self.assertEqual(site["at_exit_bytes"], 0)

    def test_same_run_classifies_the_same_way_twice(self):
        a = run([program("grow_list"), "5000"]).report
        b = run([program("grow_list"), "5000"]).report
        key = lambda rep: sorted((s["class"], tuple(s["series"]), s["frames"][0]["line"])
                                 for s in rep["sites"] if s["frames"])
        self.assertEqual(key(a), key(b))
        self.assertEqual(a["teardown_at"], b["teardown_at"])


if __name__ == "__main__":
    unittest.main()
