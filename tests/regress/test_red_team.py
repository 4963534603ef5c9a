# SPDX-License-Identifier: GPL-2.0-or-later
"""The red-team pass (docs/robustness.md has the table): bad option values,
odd report paths, broken suppression files and clients that end or behave
badly. Each case gets one clear error line or the right report, never a
Valgrind or tool assertion."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import SRC, VALGRIND, TestCase, program, run, sites_at, source_line  # noqa: E402

CRASH = re.compile(r"impossible happened|Assertion .* failed|vgPlain_core_panic|Valgrind's "
                   r"internal|Traceback")
GROW = source_line("tests/regress/misbehave.c", "GROW_HERE")


def start(options, argv=None, env=None):
    p = subprocess.run([VALGRIND, "--tool=memgrow", *options, *(argv or [program("grow_list"), "10"])],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", timeout=300, env=env)
    return p.returncode, p.stdout


def memgrow_options():
    """memgrow's options with a value, from --help and --help-debug: name -> placeholder."""
    p = subprocess.run([VALGRIND, "--tool=memgrow", "--help-debug"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    sections = re.split(r"^  (?=\S.*:$)", p.stdout, flags=re.M)
    tool = "".join(s for s in sections if s.split("\n")[0].endswith("for memgrow:"))
    return dict(re.findall(r"^\s+(--[a-z-]+)=(\S+)", tool, re.M))


class BadOptions(TestCase):
    def assertRefused(self, option):
        rc, out = start([option])
        self.assertNotEqual(rc, 0, f"{option} was accepted:\n{out}")
        self.assertIn(f"Bad option: {option}", out)
        self.assertNotRegex(out, CRASH)
        self.assertNotIn("HEAP GROWTH SUMMARY", out)  # refused before the program ran
        return out

    def test_every_option_refuses_an_empty_value(self):
        options = memgrow_options()
        self.assertGreaterEqual(len(options), 15, options)
        for name in options:
            with self.subTest(name):
                self.assertRefused(f"{name}=")

    def test_numbers_negative_huge_and_with_units(self):
        numeric = [n for n, v in memgrow_options().items() if v == "<n>"]
        self.assertIn("--top", numeric)
        for name in numeric:
            for value, message in (("-1", "-1"),
                                   ("99999999999999999999999", "the number is too large"),
                                   ("18446744073709551617", "the number is too large"),
                                   ("12K", "Invalid integer value"), ("x", "Invalid integer value")):
                with self.subTest(f"{name}={value}"):
                    self.assertIn(message, self.assertRefused(f"{name}={value}"))

    def test_words_out_of_their_set(self):
        for name, placeholder in memgrow_options().items():
            if "|" in placeholder or "," in placeholder:
                with self.subTest(name):
                    self.assertRefused(f"{name}=bogus")

    def test_conflicting_values_take_the_last_as_valgrind_does(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
            rc, out = start([f"--json-file={a}", "--top=3", "--top=7", f"--json-file={b}",
                             "--leak-check=no", "--show-leak-kinds=all"])
            self.assertEqual(rc, 0, out)
            self.assertEqual(os.listdir(tmp), ["b.json"])
            self.assertNotIn("LEAK SUMMARY", out)  # --leak-check=no wins over the kinds


class ReportPaths(TestCase):
    def test_odd_paths_are_refused_before_the_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            cases = {
                os.path.join(tmp, "missing", "r.json"): "(No such file or directory)",
                tmp: "(Is a directory)",
                "/proc/memgrow-report.json": "cannot write '/proc/memgrow-report.json'",
                "%q{MEMGROW_SURELY_UNSET}.json": "Environment variable 'MEMGROW_SURELY_UNSET' is not set",
            }
            for path, message in cases.items():
                with self.subTest(path):
                    rc, out = start([f"--json-file={path}"])
                    self.assertNotEqual(rc, 0, out)
                    self.assertIn(message, out)
                    self.assertNotRegex(out, CRASH)
                    self.assertNotIn("HEAP GROWTH SUMMARY", out)

    def test_environment_in_the_path(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, MG_RUN_NAME="nightly")
            rc, out = start([f"--json-file={tmp}/%q{{MG_RUN_NAME}}.%p.json"], env=env)
            self.assertEqual(rc, 0, out)
            [name] = os.listdir(tmp)
            self.assertRegex(name, r"^nightly\.\d+\.json$")

    def test_two_runs_writing_one_path_at_once_leave_valid_json(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "shared.json")
            cmd = [VALGRIND, "--tool=memgrow", *mgtest.COMPLETE,
                   f"--json-file={out}", program("grow_list")]
            procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for _ in range(2)]
            self.assertEqual([p.wait(timeout=300) for p in procs], [0, 0])
            names = sorted(os.listdir(tmp))
            self.assertIn("shared.json", names)
            pids = set()
            for name in names:  # the later one may keep its own name: none is half written
                with open(os.path.join(tmp, name)) as f:
                    pids.add(json.load(f)["pid"])
            self.assertTrue(pids <= {p.pid for p in procs}, (pids, names))


class SuppressionFiles(TestCase):
    def run_with(self, text, mode="w"):
        with tempfile.NamedTemporaryFile(mode, suffix=".supp", delete=False) as f:
            f.write(text)
        try:
            return start([f"--suppressions={f.name}"]) + (os.path.basename(f.name),)
        finally:
            os.unlink(f.name)

    def assertFatal(self, result, line, message):
        rc, out, name = result
        self.assertNotEqual(rc, 0, out)
        self.assertRegex(out, rf'FATAL: in suppressions file ".*{re.escape(name)}" near line {line}:')
        self.assertIn(message, out)
        self.assertNotRegex(out, CRASH)

    def test_empty_file_is_no_suppressions(self):
        rc, out, _ = self.run_with("")
        self.assertEqual(rc, 0, out)
        self.assertIn("HEAP GROWTH SUMMARY", out)

    def test_binary_file(self):
        rc, out, _ = self.run_with(bytes(range(256)) * 20, "wb")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("FATAL: in suppressions file", out)
        self.assertNotRegex(out, CRASH)

    def test_truncated_entry(self):
        self.assertFatal(self.run_with("{\n   name\n   memgrow:Growing\n   fun:mal"), 4,
                         "")

    def test_a_line_of_a_megabyte(self):
        # Valgrind's own reader asserts on lines of 51,199 characters.
        self.assertFatal(self.run_with("{\n  long\n  memgrow:Leaked\n  fun:" + "a" * 1_000_000 + "\n}\n"),
                         4, "the line is 50,000 characters or longer")

    def test_ten_thousand_entries(self):
        text = "".join(f"{{\n  s{i}\n  memgrow:Growing\n  fun:f{i}\n  fun:main\n}}\n"
                       for i in range(10_000))
        text += "{\n  real\n  memgrow:Growing\n  fun:remember\n}\n"
        rc, out, _ = self.run_with(text)
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"growing: 1 sites, [\d,]+ bytes \(1 suppressed\)|suppressed")


class Clients(TestCase):
    def misbehave(self, mode, **kw):
        return run([program("misbehave"), mode], **kw)

    def assertGrowthKept(self, report, blocks=4000):
        sites = sites_at(report, file="misbehave.c", line=GROW)
        self.assertEqual(sum(s["live_blocks"] for s in sites), blocks, report["teardown"])

    def test_abort_leaves_the_report(self):
        r = self.misbehave("abort")
        self.assertEqual(r.rc, -6, r.log)  # Valgrind dies of the client's signal
        self.assertEqual(r.report["teardown"], "process_end")
        self.assertGrowthKept(r.report)

    def test_killing_itself(self):
        for mode, rc in (("sigkill", -9), ("sigterm", -15)):
            with self.subTest(mode):
                r = self.misbehave(mode)
                self.assertEqual(r.rc, rc, r.log)
                self.assertNotRegex(r.log, CRASH)
                self.assertGrowthKept(r.report)

    def test_twenty_children(self):
        r = self.misbehave("fork20")
        self.assertEqual(r.rc, 0, r.log)
        self.assertEqual(len(r.reports), 21, r.log[-2000:])
        parent = [rep for rep in r.reports if rep["command"][-1] == "fork20" and
                  rep["ppid"] not in {x["pid"] for x in r.reports}]
        self.assertEqual(len(parent), 1)
        children = [rep for rep in r.reports if rep["ppid"] == parent[0]["pid"]]
        self.assertEqual(len(children), 20)
        for child in children:
            self.assertGrowthKept(child, 4010)

    def test_eight_allocating_threads(self):
        r = self.misbehave("threads8")
        self.assertEqual(r.rc, 0, r.log)
        line = source_line("tests/regress/misbehave.c", "THREAD_HERE")
        sites = sites_at(r.report, file="misbehave.c", line=line)
        self.assertEqual(sum(s["live_blocks"] for s in sites), 8000)

    def test_two_gigabytes(self):
        r = self.misbehave("big", timeout=600)
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("2 GiB: allocated", r.log)
        self.assertGreaterEqual(max(b["live_bytes"] for b in r.report["buckets"]), 2 << 30)

    def test_impossible_sizes_return_null(self):
        r = self.misbehave("huge")
        self.assertEqual(r.rc, 0, r.log)
        for line in ("malloc(-1): (nil)", "calloc overflow: (nil)", "realloc(p, -1): (nil)"):
            self.assertIn(line, r.log)
        self.assertNotRegex(r.log, CRASH)

    def test_exec_without_following_writes_what_ran_and_says_so(self):
        exe = program("exec_child")
        r = run([exe, "direct"], json_name="fixed.json")
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn(f"memgrow: the client execs {exe}, which Valgrind does not follow: "
                      "--trace-children=yes follows it; the report covers what ran before", r.log)
        mine = [s for s in r.report["sites"]
                if any((f["file"] or "").endswith("exec_child.c") for f in s["frames"])]
        self.assertEqual(sum(s["live_bytes"] for s in mine), 100 * 100)  # the parent's, not the child's

    def test_a_launcher_is_followed_to_the_program_it_execs(self):
        # A wrapper script chain, as pyenv's shim: env -> sh -> sh -> program.
        with tempfile.TemporaryDirectory() as tmp:
            inner = os.path.join(tmp, "inner.sh")
            outer = os.path.join(tmp, "outer")
            with open(inner, "w") as f:
                f.write(f'#!/bin/sh\nexec "{program("misbehave")}" "$@"\n')
            with open(outer, "w") as f:
                f.write(f'#!/usr/bin/env sh\nV=$(echo subshell)\nexec "{inner}" "$@"\n')
            os.chmod(inner, 0o755)
            os.chmod(outer, 0o755)
            r = run([outer, "plain"], json_name="r.%p.json")
            self.assertEqual(r.rc, 0, r.log)
            self.assertIn("plain done", r.log)
            self.assertIn(f"memgrow: following the exec of {program('misbehave')}", r.log)
            self.assertEqual(len(r.reports), 1, r.log)  # no report from the subshell
            self.assertGrowthKept(r.report)
            r = run([outer, "plain"], options=["--follow-launchers=no"])
            self.assertIn("which Valgrind does not follow", r.log)
            self.assertEqual(r.report["command"], [outer, "plain"])
            self.assertFalse(sites_at(r.report, file="misbehave.c"))

    def test_virtual_environment(self):
        with tempfile.TemporaryDirectory() as tmp:
            venv = os.path.join(tmp, "venv")
            subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", venv], check=True)
            r = run([os.path.join(venv, "bin", "python"), "-c", "import sys; print('prefix', sys.prefix)"],
                    options=["--leak-check=no"])
            self.assertEqual(r.rc, 0, r.log)
            self.assertIn(f"prefix {venv}", r.log)

    @unittest.skipUnless(os.path.exists(os.path.expanduser("~/.pyenv/shims/python3")),
                         "no pyenv shim on this machine")
    def test_pyenv_shim(self):
        shim = os.path.expanduser("~/.pyenv/shims/python3")
        r = run([shim, "-c", "import sys; kept = [bytes(100) for _ in range(3000)]; print(sys.executable)"])
        self.assertEqual(r.rc, 0, r.log)
        report = r.report
        self.assertTrue(os.path.basename(report["command"][0]).startswith("python"), report["command"])
        self.assertTrue(any(f["python"] for s in report["sites"] for f in s["frames"]))


if __name__ == "__main__":
    unittest.main()
