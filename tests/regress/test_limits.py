# SPDX-License-Identifier: GPL-2.0-or-later
"""Limits and overflows (docs/robustness.md).

A program's own RLIMIT_AS of 64 MiB: Valgrind's memory counted against it
and the core died at the program's first malloc; now the limit is the
program's (memgrow/intercept/mg_limits.cpp) and malloc returns NULL near
where it does natively, with a warning, and the report is written.

Writes past the end and before the start of heap blocks of 10 bytes to
5 MiB, by 1 to 4096 bytes, reach the client arena's bookkeeping; memcheck
(and memgrow before) then died in the arena ("the 'impossible' happened")
and lost the report. Each write is an error, and the run survives them all
(memgrow/intercept/mg_heap_guard.cpp, docs/addressability.md)."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import TestCase, program, run, sites_at, source_line  # noqa: E402

CRASH = r"impossible|Assertion|Valgrind cannot continue|Process terminating"
LIMIT_AS = "tests/regress/limit_as.c"


class AddressSpaceLimit(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = run([program("limit_as")])

    def test_the_program_runs_to_its_end_and_the_report_is_written(self):
        self.assertEqual(self.r.rc, 0, self.r.log[-3000:])
        self.assertNotRegex(self.r.log, CRASH)
        self.assertIn("after freeing them: malloc(100) works", self.r.log)
        line = source_line(LIMIT_AS, "LIMIT_MALLOC")
        sites = sites_at(self.r.report, file="limit_as.c", line=line)
        self.assertTrue(sites, self.r.log[-3000:])
        self.assertGreaterEqual(max(s["peak_bytes"] for s in sites), 40 << 20)

    def test_malloc_fails_near_where_it_fails_natively(self):
        # Natively 61 blocks of 1 MiB fit beside the program's 3 MiB.
        n = int(re.search(r"malloc returned NULL after (\d+) blocks", self.r.log).group(1))
        self.assertTrue(40 <= n < 64, n)

    def test_the_program_reads_its_own_limit_back(self):
        self.assertIn("set 67108864/67108864, read back 67108864/67108864", self.r.log)

    def test_the_refusal_is_said_once_with_its_stack(self):
        head = ("memgrow: malloc(1048576) returned NULL: the program's address-space limit "
                "(RLIMIT_AS, 67,108,864 bytes) is reached")
        self.assertEqual(self.r.log.count("returned NULL: the program's"), 1, self.r.log[-3000:])
        after = self.r.log.split(head, 1)[1]
        self.assertRegex(after, r"by 0x[0-9A-F]+: main \(limit_as.c:%d\)" % source_line(LIMIT_AS, "LIMIT_MALLOC"))


class Overflows(TestCase):
    def check(self, mode):
        r = run([program("heap_overflow"), mode], options=["--leak-check=no"], timeout=600)
        self.assertEqual(r.rc, 0, r.log[-3000:])
        self.assertNotRegex(r.log, CRASH)
        m = re.search(r"survived (\d+) bad bytes written", r.log)
        self.assertIsNotNone(m, r.log[-3000:])
        # Every byte written outside its block is one error (a byte store each).
        summary = re.search(r"ERROR SUMMARY: (\d+) errors", r.log)
        self.assertEqual(int(summary.group(1)), int(m.group(1)))
        writes = [e for e in r.report["errors"] if e["kind"] == "Addr1"
                  and e["message"] == "Invalid write of size 1"
                  and e["frames"][0]["function"] == "scribble"]
        self.assertEqual(sum(e["count"] for e in writes), int(m.group(1)))
        return writes

    def test_past_the_end(self):
        writes = self.check("after")
        self.assertTrue(any(re.search(r"is 0 bytes after a block of size 10 alloc'd", e["description"])
                            for e in writes), writes)

    def survives(self, mode):
        r = run([program("heap_overflow"), mode], options=["--leak-check=no"])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        self.assertNotRegex(r.log, CRASH)
        self.assertRegex(r.log, r"survived \d+ bad bytes written")
        return r.report["errors"]

    def test_stores_into_the_arena_next_to_a_megabyte(self):
        # The case (64 bytes past the end of a 1 MiB block, then
        # free), each store the first of its kind: its error's description
        # comes before the store, and must not undo the guard.
        errors = self.survives("far")
        self.assertEqual([(e["kind"], e["count"]) for e in errors], [("Addr8", 3)] * 3)

    def test_a_system_call_writing_past_the_end(self):
        errors = self.survives("syscall")
        self.assertEqual([(e["kind"], e["count"]) for e in errors], [("Param", 3)])
        self.assertRegex(errors[0]["description"], "is 0 bytes after a block of size 1,048,576 alloc'd")

    def test_before_the_start(self):
        writes = self.check("before")
        self.assertTrue(any(re.search(r"is 1 bytes before a block of size 10 alloc'd", e["description"])
                            for e in writes), writes)


if __name__ == "__main__":
    unittest.main()
