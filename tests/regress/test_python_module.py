# SPDX-License-Identifier: GPL-2.0-or-later
"""The memgrow Python module: importable under memgrow with no set-up, its
marks, leak scan and report requests reach the tool, and natively every call
is a no-op."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import BUILD, SRC, TestCase, bytearray_block, python_interpreters, run  # noqa: E402

SCRIPT = os.path.join(SRC, "tests", "regress", "py_module.py")
# Where the preload finds the package in the build tree (as installed:
# beside the tool).
PACKAGE_DIR = os.path.join(os.path.abspath(BUILD), ".in_place", "memgrow-python")
# The interpreters themselves, not launcher scripts in front of them.
INTERPRETERS = python_interpreters()


class Module(TestCase):
    def test_requests_reach_the_tool(self):
        for name, py in INTERPRETERS.items():
            with self.subTest(interpreter=name), tempfile.TemporaryDirectory() as tmp:
                mid = os.path.join(tmp, "mid-run.json")
                # No PYTHONPATH: the preload adds the package's directory.
                r = run([*py.argv, SCRIPT, mid], env={"PYTHONPATH": None})
                self.assertEqual(r.rc, 0, r.log)
                self.assertIn("running True", r.log)
                self.assertIn("written True", r.log)
                # leak_check() printed the mid-run scan before it returned
                # the definitely lost bytes (most of the 8 dropped blocks).
                said = re.search(r"^lost (\d+)$", r.log, re.M)
                self.assertGreaterEqual(int(said.group(1)), 4 * 4096)
                scan = r.log[:said.start()]
                self.assertRegex(scan, r"definitely lost: [\d,]+ \(\+[\d,]+\) bytes")
                # One mark per request: the bytearray buffers grow by 1001
                # bytes (1000 and the NUL; 3.15: a bytes object) every
                # repetition.
                rep = r.report
                self.assertEqual(rep["marks"]["count"], 100)
                rates = {s["growth"]["rate_per_mark"] for s in rep["sites"]
                         if s["class"] == "growing" and s["growth"]["rule"] == "refleak"}
                self.assertIn(float(bytearray_block(1000, py.minor)), rates)
                with open(mid) as f:
                    self.assertEqual(json.load(f)["memgrow"], 2)  # the default format

    def test_no_ops_natively(self):
        # With the library (the installed layout) and without it (the
        # sources alone): same output, nothing written.
        for path in (PACKAGE_DIR, os.path.join(SRC, "python")):
            for name, py in INTERPRETERS.items():
                with self.subTest(interpreter=name, path=path), \
                        tempfile.TemporaryDirectory() as tmp:
                    env = dict(os.environ, PYTHONPATH=path)
                    p = subprocess.run([*py.argv, SCRIPT, os.path.join(tmp, "r.json")], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True, timeout=120)
                    self.assertEqual(p.returncode, 0, p.stdout)
                    self.assertEqual(p.stdout, "lost 0\nwritten False\nrunning False\n")
                    self.assertEqual(os.listdir(tmp), [])

    def test_users_pythonpath_comes_first(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "usermod.py"), "w") as f:
                f.write("")
            show = ("import os, sys, memgrow, usermod; "
                    "print('PYTHONPATH=' + os.environ['PYTHONPATH']); "
                    "print('running', memgrow.running())")
            r = run([sys.executable, "-c", show], options=["--depth=4"],
                    env={"PYTHONPATH": tmp})
            self.assertEqual(r.rc, 0, r.log)
            self.assertIn(f"PYTHONPATH={tmp}:{PACKAGE_DIR}\n", r.log)
            self.assertIn("running True", r.log)
            # Already there (a traced child of a traced process): unchanged.
            both = f"{PACKAGE_DIR}:{tmp}"
            r = run([sys.executable, "-c", show], options=["--depth=4"],
                    env={"PYTHONPATH": both})
            self.assertEqual(r.rc, 0, r.log)
            self.assertIn(f"PYTHONPATH={both}\n", r.log)


if __name__ == "__main__":
    unittest.main()
