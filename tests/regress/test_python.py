# SPDX-License-Identifier: GPL-2.0-or-later
"""CPython: teardown begins at Py_FinalizeEx, before atexit handlers; the
warm-up ends where the program starts; clean programs have nothing growing:
on every interpreter of mgtest.python_interpreters() (pymalloc: on the
representative ones)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import (SRC, TestCase, describe, python_executables,  # noqa: E402
                    representative_interpreters, run, source_line)

SCRIPT = os.path.join(SRC, "tests", "regress", "py_teardown.py")
STEADY = os.path.join(SRC, "tests", "regress", "py_steady.py")
LOCAL_MAIN = os.path.join(SRC, "tests", "regress", "py_local_main.py")
# The interpreters themselves, not launcher scripts in front of them.
INTERPRETERS = python_executables()
REPRESENTATIVE = python_executables(representative_interpreters())


class PythonTeardown(TestCase):
    def test_atexit_handler_does_not_hide_growth(self):
        for name, exe in INTERPRETERS.items():
            with self.subTest(interpreter=name, exe=exe):
                r = run([exe, SCRIPT], env={"PYTHONMALLOC": "malloc"})
                self.assertEqual(r.rc, 0, r.log)
                rep = r.report
                self.assertEqual(rep["teardown"], "py_finalize")
                # The buffers: ~3000 blocks of ~4000 bytes, all live when
                # finalization began, none at exit (3.15: the first call's
                # block has a stack of its own, before the call is
                # specialised).
                big = [s for s in rep["sites"] if s["live_blocks"] >= 2990
                       and s["live_bytes"] >= 2990 * 4000]
                self.assertTrue(big, "no site holds the buffers")
                self.assertIn("growing", {s["class"] for s in big})
                self.assertEqual(sum(s["at_exit_bytes"] for s in big), 0)


    def test_local_dict_of_main_freed_before_finalization_is_growing(self):
        r = run([sys.executable, LOCAL_MAIN], env={"PYTHONMALLOC": "malloc"})
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("100000", r.log)
        growing = [s for s in r.report["sites"] if s["class"] == "growing"]
        self.assertTrue(growing, r.log)
        # The biggest growing site held one block per key at its peak.
        top = max(growing, key=lambda s: s["peak_bytes"])
        self.assertGreaterEqual(top["allocated_blocks"], 100000)
        self.assertTrue(top["growth"]["released_at_end"])
        # memgrow's own wrappers (Py_FinalizeEx, the run entry points) are
        # not the program's frames.
        for s in r.report["sites"]:
            for f in s["frames"]:
                self.assertNotIn("vgpreload_memgrow", f["object"] or "")


class PythonModule(TestCase):
    def test_dash_m_warm_up_ends_when_the_module_runs(self):
        # python -m goes through no PyRun_ function: Py_RunMain starts the
        # program, and the warm-up ends at its first allocation outside an
        # import; the module's growth is found.
        regress = os.path.join(SRC, "tests", "regress")
        for name, exe in INTERPRETERS.items():
            with self.subTest(interpreter=name):
                r = run([exe, "-m", "py_stats_dict"],
                        env={"PYTHONMALLOC": "malloc", "PYTHONPATH": regress})
                self.assertEqual(r.rc, 0, r.log)
                rep = r.report
                self.assertGreater(rep["warmup_end"], rep["teardown_at"] * 0.05)
                line = source_line("tests/regress/py_stats_dict.py", "STATS_INSERT")
                self.assertClass(rep, "growing", file="py_stats_dict.py", line=line)

    def test_imports_on_one_line_and_in_dash_c_are_start_up(self):
        # `import json, email.parser, asyncio` stores json (a globals dict
        # resize) before it imports the rest; -c's source is registered with
        # linecache (3.13+, Python code) before it runs: neither ends the
        # warm-up. The loop after the imports grows, and nothing else does.
        code = ("import json, email.parser, asyncio\n"
                "keep = []\n"
                "for i in range(3000):\n"
                "    keep.append('x%d' % i * 4)  # KEEP\n")
        for name, exe in REPRESENTATIVE.items():
            if name == "running":
                continue  # the static 3.11 stands for 3.11 (kept short)
            for how in ("-c", "script"):
                with self.subTest(interpreter=name, how=how), tempfile.TemporaryDirectory() as tmp:
                    if how == "-c":
                        argv = [exe, "-c", code]
                    else:
                        argv = [exe, os.path.join(tmp, "imports.py")]
                        with open(argv[1], "w") as f:
                            f.write(code)
                    # The growth hunt: the warm-up's end is the same, in half the time.
                    r = run(argv, env={"PYTHONMALLOC": "malloc"}, options=["--addressability=no"])
                    self.assertEqual(r.rc, 0, r.log)
                    rep = r.report
                    self.assertClass(rep, "growing", line=4)
                    for s in rep["sites"]:
                        if s["class"] in ("growing", "plateau"):
                            self.assertEqual([f["line"] for f in s["frames"] if f["file"] in
                                              ("<string>", argv[-1])][-1:], [4], describe(rep))


DEEP_MODULE = """KEPT = []


