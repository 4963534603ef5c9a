# SPDX-License-Identifier: GPL-2.0-or-later
"""Options are validated at start-up like Valgrind's own; the clock can be
changed; the help lists memgrow's options."""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import VALGRIND, TestCase, program, run, sites_at, source_line  # noqa: E402


def start(options):
    p = subprocess.run([VALGRIND, "--tool=memgrow", *options, program("grow_list"), "10"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    return p.returncode, p.stdout


class Options(TestCase):
    def assertRejected(self, options, message):
        rc, out = start(options)
        self.assertNotEqual(rc, 0, out)
        self.assertIn(message, out)
        self.assertNotIn("HEAP GROWTH SUMMARY", out)  # the program never ran

    def test_quiet_keeps_the_findings_only(self):
        # -q, as memcheck: loss records and the growing site, no summaries.
        for prog, finding in (("leak_tree", "are definitely lost in loss record"),
                              ("grow_list", "GROWING 1 of 1: remember (grow_list.c:")):
            with self.subTest(program=prog):
                loud, quiet = run([program(prog)]), run([program(prog)], options=["-q"])
                for r in (loud, quiet):
                    self.assertIn(finding, r.log)
                    self.assertEqual(len(r.reports), 1)
                for summary in ("LEAK SUMMARY:", "HEAP GROWTH SUMMARY", "JSON report written"):
                    self.assertIn(summary, loud.log)
                    self.assertNotIn(summary, quiet.log)

    def test_bad_values_are_errors_at_start(self):
        self.assertRejected(["--time-unit=s"], "the time unit must be B, i or ms")
        self.assertRejected(["--depth=0"], "'--depth' argument must be between 1 and 256")
        self.assertRejected(["--depth=x"], "Invalid integer value 'x'")
        self.assertRejected(["--warmup=abc"], "expected a percentage (5%) or a number of clock units")
        self.assertRejected(["--warmup=95%"], "the warm-up must be at most 90% of the run")
        self.assertRejected(["--leak-check=maybe"], "expected no, summary or full")
        self.assertRejected(["--leak-check-heuristics=stdstring,python"],
                            "stdstring,length64,newarray,multipleinheritance,cpython")
        self.assertRejected(["--json-file="], "the file name is empty")
        self.assertRejected(["--no-such-option=1"], "Unknown option: --no-such-option=1")
        self.assertRejected(["--python-malloc=maybe"], "Invalid boolean value 'maybe'")
        self.assertRejected(["--python-free-lists=maybe"], "Invalid boolean value 'maybe'")
        self.assertRejected(["--json-sites=some"], "expected relevant or all")
        self.assertRejected(["--json-sites="], "--json-sites")

    def test_unwritable_json_file_is_an_error_at_start(self):
        self.assertRejected(["--json-file=/nonexistent-dir/report.json"],
                            "cannot write '/nonexistent-dir/report.json'")

    def test_help_lists_memgrow_options(self):
        p = subprocess.run([VALGRIND, "--tool=memgrow", "--help"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        for opt in ("--json-file", "--time-unit", "--depth", "--warmup", "--mark-warmup", "--top",
                    "--leak-check=no|summary|full", "--show-leak-kinds", "--leak-check-heuristics",
                    "--errors-for", "--python-malloc=no|yes", "--python-free-lists=yes|no",
                    "--addressability=yes, 262144 with no]", "--json-sites=relevant|all",
                    "--json-stable-min-bytes=<n>"):
            self.assertIn(opt, p.stdout)

    def test_json_sites(self):
        # The test runs pass --json-sites=all (mgtest.COMPLETE); a later
        # option wins, so the default is asked for by name.
        whole = run([program("grow_list")]).report
        small = run([program("grow_list")], options=["--json-sites=relevant"]).report
        self.assertEqual(whole["folded"], [])
        self.assertNotIn("omitted_sites", whole)
        self.assertGreaterEqual(small["omitted_sites"]["min_bytes"], 65536)
        line = source_line("tests/regress/grow_list.c", "GROW_HERE")
        for r in (whole, small):
            self.assertClass(r, "growing", file="grow_list.c", line=line)
        # The churn (92% of the bytes allocated, a peak of one block) is
        # listed; under a floor above what it allocated, it is folded.
        churn = source_line("tests/regress/grow_list.c", "CHURN_HERE")
        self.assertTrue(sites_at(small, file="grow_list.c", line=churn))
        high = run([program("grow_list")],
                   options=["--json-sites=relevant", "--json-stable-min-bytes=30000000"]).report
        self.assertFalse(sites_at(high, file="grow_list.c", line=churn))
        self.assertLess(len(high["sites"]), len(whole["sites"]))
        self.assertEqual(len(high["sites"]) + high["omitted_sites"]["sites"],
                         len(whole["sites"]))

    def test_instruction_clock(self):
        r = run([program("grow_list")], options=["--time-unit=i"]).report
        self.assertEqual(r["time_unit"], "i")
        self.assertGreater(r["teardown_at"], 1_000_000)  # instructions, not bytes
        line = source_line("tests/regress/grow_list.c", "GROW_HERE")
        self.assertClass(r, "growing", file="grow_list.c", line=line)

    def test_millisecond_clock(self):
        r = run([program("grow_list")], options=["--time-unit=ms"]).report
        self.assertEqual(r["time_unit"], "ms")
        self.assertGreater(len(r["buckets"]), 0)
        self.assertEqual(r["buckets"][-1]["end"], r["teardown_at"])

    def test_depth_limits_the_frames(self):
        r = run([program("grow_list")], options=["--depth=1"]).report
        line = source_line("tests/regress/grow_list.c", "GROW_HERE")
        site = self.assertClass(r, "growing", file="grow_list.c", line=line)[0]
        self.assertEqual(len(site["frames"]), 1)
        self.assertEqual(site["frames"][0]["function"], "remember")

    def test_a_json_file_without_pid_is_overwritten_by_the_next_run(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "fixed.json")
            for _ in range(2):
                rc, log = start([f"--json-file={out}"])
                self.assertEqual(rc, 0, log)
            self.assertEqual(os.listdir(tmp), ["fixed.json"], log)

    def test_default_json_file_name_has_the_pid(self):
        r = run([program("grow_list"), "10"], json_name="memgrow.out.%p.json")
        self.assertIn(f"memgrow.out.{r.report['pid']}.json", r.log)

    def test_warmup_option_moves_the_warmup_end(self):
        r = run([program("grow_list"), "1000"], options=["--warmup=50%"]).report
        self.assertEqual(r["warmup_end"], r["teardown_at"] // 2)
        # A share of the run is known only at its end: the buckets stay equal.
        self.assertEqual(r["buckets"][1]["end"] - r["buckets"][0]["end"], r["bucket_width"])

    def test_warmup_in_clock_units_starts_the_buckets_afresh(self):
        whole = run([program("grow_list"), "4000"]).report
        n = whole["teardown_at"] * 3 // 4
        r = run([program("grow_list"), "4000"], options=[f"--warmup={n}"]).report
        self.assertEqual(r["warmup_end"], n)
        # Bucket 0 is the warm-up (it ends at the first allocation at or past
        # N); the last quarter of the run has buckets of its own, at least 32.
        self.assertGreaterEqual(r["buckets"][0]["end"], n)
        self.assertLess(r["buckets"][0]["end"], n + 1024)
        self.assertGreaterEqual(len(r["buckets"]), 33)
        self.assertLess(r["bucket_width"], whole["bucket_width"] // 2)
        line = source_line("tests/regress/grow_list.c", "GROW_HERE")
        self.assertClass(r, "growing", file="grow_list.c", line=line)

    def test_freelist_vol_default_follows_addressability(self):
        # 1 MB freed between two frees of one block: past the growth hunt's
        # 256 KiB queue, within memcheck's 20,000,000 bytes, which
        # --addressability=yes keeps, and --freelist-vol (or its old name)
        # given by the user wins over either default.
        def kinds(*options):
            r = run([program("double_free_late"), "1000000"], options=list(options))
            self.assertIn("still running", r.log)
            return [e["kind"] for e in r.report["errors"]]

        self.assertEqual(kinds("--addressability=no"), ["InvalidFree"])
        self.assertEqual(kinds("--addressability=yes"), ["DoubleFree"])
        self.assertEqual(kinds("--addressability=no", "--freelist-vol=20000000"), ["DoubleFree"])
        self.assertEqual(kinds("--quarantine-bytes=20000000"), ["DoubleFree"])
        self.assertEqual(kinds("--addressability=yes", "--freelist-vol=262144"), ["InvalidFree"])
        # Within 256 KiB the first free is still known.
        r = run([program("double_free_late"), "100000"], options=["--addressability=no"])
        self.assertEqual([e["kind"] for e in r.report["errors"]], ["DoubleFree"])


if __name__ == "__main__":
    unittest.main()
