# SPDX-License-Identifier: GPL-2.0-or-later
"""Python attribution: the report names Python files, functions and lines
(read from CPython's frames in client memory), in place of the interpreter's
evaluation loop, on every interpreter of mgtest.python_interpreters() (3.11
with a shared libpython, Debian's static, stripped 3.11, 3.13, 3.14 and 3.15,
and 3.12 where there is one); cross-checked against tracemalloc; the options,
the fallback when the layout does not match, and a CPython newer than
memgrow knows."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import (SRC, TestCase, bytearray_block, describe, memgrow_report,  # noqa: E402
                    python_interpreters, representative_interpreters, run)

GOLDEN = os.path.join(SRC, "tests", "regress", "py_golden.py")
INTERPRETERS = python_interpreters()
MALLOC = {"PYTHONMALLOC": "malloc"}
# Golden reports list every site: the many small stable ones (a quarter of
# a million distinct hybrid stacks on 3.12+) are not what these tests read.
GOLDEN_OPTIONS = ["--json-stable-min-bytes=16384"]


def golden_lines():
    lines = {}
    with open(GOLDEN) as f:
        for i, text in enumerate(f, 1):
            m = re.search(r"# GOLDEN (\S+)", text)
            if m:
                lines[m.group(1)] = i
    return lines


def golden_sizes():
    sizes = {}
    with open(GOLDEN) as f:
        for m in re.finditer(r'"(\w+)": (\d[\d_]*)', f.read()):
            sizes[m.group(1)] = int(m.group(2).replace("_", ""))
    return sizes


def python_frames(site):
    return [f for f in site["frames"] if f["python"]]


def block_site(report, size):
    """The site of the one block of `size` bytes."""
    sites = [s for s in report["sites"]
             if s["allocated_blocks"] >= 1 and s["peak_bytes"] == size]
    return sites[0] if len(sites) == 1 else None


class GoldenAttribution(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.runs = {name: run([*py.argv, GOLDEN], options=GOLDEN_OPTIONS,
                              env=MALLOC, timeout=600)
                    for name, py in INTERPRETERS.items()}
        cls.lines = golden_lines()
        cls.sizes = golden_sizes()

    def expected_function(self, case, py):
        names = {"plain": "plain", "method": "Service.handle", "lambda": "<lambda>",
                 "generator": "generator", "async": "coroutine", "recursion": "recurse",
                 "thread": "worker",
                 # 3.12 inlines comprehensions into their function (PEP 709).
                 "listcomp": "listcomp.<locals>.<listcomp>" if py.minor == 11 else "listcomp"}
        return names[case]

    def test_each_case_names_its_line_first(self):
        for name, interp in INTERPRETERS.items():
            r = self.runs[name]
            self.assertEqual(r.rc, 0, r.log)
            self.assertIn("golden", r.log)
            for case, size in self.sizes.items():
                with self.subTest(interpreter=name, case=case):
                    site = block_site(r.report, bytearray_block(size, interp.minor))
                    self.assertIsNotNone(site, f"no single site of a bytearray({size})")
                    py = python_frames(site)
                    self.assertTrue(py, site["frames"])
                    self.assertEqual(os.path.basename(py[0]["file"]), "py_golden.py")
                    self.assertEqual(py[0]["function"], self.expected_function(case, interp))
                    self.assertEqual(py[0]["line"], self.lines[case])
                    # Frames are innermost first: native allocator frames
                    # (bytearray's) come before the Python line, and the
                    # evaluation loop itself is never shown.
                    self.assertFalse(site["frames"][0]["python"])
                    for f in site["frames"]:
                        self.assertNotEqual(f["function"], "_PyEval_EvalFrameDefault")

    def test_callers_are_python_frames_in_order(self):
        for name, py in INTERPRETERS.items():
            r = self.runs[name]
            with self.subTest(interpreter=name):
                site = block_site(r.report, bytearray_block(self.sizes["method"], py.minor))
                self.assertEqual([f["function"] for f in python_frames(site)],
                                 ["Service.handle", "main", "<module>"])
                self.assertEqual(python_frames(site)[1]["line"], self.lines["method-caller"])

    def test_deep_recursion_shows_the_recursive_calls(self):
        for name, py in INTERPRETERS.items():
            r = self.runs[name]
            with self.subTest(interpreter=name):
                site = block_site(r.report, bytearray_block(self.sizes["recursion"], py.minor))
                py = python_frames(site)
                # --depth (32) caps the stack of 41 recursive calls: a few
                # native frames, then the innermost Python frame and the
                # recursive calls.
                self.assertGreaterEqual(len(py), 25)
                self.assertEqual(py[-1]["function"], "recurse")  # main is past the cap
                self.assertTrue(all(f["function"] == "recurse" for f in py[1:]))
                self.assertTrue(all(f["line"] == self.lines["recursion-caller"] for f in py[1:]))

    def test_thread_without_the_gil_in_a_c_extension_has_hybrid_frames(self):
        for name in INTERPRETERS:
            r = self.runs[name]
            with self.subTest(interpreter=name):
                hybrid = []
                for s in r.report["sites"]:
                    objs = [f["object"] or "" for f in s["frames"]]
                    py = python_frames(s)
                    if (py and py[0]["function"] == "worker"
                            and py[0]["line"] == self.lines["sqlite"]
                            and any("libsqlite3" in o for o in objs)):
                        hybrid.append(s)
                self.assertTrue(hybrid, describe(r.report))
                # sqlite's own frames are inner to the Python line that
                # called it, with the _sqlite3 extension between them.
                frames = hybrid[0]["frames"]
                first_py = next(i for i, f in enumerate(frames) if f["python"])
                inner = [f["object"] or "" for f in frames[:first_py]]
                self.assertTrue(any("libsqlite3" in o for o in inner), frames)
                self.assertTrue(any("_sqlite3" in o for o in inner), frames)

    def test_json_encoder_output_names_the_calling_line(self):
        for name in INTERPRETERS:
            r = self.runs[name]
            with self.subTest(interpreter=name):
                sites = [s for s in r.report["sites"]
                         if any(f["python"] and f["line"] == self.lines["json"]
                                and f["function"] == "main" for f in s["frames"])
                         and s["live_bytes"] >= 3000 * 50]
                self.assertTrue(sites, describe(r.report))

    def test_memgrow_report_reads_python_frames(self):
        # Python frames have no code address: "ip" is null in the report.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "golden.json")
            report = dict(self.runs["running"].report)
            # The bytearray of plain(): its Python line is within the frames
            # show prints (8).
            site = block_site(report, bytearray_block(self.sizes["plain"], sys.version_info[1]))
            report["sites"] = [site]
            # That native site alone: its Python sites would lead the view.
            report.pop("python_sites")
            with open(path, "w") as f:
                json.dump(report, f)
            # One block made after the warm-up and kept: a plateau (one
            # step, then flat), or stable when it fell in the warm-up.
            shown = memgrow_report("show", "--class", site["class"], path)
            self.assertEqual(shown.returncode, 0, shown.stderr)
            self.assertIn(f"by plain (py_golden.py:{self.lines['plain']}) [python]", shown.stdout)

    def test_lines_agree_with_tracemalloc(self):
        for name, py in INTERPRETERS.items():
            with self.subTest(interpreter=name):
                native = subprocess.run([*py.argv, GOLDEN], capture_output=True, text=True,
                                        env=dict(os.environ, GOLDEN_TRACEMALLOC="1"))
                self.assertEqual(native.returncode, 0, native.stderr)
                traced = dict(re.findall(r"tracemalloc (\w+) (\S+)", native.stdout))
                self.assertEqual(set(traced), set(self.sizes))
                for case, size in self.sizes.items():
                    site = block_site(self.runs[name].report, bytearray_block(size, py.minor))
                    first = python_frames(site)[0]
                    self.assertEqual(f"{os.path.basename(first['file'])}:{first['line']}",
                                     traced[case], case)


class Interpreters(TestCase):
    def test_the_interpreters_are_there(self):
        # 3.13 to 3.15 come from scripts/fetch-python.sh: missing, they fail
        # here (and in every Python test) rather than go untested.
        for minor in (13, 14, 15):
            with self.subTest(minor=minor):
                py = INTERPRETERS[f"3.{minor}"]
                p = subprocess.run([*py.argv, "-c", "import sys; print(sys.version_info[:2])"],
                                   capture_output=True, text=True)
                self.assertEqual(p.stdout.strip(), f"(3, {minor})", p.stderr)
        if "3.12" not in INTERPRETERS:
            print("memgrow tests: no CPython 3.12 here: 3.12 is not tested", file=sys.stderr)


class FutureVersion(TestCase):
    """A CPython newer than memgrow knows (--python-test-future-version=yes
    takes 3.13+ for 3.99): with the newest known debug-offsets layout it
    reads the frames (3.15's table is 3.15's); with another one it says so
    once, naming the version."""

    def test_compatible_debug_offsets_give_frames(self):
        py = INTERPRETERS["3.15"]
        size = bytearray_block(golden_sizes()["plain"], 15)
        r = run([*py.argv, GOLDEN], options=["--python-test-future-version=yes", "-v",
                                             *GOLDEN_OPTIONS], env=MALLOC)
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("CPython 3.99 is newer than the versions memgrow was tested with", r.log)
        # memgrow's own warnings (-v also prints Valgrind's debug-info
        # reader's about the tool binary's discarded inline copies).
        self.assertNotIn("memgrow: warning", r.log)
        site = block_site(r.report, size)
        self.assertEqual(python_frames(site)[0]["line"], golden_lines()["plain"])

    def test_incompatible_debug_offsets_warn_once(self):
        py = INTERPRETERS["3.13"]
        r = run([*py.argv, "-c", "x = [str(i) for i in range(100)]"],
                options=["--python-test-future-version=yes", "--leak-check=no"],
                env=MALLOC)
        self.assertEqual(r.rc, 0, r.log)
        self.assertEqual(r.log.count("warning"), 1, r.log)
        self.assertIn("CPython 3.99 in ", r.log)
        self.assertIn("debug offsets (_Py_DebugOffsets) are not laid out as in the versions "
                      "memgrow knows", r.log)
        self.assertFalse(any(f["python"] for s in r.report["sites"] for f in s["frames"]))


class CodeObjectsReused(TestCase):
    """A frame's token is remembered by its code object's address and its
    instruction: a code object freed and another made at its address must
    not inherit its function's name."""

    ROUNDS = 200

    def test_each_block_names_the_function_that_allocated_it(self):
        script = os.path.join(SRC, "tests", "regress", "py_code_reuse.py")
        for name, py in representative_interpreters().items():
            # (A small freed-block queue: memory is reused sooner.)
            for options in (["--freelist-vol=1000000"], ["--addressability=no"]):
                with self.subTest(interpreter=name, options=options):
                    r = run([*py.argv, script, str(self.ROUNDS)],
                            options=[*options, "--json-stable-min-bytes=50000"], env=MALLOC)
                    self.assertEqual(r.rc, 0, r.log)
                    m = re.search(r"reused an address: (\d+) of", r.log)
                    self.assertIsNotNone(m, r.log)
                    # Without reuse the test would show nothing.
                    self.assertGreater(int(m.group(1)), self.ROUNDS // 4, r.log)
                    for i in range(self.ROUNDS):
                        site = block_site(r.report, bytearray_block(50000 + 16 * i, py.minor))
                        self.assertIsNotNone(site, f"no single site of made_{i}'s block")
                        first = python_frames(site)[0]
                        self.assertEqual((first["function"], first["file"], first["line"]),
                                         (f"made_{i}", f"made_{i}.py", 4))


class Options(TestCase):
    def test_python_only_and_no(self):
        exe = sys.executable
        size = golden_sizes()["plain"] + 1
        only = run([exe, GOLDEN], options=["--python=only"], env=MALLOC)
        self.assertEqual(only.rc, 0, only.log)
        # The bytearray object and its buffer: one site, Python frames only.
        sites = [s for s in only.report["sites"]
                 if s["frames"] and s["frames"][0]["function"] == "plain"]
        self.assertEqual(len(sites), 1, describe(only.report))
        self.assertGreaterEqual(sites[0]["peak_bytes"], size)
        self.assertEqual([f["function"] for f in sites[0]["frames"]], ["plain", "main", "<module>"])
        self.assertTrue(all(f["python"] for f in sites[0]["frames"]))
        # Native frames only: the evaluation loop is where Python code ran.
        no = run([exe, GOLDEN], options=["--python=no"], env=MALLOC)
        self.assertEqual(no.rc, 0, no.log)
        self.assertFalse(any(f["python"] for s in no.report["sites"] for f in s["frames"]))
        self.assertTrue(any(f["function"] == "_PyEval_EvalFrameDefault"
                            for s in no.report["sites"] for f in s["frames"]))
        bad = run([exe, "-c", "pass"], options=["--python=sometimes"])
        self.assertNotEqual(bad.rc, 0)
        self.assertIn("--python", bad.log)

    def test_pymalloc_left_active_is_warned_about_once(self):
        # The allocator is read from _PyRuntime (3.13+: at an offset of
        # memgrow's table, which _Py_DebugOffsets does not give).
        for name, py in INTERPRETERS.items():
            with self.subTest(interpreter=name):
                # -E ignores PYTHONMALLOC: pymalloc stays.
                r = run([*py.argv, "-E", "-c", "x = [str(i) for i in range(1000)]"],
                        options=["--leak-check=no"])
                self.assertEqual(r.rc, 0, r.log)
                self.assertEqual(r.log.count("CPython uses pymalloc"), 1, r.log)
                r = run([*py.argv, "-c", "x = [str(i) for i in range(1000)]"],
                        options=["--leak-check=no"])
                self.assertEqual(r.rc, 0, r.log)
                self.assertNotIn("CPython uses pymalloc", r.log)
        r = run([sys.executable, "-c", "x = [str(i) for i in range(1000)]"],
                options=["--python-malloc=no"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertNotIn("CPython uses pymalloc", r.log)

    def test_layout_mismatch_warns_once_and_falls_back_to_native_frames(self):
        for name, py in representative_interpreters().items():
            with self.subTest(interpreter=name):
                r = run([*py.argv, GOLDEN],
                        options=["--python-test-layout-mismatch=yes", *GOLDEN_OPTIONS],
                        env=MALLOC)
                self.assertEqual(r.rc, 0, r.log)
                self.assertIn("golden", r.log)
                self.assertEqual(r.log.count("Python frames are off"), 1, r.log)
                self.assertFalse(any(f["python"] for s in r.report["sites"]
                                     for f in s["frames"]))
                self.assertTrue(any(s["peak_bytes"] >= golden_sizes()["plain"] + 1
                                    for s in r.report["sites"]))


if __name__ == "__main__":
    unittest.main()
