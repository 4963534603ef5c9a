# SPDX-License-Identifier: GPL-2.0-or-later
"""memgrow's pytest plugin (python/memgrow/pytest.py) on Debian's python3 and
python3-pytest: under memgrow it fails exactly the test that keeps memory,
naming its line, from memgrow's exact live bytes; natively it does the same
with tracemalloc and says so; memgrow_limit fails a test over its limit."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import BUILD, SRC, TestCase, run, source_line  # noqa: E402

SAMPLE = os.path.join(SRC, "tests", "regress", "py_pytest_sample.py")
PACKAGE = os.path.join(os.path.abspath(BUILD), ".in_place", "memgrow-python")
KEPT = source_line("tests/regress/py_pytest_sample.py", "KEPT_HERE")
ODD = os.path.join(SRC, "tests", "regress", "py_pytest_odd.py")
LITTLE = source_line("tests/regress/py_pytest_odd.py", "LITTLE_KEPT")
PYTEST = ["/usr/bin/python3", "-m", "pytest", "-p", "memgrow.pytest", "-p", "no:cacheprovider",
          "-rf", SAMPLE]


def failed(output):
    return sorted(re.findall(r"^FAILED \S*::(\w+)", output, re.M))


class PytestPlugin(TestCase):
    def check_repeat_rule(self, output, where):
        self.assertEqual(failed(output), ["test_keeps_a_list_growing"], output)
        self.assertIn("2 passed", output)
        m = re.search(r"test_keeps_a_list_growing kept memory in every repetition after the "
                      r"first: \+([\d,]+), \+([\d,]+), \+([\d,]+) bytes; most at (.*)", output)
        self.assertTrue(m, output)
        # Each repetition keeps a 4 KiB bytearray; the live heap's net change
        # may be a little less when the process frees something else meanwhile
        # (seen: +4,092), but the kept line itself grew by all three.
        self.assertTrue(all(int(g.replace(",", "")) >= 3072 for g in m.groups()[:3]), m.group(0))
        self.assertIn(f"py_pytest_sample.py:{KEPT}", m.group(4))
        self.assertRegex(m.group(4), where)
        grew = re.search(r"\+([\d,]+) bytes$", m.group(4))
        self.assertTrue(grew and int(grew.group(1).replace(",", "")) >= 3 * 4096, m.group(0))

    def test_under_memgrow(self):
        r = run([*PYTEST, "--memgrow-repeat=4", "-k", "not limit"], timeout=600)
        self.assertEqual(r.rc, 1, r.log)  # pytest: some tests failed
        self.assertIn("memgrow: kept memory measured by memgrow's exact live heap, 4 run(s) per test",
                      r.log)
        self.check_repeat_rule(r.log, r"^test_keeps_a_list_growing \(.*py_pytest_sample.py:\d+\)")
        # Every run of a test is a mark.
        self.assertEqual(r.report["marks"]["count"], 3 * 4)

    def test_natively_with_tracemalloc(self):
        p = subprocess.run([*PYTEST, "--memgrow-repeat=4", "-k", "not limit"],
                           env=dict(os.environ, PYTHONPATH=PACKAGE), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("memgrow: kept memory measured by tracemalloc (not under memgrow: Python "
                      "allocations only)", p.stdout)
        self.check_repeat_rule(p.stdout, r"^py_pytest_sample.py:\d+ ")

    def test_limits(self):
        expect = ["test_over_its_limit"]
        p = subprocess.run([*PYTEST, "-k", "limit"], env=dict(os.environ, PYTHONPATH=PACKAGE),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        self.assertEqual(failed(p.stdout), expect, p.stdout)
        self.assertRegex(p.stdout, r"test_over_its_limit kept 6\d,\d{3} bytes per run, over its "
                                   r"memgrow_limit of 16,384")
        r = run([*PYTEST, "-k", "limit"], timeout=600)
        self.assertEqual(failed(r.log), expect, r.log)

    def test_a_bad_limit_is_an_error_naming_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "test_bad.py")
            with open(path, "w") as f:
                f.write("import pytest\n\n@pytest.mark.memgrow_limit('lots')\ndef test_x():\n"
                        "    pass\n")
            p = subprocess.run(["/usr/bin/python3", "-m", "pytest", "-p", "memgrow.pytest",
                                "-p", "no:cacheprovider", path], env=dict(os.environ, PYTHONPATH=PACKAGE),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=300)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("memgrow_limit: not a size: 'lots'", p.stdout)



class PytestRecords(TestCase):
    """Tests that log, warn or are doctests keep nothing of their own: pytest's
    records of each repetition are not theirs, a doctest runs again with its
    globals, and the growth named is the test's line, never the plugin's."""

    ARGS = ["/usr/bin/python3", "-m", "pytest", "-p", "memgrow.pytest", "-p", "no:cacheprovider",
            "-rf", "--doctest-modules", "--memgrow-repeat=4", ODD]

    def check(self, output, where):
        self.assertEqual(failed(output), ["test_keeps_a_little", "test_limit_negative",
                                          "test_limit_without_a_size"], output)
        self.assertIn("6 passed", output)  # the doctest, the log, warning and limit tests
        m = re.search(r"test_keeps_a_little kept memory in every repetition after the first: "
                      r"\+[\d,]+, \+[\d,]+, \+[\d,]+ bytes; most at (.*)", output)
        self.assertTrue(m, output)
        self.assertRegex(m.group(1), where + re.escape(f"py_pytest_odd.py:{LITTLE}"))
        for most in re.findall(r"; most at (.*)", output):
            self.assertNotRegex(most, r"growth_since|after_run|_compiler\.py|__init__\.py")
        self.assertIn("memgrow_limit: not a size: -5", output)
        self.assertIn("memgrow_limit: takes one size", output)
        self.assertNotIn("IndexError", output)
        self.assertNotIn("During handling", output)
        # pytest still reports the first repetition's warning, once.
        self.assertRegex(output, r"1 warning")

    def test_natively(self):
        p = subprocess.run(self.ARGS, env=dict(os.environ, PYTHONPATH=PACKAGE),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.check(p.stdout, r"^")

    def test_under_memgrow(self):
        r = run(self.ARGS, options=["--leak-check=no"], timeout=600)
        self.assertEqual(r.rc, 1, r.log)
        self.check(r.log, r"^test_keeps_a_little \(")


if __name__ == "__main__":
    unittest.main()
