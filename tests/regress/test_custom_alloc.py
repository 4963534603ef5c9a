# SPDX-License-Identifier: GPL-2.0-or-later
"""Custom allocators annotated for memcheck (valgrind.h): MALLOCLIKE /
FREELIKE / RESIZEINPLACE blocks and mempool chunks are heap blocks with
sites (growth, classes, leaks at the annotated call), and their errors read
as memcheck's, compared with memcheck's own log for the same program
(test_leaks.py compares the leak totals)."""
import concurrent.futures
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import TestCase, frames_text, program, run, sites_at, source_line  # noqa: E402
from test_leaks import memcheck  # noqa: E402

ARENA = "tests/regress/custom_arena.c"
POOL = "tests/regress/custom_pool.c"
YES = ["--addressability=yes", "--leak-check=no"]


def line(path, marker):
    return source_line(path, f"/* {marker}")


def error_blocks(log):
    """Each error of a log (headline to the blank line after it) as memcheck
    prints it, without process ids, addresses and at/by, and without the
    frames of the tools' own preloads (memcheck shows its malloc
    replacement)."""
    out, block = [], None
    for raw in log.splitlines():
        m = re.match(r"^==\d+== ?(.*)$", raw)
        if not m:
            continue
        text = m.group(1)
        if block is None:
            if re.match(r"(Invalid |Illegal |Mismatched )", text):
                block = [text]
            continue
        if not text.strip():
            out.append(block)
            block = None
        elif "vgpreload_" not in text:
            text = re.sub(r"^(\s+)(at|by) ", r"\1", text)  # the frame below memcheck's malloc
            block.append(re.sub(r"0x[0-9A-Fa-f]+", "0x?", text))
    return out


def site_at(test, report, path, marker):
    sites = sites_at(report, file=os.path.basename(path), line=line(path, marker))
    test.assertEqual(len(sites), 1, f"{marker}: {[frames_text(s) for s in sites]}")
    return sites[0]


