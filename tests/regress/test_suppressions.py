# SPDX-License-Identifier: GPL-2.0-or-later
"""Suppressions: a file silences exactly the sites it names (loss records and
growth classes), --gen-suppressions writes what silences what it printed, a
malformed file is a clear error, and the shipped defaults never hide growth
in the program's own code."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import mgtest  # noqa: E402
from mgtest import program, run, sites_at, source_line  # noqa: E402

SRC = "tests/regress/supp_sites.c"
PROG = program("supp_sites")


def line_of(marker):
    return source_line(SRC, f"/* {marker}")


def site(report, marker):
    sites = sites_at(report, file="supp_sites.c", line=line_of(marker))
    assert len(sites) == 1, f"{marker}: {len(sites)} sites\n{mgtest.describe(report)}"
    return sites[0]


def with_file(text, body):
    with tempfile.NamedTemporaryFile("w", suffix=".supp", delete=False) as f:
        f.write(text)
    try:
        return body(f.name)
    finally:
        os.unlink(f.name)


SUPP_A = """# silences lose_a's leak only
{
   lose_a
   memgrow:Leaked
   fun:lose_a
   fun:main
}
"""

SUPP_GROWTH = """{
   the list
   memgrow:Growing
   fun:grow_one
   ...
}
"""


class Suppressions(mgtest.TestCase):
    def test_a_suppression_silences_exactly_one_site(self):
        r = with_file(SUPP_A, lambda f: run([PROG], [f"--suppressions={f}",
                                                     "--error-exitcode=3"]))
        a, b = site(r.report, "LOSE_A"), site(r.report, "LOSE_B")
        self.assertEqual(a["lost"]["definite"], 100)
        self.assertTrue(a["lost_suppressed"], r.log)
        self.assertTrue(a["suppressed"], r.log)
        self.assertEqual(a["suppression"], "lose_a")
        self.assertEqual(b["lost"]["definite"], 200)
        self.assertFalse(b["lost_suppressed"], r.log)
        self.assertFalse(b["suppressed"], r.log)
        self.assertEqual(b["class"], "leaked")
        lc = r.report["leak_check"]
        self.assertEqual(lc["definite"], {"bytes": 200, "blocks": 1})
        self.assertEqual(lc["suppressed"], {"bytes": 100, "blocks": 1})
        self.assertIn("suppressed: 100 bytes in 1 blocks", r.log)
        self.assertNotIn(f"supp_sites.c:{line_of('LOSE_A')})", r.log)
        self.assertIn(f"supp_sites.c:{line_of('LOSE_B')})", r.log)
        # lose_b still fails the run; its growth stays listed.
        self.assertEqual(r.rc, 3, r.log)
        self.assertIn("GROWING 1 of 1", r.log)

    def test_growth_suppression_keeps_the_class_but_not_the_listing(self):
        r = with_file(SUPP_GROWTH, lambda f: run([PROG], [f"--suppressions={f}",
                                                          "--errors-for=growing",
                                                          "--error-exitcode=3"]))
        g = site(r.report, "GROW_HERE")
        self.assertEqual(g["class"], "growing")
        self.assertTrue(g["suppressed"], r.log)
        self.assertNotIn("GROWING 1 of", r.log)
        self.assertIn("suppressed: 1 sites", r.log)
        self.assertEqual(r.rc, 0, r.log)  # the only growing site is suppressed
        unsuppressed = run([PROG], ["--errors-for=growing", "--error-exitcode=3"])
        self.assertEqual(unsuppressed.rc, 3, unsuppressed.log)
        self.assertFalse(site(unsuppressed.report, "GROW_HERE")["suppressed"])

    def test_generated_suppressions_silence_what_was_printed(self):
        first = run([PROG], ["--gen-suppressions=all"])
        blocks = re.findall(r"^\{\n.*?^\}$", first.log, re.S | re.M)
        kinds = sorted(re.search(r"memgrow:(\w+)", b).group(1) for b in blocks)
        self.assertEqual(kinds, ["Growing", "Leaked", "Leaked"], first.log)
        second = with_file("\n".join(blocks) + "\n",
                           lambda f: run([PROG], [f"--suppressions={f}", "-v",
                                                  "--error-exitcode=3"]))
        for marker in ("LOSE_A", "LOSE_B", "GROW_HERE"):
            self.assertTrue(site(second.report, marker)["suppressed"], second.log)
        lc = second.report["leak_check"]
        self.assertEqual(lc["definite"]["bytes"], 0)
        self.assertEqual(lc["suppressed"], {"bytes": 300, "blocks": 2})
        self.assertEqual(len(re.findall(r"used_suppression: +1 <insert_a_suppression_name",
                                        second.log)), 3, second.log)
        self.assertEqual(second.rc, 0, second.log)

    def test_memcheck_style_leak_suppression_with_the_allocator_frame(self):
        text = "{\n   from memcheck\n   memcheck,memgrow:Leaked\n   fun:malloc\n" \
               "   fun:lose_b\n}\n"
        r = with_file(text, lambda f: run([PROG], [f"--suppressions={f}"]))
        self.assertTrue(site(r.report, "LOSE_B")["lost_suppressed"], r.log)
        self.assertFalse(site(r.report, "LOSE_A")["lost_suppressed"], r.log)

    def test_malformed_files_are_fatal_and_name_file_and_line(self):
        cases = [
            ("{\n   name\n   memgrow:Leaked\n   fun:lose_a\n", r"near line 4", "end-of-file"),
            ("{\n   name\n   memgrow:Leaked\n   bogus:lose_a\n}\n", r"near line 4",
             'expected "...", fun:, obj: or src:'),
            ("{\n   name\n   memgrow:NoSuchKind\n   fun:x\n}\n", r"near line \d",
             "unknown tool suppression type"),
            ("# ok\n\n   fun:x\n", r"near line 3", "expected '{'"),
        ]
        for text, where, what in cases:
            with self.subTest(text=text):
                def go(f):
                    r = run([PROG], [f"--suppressions={f}"])
                    self.assertNotEqual(r.rc, 0, r.log)
                    self.assertRegex(r.log, rf'FATAL: in suppressions file "{re.escape(f)}" '
                                     rf"{where}")
                    self.assertIn(what, r.log)
                    self.assertEqual(r.reports, [], "no report from a run that never started")
                with_file(text, go)
        r = run([PROG], ["--suppressions=/nonexistent/x.supp"])
        self.assertNotEqual(r.rc, 0)
        self.assertIn('can\'t open suppressions file "/nonexistent/x.supp"', r.log)

    def test_default_suppressions_are_loaded_and_can_be_turned_off(self):
        threads = program("leak_thread_stack")
        on = run([threads], ["-v"])
        self.assertEqual(on.report["leak_check"]["suppressed"]["bytes"], 272, on.log)
        self.assertRegex(on.log, r"used_suppression: +1 glibc: a running thread's dynamic "
                         r"thread vector .*memgrow-default\.supp:\d+")
        off = run([threads], ["--default-suppressions=no"])
        self.assertEqual(off.report["leak_check"]["suppressed"]["bytes"], 0, off.log)
        self.assertEqual(off.report["leak_check"]["possible"]["bytes"], 272, off.log)


PYTHON = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"],
                        capture_output=True, text=True, check=True).stdout.strip()

GROWTH_SCRIPT = """
import array
blobs = []
numbers = array.array("q")
for i in range(60000):
    blobs.append(bytes(600))  # GROW_BYTES: libpython's allocator paths
    numbers.append(i)         # GROW_ARRAY: a C extension's realloc
