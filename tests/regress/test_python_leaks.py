# SPDX-License-Identifier: GPL-2.0-or-later
"""CPython under the leak scan: no false positives.

CPython points to the objects its cycle GC tracks past their GC header, and
to a managed dict's values from inside the object: for a plain leak scan
(memcheck's heuristics only) those blocks look possibly lost. memgrow's
`cpython` heuristic (on by default) takes such pointers as pointers to the
block, so a clean interpreter has nothing lost, and with it off the same
blocks are possibly lost again (which shows that the heuristic is what
makes the difference).

The interpreters: the one running this test (pyenv's in CI; a shared
libpython), Debian's /usr/bin/python3 (static), and the 3.13 to 3.15 of
mgtest.python_interpreters(). PYTHONMALLOC=malloc so that every
object is a heap block of its own.
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import SRC, TestCase, python_interpreters, run  # noqa: E402

NESTED = os.path.join(SRC, "tests", "regress", "py_nested.py")
NESTED_OUTPUT = "30 300 500 300 16 8"
# memcheck's heuristics, without memgrow's cpython one.
NO_CPYTHON = ["--leak-check-heuristics=stdstring,length64,newarray,multipleinheritance"]
ENV = {"PYTHONMALLOC": "malloc"}
LOST = ("definite", "indirect", "possible")


def real_python3():
    """The interpreter `python3` runs, not a launcher script (pyenv's shim)
    in front of it."""
    out = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"],
                         stdout=subprocess.PIPE, text=True, check=True, timeout=60).stdout
    return os.path.realpath(out.strip())


INTERPRETERS = {"pyenv": real_python3()}
if os.path.exists("/usr/bin/python3"):
    INTERPRETERS["debian"] = os.path.realpath("/usr/bin/python3")
    if INTERPRETERS["debian"] == INTERPRETERS["pyenv"]:  # no pyenv: python3 is Debian's
        del INTERPRETERS["pyenv"]
# Not 3.12: its nested containers leave some 650 objects possibly lost
# (known, not yet understood; 3.12 is tested only where one is present).
INTERPRETERS.update({name: py.argv[0] for name, py in python_interpreters().items()
                     if py.minor >= 13})

# (name, arguments, memgrow options) of every run, per interpreter.
RUNS = {
    "pass": (["-c", "pass"], []),
    "nested": ([NESTED], []),
    "nested-no-cpython": ([NESTED], NO_CPYTHON),
}
# Only the pyenv interpreter keeps GC-tracked objects alive at exit of
# `-c pass` (Debian's frees them all in finalization).
PYENV_RUNS = {"pass-no-cpython": (["-c", "pass"], NO_CPYTHON)}


class PythonLeaks(TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        # Each run is a few seconds of one core; CI has two.
        cls.futures = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for interp, exe in INTERPRETERS.items():
                runs = dict(RUNS, **(PYENV_RUNS if interp == "pyenv" else {}))
                for name, (args, options) in runs.items():
                    cls.futures[(interp, name)] = pool.submit(run, [exe, *args], options, ENV)

    def leak_check(self, interp, name):
        r = self.futures[(interp, name)].result()
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("leak_check", r.report, r.log)
        lc = r.report["leak_check"]
        for kind in LOST:
            self.assertIsInstance(lc[kind]["bytes"], int, lc)
        return r, lc

    def lost(self, lc):
        return {k: (lc[k]["bytes"], lc[k]["blocks"]) for k in LOST}

    def test_pass_loses_nothing(self):
        for interp in INTERPRETERS:
            with self.subTest(interpreter=interp):
                r, lc = self.leak_check(interp, "pass")
                self.assertEqual(self.lost(lc), dict.fromkeys(LOST, (0, 0)), r.log)
                # memcheck's words: a summary of nothing lost, or, where the
                # interpreter freed every block (Debian's 3.11, 3.14, 3.15),
                # "All heap blocks were freed".
                if lc["reachable"]["blocks"]:
                    self.assertIn("definitely lost: 0 bytes in 0 blocks", r.log)
                    self.assertIn("possibly lost: 0 bytes in 0 blocks", r.log)
                else:
                    self.assertIn("All heap blocks were freed -- no leaks are possible", r.log)
                    self.assertNotIn("LEAK SUMMARY", r.log)
                self.assertNotIn("leaked", {s["class"] for s in r.report["sites"]})

    @unittest.skipUnless("pyenv" in INTERPRETERS, "python3 is Debian's")
    def test_pass_without_cpython_heuristic_is_possibly_lost(self):
        # pyenv's interpreter keeps some GC-tracked objects at exit (about
        # 2,864 bytes in 55 blocks with 3.11.7): possibly lost without the
        # heuristic, reachable through it with it.
        r, lc = self.leak_check("pyenv", "pass-no-cpython")
        possible = lc["possible"]
        self.assertGreater(possible["bytes"], 0, r.log)
        self.assertGreaterEqual(possible["blocks"], 10, r.log)
        self.assertLess(possible["bytes"], 100000, r.log)
        self.assertEqual((lc["definite"]["bytes"], lc["indirect"]["bytes"]), (0, 0), r.log)
        self.assertNotIn("cpython", lc["heuristics"])
        r_on, lc_on = self.leak_check("pyenv", "pass")
        self.assertIn("cpython", lc_on["heuristics"])
        via = lc_on["reachable_via_heuristic"]
        self.assertGreater(via.get("cpython", {}).get("blocks", 0), 0, lc_on)
        self.assertRegex(r_on.log, r"cpython\s*: [\d,]+ bytes in [\d,]+ blocks")

    def test_nested_containers_are_reachable(self):
        for interp in INTERPRETERS:
            with self.subTest(interpreter=interp):
                r, lc = self.leak_check(interp, "nested")
                self.assertIn(NESTED_OUTPUT, r.log)
                self.assertEqual(self.lost(lc), dict.fromkeys(LOST, (0, 0)), r.log)
                # The containers were alive at the exit scan (os._exit: no
                # finalization), reachable, some only through the heuristic.
                self.assertGreater(lc["reachable"]["blocks"], 5000, lc)
                via = lc["reachable_via_heuristic"]
                self.assertIn("cpython", via, lc)
                self.assertGreater(via["cpython"]["blocks"], 1000, lc)
                self.assertGreater(via["cpython"]["bytes"], 0, lc)
                self.assertRegex(r.log, r"of which reachable via heuristic:\s*\n.*cpython\s*: ")
                for s in r.report["sites"]:
                    self.assertEqual(s["lost"], dict.fromkeys(LOST, 0), s)
                    self.assertNotEqual(s["class"], "leaked", s)

    def test_nested_containers_without_cpython_heuristic_are_possibly_lost(self):
        for interp in INTERPRETERS:
            with self.subTest(interpreter=interp):
                r, lc = self.leak_check(interp, "nested-no-cpython")
                self.assertIn(NESTED_OUTPUT, r.log)
                self.assertNotIn("cpython", lc["heuristics"])
                self.assertNotIn("cpython", lc["reachable_via_heuristic"])
                # Thousands of objects: every GC-tracked one and what only
                # they point to.
                self.assertGreater(lc["possible"]["blocks"], 2000, lc)
                self.assertGreater(lc["possible"]["bytes"], 100000, lc)
                self.assertEqual((lc["definite"]["bytes"], lc["indirect"]["bytes"]), (0, 0), lc)
                # And the log says so too.
                m = re.search(r"possibly lost: ([\d,]+) bytes in ([\d,]+) blocks", r.log)
                self.assertTrue(m, r.log)
                self.assertEqual(int(m.group(1).replace(",", "")), lc["possible"]["bytes"])
                # The same blocks are reachable with the heuristic on.
                _, on = self.leak_check(interp, "nested")
                self.assertGreaterEqual(on["reachable"]["blocks"], lc["possible"]["blocks"])


if __name__ == "__main__":
    unittest.main()