def deep(n):
    if n == 0:
        KEPT.append(bytearray(1000))  # DEEP_ALLOC
        return
    deep(n - 1)


for _ in range(200):
    deep(20)
"""


class StartupDepth(TestCase):
    """While the script's imports run, stacks keep --startup-depth frames
    (4): start-up's sites are short; after the warm-up a line keeps its whole
    stack, and start-up's too where its losses are asked for."""

    def sites_of_the_deep_line(self, exe, tmp, *options):
        with open(os.path.join(tmp, "deepmod.py"), "w") as f:
            f.write(DEEP_MODULE)
        script = os.path.join(tmp, "deep_main.py")
        with open(script, "w") as f:
            f.write("import deepmod\nfor i in range(2000):\n    deepmod.deep(20)\n")
        r = run([exe, script], options, env={"PYTHONMALLOC": "malloc", "PYTHONPATH": tmp})
        self.assertEqual(r.rc, 0, r.log)
        sites = [s for s in r.report["sites"]
                 if any(f["file"] and f["file"].endswith("deepmod.py") and f["line"] == 6
                        for f in s["frames"])]
        self.assertTrue(sites, describe(r.report))
        return r.report, sites

    def test_start_up_stacks_are_short_and_the_loops_whole(self):
        for name, exe in REPRESENTATIVE.items():
            if name == "running":
                continue  # the static 3.11 stands for 3.11 (kept short)
            with self.subTest(interpreter=name), tempfile.TemporaryDirectory() as tmp:
                rep, sites = self.sites_of_the_deep_line(exe, tmp)
                # The loop's sites reach the script's line; start-up's, cut
                # at 4 frames, stop inside deep().
                loop = [s for s in sites
                        if any(f["file"] and f["file"].endswith("deep_main.py")
                               for f in s["frames"])]
                start = [s for s in sites if s not in loop]
                self.assertIn("growing", {s["class"] for s in loop}, describe(rep))
                self.assertGreaterEqual(min(len(s["frames"]) for s in loop), 22, describe(rep))
                self.assertTrue(start, describe(rep))
                self.assertLessEqual(max(len(s["frames"]) for s in start), 4, describe(rep))
                self.assertFalse([s for s in start if s["class"] == "growing"], describe(rep))
                # Asked for start-up's losses: its stacks are whole, and one
                # line's blocks are one site.
                rep, sites = self.sites_of_the_deep_line(
                    exe, tmp, "--show-leak-kinds=definite,possible,startup")
                self.assertGreaterEqual(min(len(s["frames"]) for s in sites), 22, describe(rep))


class PythonClean(TestCase):
    """Interpreter start-up is warm-up (it ends when the main script or -c
    command starts): clean programs have nothing growing."""

    def test_pass_has_no_growing_site(self):
        for name, exe in INTERPRETERS.items():
            for allocator in ("malloc", "pymalloc") if name in REPRESENTATIVE else ("malloc",):
                with self.subTest(interpreter=name, allocator=allocator):
                    r = run([exe, "-c", "pass"], env={"PYTHONMALLOC": allocator})
                    self.assertEqual(r.rc, 0, r.log)
                    rep = r.report
                    self.assertGreater(rep["warmup_end"], rep["teardown_at"] * 0.9)
                    self.assertNoClass(rep, "growing")
                    self.assertNoClass(rep, "plateau")

    def test_steady_request_loop_has_no_growing_site(self):
        for name, exe in INTERPRETERS.items():
            with self.subTest(interpreter=name):
                r = run([exe, STEADY], env={"PYTHONMALLOC": "malloc"})
                self.assertEqual(r.rc, 0, r.log)
                self.assertIn("True", r.log)
                rep = r.report
                self.assertLess(rep["warmup_end"], rep["teardown_at"] * 0.5)
                self.assertNoClass(rep, "growing")


if __name__ == "__main__":
    unittest.main()
