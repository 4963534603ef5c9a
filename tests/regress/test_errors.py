# SPDX-License-Identifier: GPL-2.0-or-later
"""Bad frees are Valgrind errors with stacks, in the log and the report, and
never crash the tool."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import TestCase, program, run, source_line, valgrind_version  # noqa: E402

SRC = "tests/regress"


def lines_of(frames):
    return [(os.path.basename(f["file"] or ""), f["line"]) for f in frames]


class Errors(TestCase):
    def test_double_free_has_three_stacks(self):
        # Without A-bits the freed memory goes back at once and only its
        # record waits; with them the memory is held too (the quarantine).
        for addressability in ("no", "yes"):
            with self.subTest(addressability=addressability):
                r = run([program("double_free")], options=[f"--addressability={addressability}"])
                self.assertIn("still running", r.log)
                self.assertIn("Double free: free() of a block already freed", r.log)
                self.assertIn("ERROR SUMMARY: 1 errors from 1 contexts", r.log)
                (e,) = r.report["errors"]
                self.assertEqual(e["kind"], "DoubleFree")
                self.assertEqual(e["size"], 40)
                src = f"{SRC}/double_free.c"
                self.assertIn(("double_free.c", source_line(src, "SECOND_FREE")),
                              lines_of(e["frames"]))
                self.assertIn(("double_free.c", source_line(src, "FIRST_FREE")),
                              lines_of(e["free_frames"]))
                self.assertIn(("double_free.c", source_line(src, "ALLOC_HERE")),
                              lines_of(e["alloc_frames"]))
                # The same lines appear in the log's stacks.
                self.assertIn(f"double_free.c:{source_line(src, 'FIRST_FREE')}", r.log)
                self.assertIn(f"double_free.c:{source_line(src, 'ALLOC_HERE')}", r.log)

    def test_first_free_is_known_after_the_free_stacks_are_compacted(self):
        # A million distinct free stacks make memgrow forget the ones no
        # quarantined block holds (twice here); the block freed first is
        # still quarantined, and its free stack survives every compaction.
        r = run([program("free_stacks_many")], options=["-v", "--num-callers=40"])
        self.assertIn("still running", r.log)
        compactions = int(re.search(r"free stacks: ([\d,]+) compactions", r.log)[1].replace(",", ""))
        self.assertGreaterEqual(compactions, 1)
        (e,) = r.report["errors"]
        self.assertEqual(e["kind"], "DoubleFree")
        src = f"{SRC}/free_stacks_many.c"
        self.assertEqual(lines_of(e["free_frames"])[1:],
                         [("free_stacks_many.c", source_line(src, "FIRST_FREE")),
                          ("free_stacks_many.c", source_line(src, "release(p);"))])
        self.assertIn(("free_stacks_many.c", source_line(src, "SECOND_FREE")),
                      lines_of(e["frames"]))

    def test_mismatched_frees(self):
        r = run([program("mismatched_delete")])
        self.assertIn("still running", r.log)
        errors = r.report["errors"]
        # From Valgrind 3.22, as memcheck, `delete array` (a sized delete of
        # 4 bytes) is also a SizeMismatch (test_alloc_checks.py).
        if valgrind_version() >= (3, 22):
            self.assertEqual(errors[0]["kind"], "SizeMismatch")
            self.assertIn("Mismatched new/delete size value: 4", r.log)
            errors = errors[1:]
        self.assertIn(f"ERROR SUMMARY: {len(r.report['errors'])} errors from "
                      f"{len(r.report['errors'])} contexts", r.log)
        self.assertEqual([e["kind"] for e in errors], ["MismatchedFree"] * 3)
        src = f"{SRC}/mismatched_delete.cpp"
        where = [lines_of(e["frames"]) for e in errors]
        for marker in ("DELETE_SCALAR_HERE", "FREE_ON_NEW_HERE", "DELETE_ARRAY_ON_MALLOC_HERE"):
            line = ("mismatched_delete.cpp", source_line(src, marker))
            self.assertTrue(any(line in w for w in where), f"{marker}: {where}")
        self.assertIn(("mismatched_delete.cpp", source_line(src, "NEW_ARRAY_HERE")),
                      lines_of(errors[0]["alloc_frames"]))
        self.assertIn("Mismatched free() / delete / delete []: delete of a block from new[]", r.log)

    def test_wild_and_interior_frees_are_reported_not_fatal(self):
        r = run([program("bad_frees")])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("still running (nil)", r.log)
        kinds = [e["kind"] for e in r.report["errors"]]
        self.assertEqual(kinds, ["InvalidFree"] * 4)
        # memcheck's words for each, and its description of the address
        self.assertEqual(r.log.count("Invalid free() / delete / delete[] / realloc()"), 4, r.log)
        self.assertRegex(r.log, r"Address 0x[0-9a-f]+ is on thread 1's stack")
        self.assertIn("is 8 bytes inside a block of size 64 alloc'd", r.log)
        self.assertIn("Address 0x5678 is not stack'd, malloc'd or (recently) free'd", r.log)
        self.assertIn("ERROR SUMMARY: 4 errors from 4 contexts", r.log)
        # The block freed through an interior pointer is still live and then
        # freed properly: no error for that.
        self.assertNotIn("DoubleFree", kinds)

    def test_error_exitcode(self):
        r = run([program("double_free")], options=["--error-exitcode=42"])
        self.assertEqual(r.rc, 42)
        r = run([program("grow_list"), "100"], options=["--error-exitcode=42"])
        self.assertEqual(r.rc, 0)

    def test_errors_can_be_suppressed(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".supp", delete=False) as f:
            f.write("{\n   double free in release\n   memgrow:DoubleFree\n   fun:free\n"
                    "   fun:main\n}\n")
        try:
            r = run([program("double_free")], options=[f"--suppressions={f.name}", "-v"])
        finally:
            os.unlink(f.name)
        self.assertIn("ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 1 from 1)", r.log)

    def test_gen_suppressions_names_the_kind(self):
        r = run([program("double_free")], options=["--gen-suppressions=all"])
        self.assertIn("memgrow:DoubleFree", r.log)


if __name__ == "__main__":
    unittest.main()