class Compared(TestCase):
    """Runs memcheck and memgrow on the same programs, all at once."""

    RUNS = {
        "arena-uaf": ("custom_arena", ["uaf"]),
        "arena-uaf-mmap": ("custom_arena", ["uaf", "mmap"]),
        "arena-badfree": ("custom_arena", ["badfree"]),
        "pool-bad": ("custom_pool", ["bad"]),
        "pool-uaf": ("custom_pool", ["uaf"]),
    }

    @classmethod
    def setUpClass(cls):
        cls.futures = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            cls.futures["arena"] = pool.submit(run, [program("custom_arena")])
            cls.futures["pool"] = pool.submit(run, [program("custom_pool")])
            for name, (prog, args) in cls.RUNS.items():
                argv = [program(prog), *args]
                cls.futures[("memcheck", name)] = pool.submit(memcheck, argv, ["--leak-check=no"])
                cls.futures[("memgrow", name)] = pool.submit(run, argv, YES)

    def same_errors(self, name, count):
        """memgrow's errors are memcheck's, in its words; returns memgrow's run."""
        rc, mc_log = self.futures[("memcheck", name)].result()
        r = self.futures[("memgrow", name)].result()
        mine, theirs = error_blocks(r.log), error_blocks(mc_log)
        self.assertEqual(len(theirs), count, mc_log)
        self.assertEqual(mine, theirs, f"--- memgrow:\n{r.log}\n--- memcheck:\n{mc_log}")
        return r

    # -- growth, classes and leaks -------------------------------------------

    def test_malloclike_sites_grow_and_leak_at_the_annotated_call(self):
        r = self.futures["arena"].result()
        rep = r.report
        grow = site_at(self, rep, ARENA, "GROW_HERE")
        self.assertEqual(grow["class"], "growing", frames_text(grow))
        self.assertEqual((grow["live_blocks"], grow["live_bytes"]), (20000, 20000 * 32))
        # The stack of the MALLOCLIKE request: the allocator, then its caller.
        self.assertEqual([f["function"] for f in grow["frames"][:3]],
                         ["arena_alloc", "remember", "main"])
        self.assertEqual(grow["frames"][0]["line"], line(ARENA, "MALLOCLIKE_HERE"))
        lost = site_at(self, rep, ARENA, "LOST_HERE")
        self.assertEqual(lost["class"], "leaked")
        self.assertEqual((lost["lost"]["definite"], lost["lost_blocks"]["definite"]), (20000, 100))
        churn = site_at(self, rep, ARENA, "CHURN_HERE")
        self.assertEqual(churn["class"], "stable")
        self.assertEqual((churn["live_bytes"], churn["allocated_blocks"]), (0, 20000))
        # RESIZEINPLACE: the buffer's site holds its new size.
        buffer = site_at(self, rep, ARENA, "BUFFER_HERE")
        self.assertEqual((buffer["live_bytes"], buffer["live_blocks"]), (150, 1))
        # The loss record, as memcheck prints it.
        record = re.search(r"20,000 bytes in 100 blocks are definitely lost in loss record \d+ of "
                           r"\d+\n==\d+==    at 0x[0-9a-f]+: arena_alloc \(custom_arena.c:(\d+)\)\n"
                           r"==\d+==    by 0x[0-9a-f]+: lose \(custom_arena.c:(\d+)\)", r.log)
        self.assertIsNotNone(record, r.log)
        self.assertEqual(record.groups(), (str(line(ARENA, "MALLOCLIKE_HERE")),
                                           str(line(ARENA, "LOST_HERE"))))
        self.assertEqual(r.rc, 0, r.log)

    def test_mempool_chunks_are_blocks_with_sites(self):
        r = self.futures["pool"].result()
        rep = r.report
        self.assertIn("exists: old 0 new 1", r.log)  # MOVE_MEMPOOL, MEMPOOL_EXISTS
        grow = site_at(self, rep, POOL, "GROW_HERE")
        self.assertEqual(grow["class"], "growing", frames_text(grow))
        self.assertEqual((grow["live_blocks"], grow["live_bytes"]), (5000, 5000 * 32))
        self.assertEqual([f["function"] for f in grow["frames"][:2]], ["pool_alloc", "remember"])
        lost = site_at(self, rep, POOL, "LOST_HERE")
        self.assertEqual((lost["class"], lost["lost"]["definite"]), ("leaked", 320))
        # MEMPOOL_CHANGE resized one of the ten kept chunks to 120 bytes;
        # the eleventh, freed, is gone.
        kept = site_at(self, rep, POOL, "KEPT_HERE")
        self.assertEqual((kept["live_blocks"], kept["live_bytes"]), (10, 9 * 100 + 120))
        # DESTROY_MEMPOOL took its chunks: not leaks, nothing live.
        destroyed = site_at(self, rep, POOL, "DESTROYED_HERE")
        self.assertEqual((destroyed["live_bytes"], destroyed["allocated_bytes"]), (0, 3 * 256))
        self.assertEqual(destroyed["lost"]["definite"], 0)
        # MEMPOOL_TRIM freed two chunks and cut one to 24 bytes.
        trimmed = site_at(self, rep, POOL, "TRIMMED_HERE")
        self.assertEqual((trimmed["live_blocks"], trimmed["live_bytes"]), (2, 48 + 24))
        self.assertEqual(rep["errors"], [], r.log)

    # -- errors, as memcheck words them ---------------------------------------

    def test_use_after_freelike_and_redzone_write(self):
        for name in ("arena-uaf", "arena-uaf-mmap"):
            with self.subTest(name=name):
                r = self.same_errors(name, 2)
                kinds = [(e["kind"], e["frames"][0]["line"]) for e in r.report["errors"]]
                self.assertEqual(kinds, [("Addr1", line(ARENA, "READ_FREED")),
                                         ("Addr1", line(ARENA, "WRITE_REDZONE"))])
        # From an mmap()ed arena: the freed block, where FREELIKE freed it
        # and where MALLOCLIKE allocated it.
        e = self.futures[("memgrow", "arena-uaf-mmap")].result().report["errors"][0]
        self.assertRegex(e["description"], r"is 8 bytes inside a block of size 40 free'd$")
        self.assertEqual(e["free_frames"][0]["line"], line(ARENA, "FREELIKE_HERE"))
        self.assertEqual(e["alloc_frames"][0]["line"], line(ARENA, "MALLOCLIKE_HERE"))

    def test_freelike_of_no_block_is_an_invalid_free(self):
        r = self.same_errors("arena-badfree", 1)
        self.assertEqual(error_blocks(r.log)[0][0], "Invalid free() / delete / delete[] / realloc()")
        (e,) = r.report["errors"]
        self.assertEqual((e["kind"], e["frames"][0]["line"]), ("InvalidFree",
                                                               line(ARENA, "FREELIKE_HERE")))

    def test_bad_pool_and_bad_chunk(self):
        r = self.same_errors("pool-bad", 2)
        heads = [b[0] for b in error_blocks(r.log)]
        self.assertEqual(heads, ["Illegal memory pool address",
                                 "Invalid free() / delete / delete[] / realloc()"])
        self.assertEqual([(e["kind"], e["frames"][0]["line"]) for e in r.report["errors"]],
                         [("InvalidMemPool", line(POOL, "BAD_POOL")),
                          ("InvalidFree", line(POOL, "BAD_CHUNK"))])

    def test_freed_chunk_redzone_and_trimmed_chunk(self):
        r = self.same_errors("pool-uaf", 3)
        self.assertIn("is 0 bytes after a block of size 100 client-defined", r.log)
        self.assertIn("is 6 bytes after a block of size 24 client-defined", r.log)


if __name__ == "__main__":
    unittest.main()
