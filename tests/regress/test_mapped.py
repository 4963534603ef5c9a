# SPDX-License-Identifier: GPL-2.0-or-later
"""The "mapped" space (docs/pages.md): anonymous memory the client maps
itself (mmap, mremap, munmap, brk) is one block per mapping at the stack
that mapped it, with its series, class and leak check, in both report
formats. Two pools in C (one grows, with a partial munmap, a hole, an
mremap and a leaked scratch mapping; one recycles) and a real allocator:
CPython's pymalloc, whose arenas are mmap()ed, Python lines included."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import SRC, program, run, sites_at, source_line  # noqa: E402

PAGE = 4096
KIB = 1024


def mapped_at(report, source, marker):
    line = source_line(source, marker)
    return [s for s in sites_at(report, file=os.path.basename(source), line=line)
            if s["space"] == "mapped"]


class MappedPools(unittest.TestCase):
    def check_grow(self, options=()):
        src = "tests/regress/mmap_pool_grow.c"
        r = run([program("mmap_pool_grow"), "200"], options=options)
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        mapped = [s for s in rep["sites"] if s["space"] == "mapped"]
        # Only the program's own mappings: not the loader's, not Valgrind's.
        for s in mapped:
            self.assertTrue(sites_at({"sites": [s]}, file="mmap_pool_grow.c"), s["frames"])
            self.assertNotIn("device", s)
        [grow] = mapped_at(rep, src, "GROW_HERE")
        self.assertEqual(grow["class"], "growing", grow)
        # 200 chunks, every fourth trimmed to its lower half.
        self.assertEqual(grow["live_blocks"], 200)
        self.assertEqual(grow["live_bytes"], 150 * 256 * KIB + 50 * 128 * KIB)
        self.assertEqual(grow["allocated_bytes"], 200 * 256 * KIB)
        self.assertEqual(grow["series"][-1], grow["live_bytes"])
        [leak] = mapped_at(rep, src, "LEAK_HERE")
        self.assertEqual(leak["class"], "leaked", leak)
        # Ten scratch mappings, all lost; one may lie where a pointer one
        # past the end of a neighbouring mapping points (ld.so's
        # `alloc_end`): reachable, as memcheck would say of a heap block.
        self.assertGreaterEqual(leak["lost"]["definite"], 9 * 64 * KIB, leak)
        self.assertEqual(leak["live_bytes"], 10 * 64 * KIB)
        # Reachable through their globals.
        self.assertEqual(grow["lost"]["definite"] + grow["lost"]["indirect"], 0)
        [hole] = mapped_at(rep, src, "HOLE_HERE")
        self.assertEqual((hole["live_blocks"], hole["live_bytes"]), (2, 2 * PAGE))
        self.assertEqual(hole["class"], "stable", hole)
        # mremap is as realloc: the buffer's bytes move to the mremap's site.
        [start] = mapped_at(rep, src, "REMAP_START")
        self.assertEqual(start["live_bytes"], 0)
        [remap] = mapped_at(rep, src, "REMAP_HERE")
        self.assertEqual(remap["live_blocks"], 1)
        self.assertIn(f"growable {remap['live_bytes']}", r.log)
        # The break moved up by 16 pages at sbrk's call.
        [brk] = mapped_at(rep, src, "BRK_HERE")
        self.assertEqual((brk["live_blocks"], brk["live_bytes"], brk["class"]),
                         (1, 16 * PAGE, "stable"), brk)
        # A reservation is no memory until mprotect commits part of it.
        [commit] = mapped_at(rep, src, "COMMIT_HERE")
        self.assertEqual((commit["live_blocks"], commit["live_bytes"]), (1, 8 * PAGE), commit)
        # The heap's own site is not mixed in.
        self.assertEqual({s["space"] for s in rep["sites"]} - {"host", "mapped"}, set())
        # The buckets split live bytes by space.
        last = rep["buckets"][-1]["spaces"]
        self.assertGreaterEqual(last["mapped"]["live_bytes"], grow["live_bytes"])
        return r

    def test_growing_pool_partial_unmaps_and_a_leaked_mapping(self):
        r = self.check_grow()
        self.assertRegex(r.log, r"GROWING \d+ of \d+: .*mapped space")

    def test_format_1_and_the_growth_hunt_say_the_same(self):
        self.check_grow(options=["--json-format=1", "--addressability=no"])

    def test_recycling_pool_is_stable(self):
        src = "tests/regress/mmap_pool_recycle.c"
        r = run([program("mmap_pool_recycle"), "400"])
        self.assertEqual(r.rc, 0, r.log)
        [pool] = mapped_at(r.report, src, "POOL_HERE")
        self.assertEqual(pool["class"], "stable", pool)
        self.assertEqual((pool["live_blocks"], pool["live_bytes"]), (4, 4 * 128 * KIB))
        self.assertEqual(pool["allocated_blocks"], 4)
        [scratch] = mapped_at(r.report, src, "SCRATCH_HERE")
        self.assertEqual(scratch["class"], "stable", scratch)
        self.assertEqual((scratch["live_bytes"], scratch["allocated_blocks"]), (0, 400))
        bad = [s for s in r.report["sites"] if s["space"] == "mapped"
               and s["class"] in ("leaked", "growing")]
        self.assertEqual(bad, [])


class PymallocArenas(unittest.TestCase):
    """CPython's obmalloc maps its 1 MiB arenas itself (3.10 and later)."""

    def test_arenas_are_charged_to_the_growing_line(self):
        src = "tests/regress/py_mapped_arenas.py"
        r = run([sys.executable, os.path.join(SRC, src), "400"],
                env={"PYTHONMALLOC": "pymalloc"})
        self.assertEqual(r.rc, 0, r.log)
        grow = mapped_at(r.report, src, "GROW_HERE")
        self.assertTrue(grow, [s["frames"] for s in r.report["sites"] if s["space"] == "mapped"])
        # The arenas' sites name CPython's allocator below the Python line.
        for s in grow:
            self.assertIn("_PyObject_ArenaMmap", [f["function"] for f in s["frames"]])
        # The Python site sums them by line: 400 steps keep 120,000 tuples,
        # several arenas, and take more to the end.
        line = source_line(src, "GROW_HERE")
        [py] = [p for p in r.report["python_sites"] if p["space"] == "mapped"
                and p["frames"][0]["line"] == line]
        self.assertEqual(py["class"], "growing", py)
        self.assertGreaterEqual(py["live_bytes"], 4 << 20)
        self.assertEqual(py["live_bytes"] % (1 << 20), 0)  # whole arenas of 1 MiB

if __name__ == "__main__":
    unittest.main()
