"""Writes past the end and before the start of heap blocks of 10 bytes to
5 MiB, by 1 to 4096 bytes, reach the client arena's bookkeeping; memcheck
(and memgrow before) then died in the arena ("the 'impossible' happened")
and lost the report. Each write is an error, and the run survives them all
(memgrow/intercept/mg_heap_guard.cpp, docs/addressability.md)."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import TestCase, program, run  # noqa: E402

CRASH = r"impossible|Assertion|Valgrind cannot continue|Process terminating"


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

    def test_before_the_start(self):
        writes = self.check("before")
        self.assertTrue(any(re.search(r"is 1 bytes before a block of size 10 alloc'd", e["description"])
                            for e in writes), writes)


if __name__ == "__main__":
    unittest.main()