"""


class DefaultsDoNotHideGrowth(mgtest.TestCase):
    """Growth made through libpython's own allocation paths and through a C
    extension (array) is reported with the default suppressions on."""

    def test_python_growth_through_libpython_and_an_extension(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "grow.py")
            with open(script, "w") as f:
                f.write(GROWTH_SCRIPT)
            r = run([PYTHON, script], env={"PYTHONMALLOC": "malloc"}, timeout=600)
        self.assertEqual(r.rc, 0, r.log)
        growing = [s for s in r.report["sites"] if s["class"] == "growing"]
        self.assertTrue(growing, mgtest.describe(r.report))
        for s in growing:
            self.assertFalse(s["suppressed"], mgtest.frames_text(s))

        def grows_through(obj_part, function_part):
            for s in growing:
                objs = " ".join(f["object"] or "" for f in s["frames"])
                funs = " ".join(f["function"] or "" for f in s["frames"])
                if obj_part in objs and function_part in funs:
                    return True
            return False
        self.assertTrue(grows_through("libpython3", "_PyBytes_FromSize"),
                        mgtest.describe(r.report))
        self.assertTrue(grows_through("array.cpython", "array_array_append"),
                        mgtest.describe(r.report))


if __name__ == "__main__":
    import unittest
    unittest.main()
