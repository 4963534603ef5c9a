# SPDX-License-Identifier: GPL-2.0-or-later
"""Reports from a running process (vgdb's `report`, --report-every snapshots
that survive a SIGKILL) and the projection to a memory limit (--limit, the
cgroup's limit, --mark-rate)."""
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import VALGRIND, TestCase, program, run, sites_at, source_line  # noqa: E402

SERVICE = os.path.join(mgtest.SRC, "tests", "regress", "py_live_service.py")
STATS = source_line("tests/regress/py_live_service.py", "STATS_INSERT")
RECENT = source_line("tests/regress/py_live_service.py", "RECENT_APPEND")


def classes_at(report, line):
    return {s["class"] for s in sites_at(report, file="py_live_service.py", line=line)}


class ReportOnRequest(TestCase):
    def assertServiceClasses(self, report):
        self.assertIn("growing", classes_at(report, STATS), mgtest.describe(report))
        self.assertIn("plateau", classes_at(report, RECENT), mgtest.describe(report))
        self.assertNotIn("growing", classes_at(report, RECENT))

    def test_vgdb_report_halfway_and_the_final_one(self):
        with tempfile.TemporaryDirectory(prefix="memgrow-test-live-") as tmp:
            svc = mgtest.Service(tmp, [sys.executable, SERVICE, "4000", os.path.join(tmp, "go")])
            try:
                svc.expect("half")
                mid = os.path.join(tmp, "mid.json")
                out = svc.vgdb("report", mid)
                self.assertIn(f"memgrow: report written to {mid}", out)
                with_leaks = os.path.join(tmp, "mid-leaks.json")
                self.assertIn(f"report written to {with_leaks}", svc.vgdb("report", with_leaks, "leaks"))
                self.assertIn("report [<file>] [leaks]", svc.vgdb("help"))
                self.assertEqual(svc.finish(svc.go), 0, svc.log())
            finally:
                svc.close()
            half = mgtest.load_report(mid)
            half_leaks = mgtest.load_report(with_leaks)
            final = mgtest.load_report(svc.json)
        self.assertEqual(half["teardown"], "running")
        self.assertNotIn("leak_check", half)  # no scan unless asked
        self.assertIn("leak_check", half_leaks)
        self.assertLess(half["marks"]["count"], final["marks"]["count"])
        self.assertEqual(final["marks"]["count"], 4000)
        self.assertServiceClasses(half)
        self.assertServiceClasses(final)

    def test_snapshots_survive_sigkill(self):
        with tempfile.TemporaryDirectory(prefix="memgrow-test-live-") as tmp:
            out = os.path.join(tmp, "snap.json")
            proc = subprocess.Popen([VALGRIND, "--tool=memgrow", *mgtest.COMPLETE,
                                     f"--json-file={out}",
                                     "--report-every=1s", sys.executable, SERVICE, "0", "forever"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                report, deadline = None, time.time() + 240
                while time.time() < deadline:
                    time.sleep(1)
                    if os.path.exists(out):
                        # never half written: renamed into place
                        report = mgtest.load_report(out)
                        if report["marks"]["count"] > 2000 and "growing" in classes_at(report, STATS):
                            break
                proc.send_signal(signal.SIGKILL)
            finally:
                proc.wait(timeout=60)
            self.assertIsNotNone(report, "no snapshot in 240 s")
            last = mgtest.load_report(out)
            # A kill in the middle of a snapshot leaves its temporary file, never a half report.
            self.assertEqual([n for n in os.listdir(tmp) if not n.startswith("snap.json.tmp.")],
                             ["snap.json"])
        self.assertEqual(last["teardown"], "running")
        self.assertGreaterEqual(last["marks"]["count"], report["marks"]["count"])
        self.assertIn("growing", classes_at(last, STATS), mgtest.describe(last))

    def test_snapshots_by_clock_share_and_their_pauses(self):
        r = run([program("grow_list")], options=["--report-every=50%", "-v"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertRegex(r.log, r"memgrow: \d+ snapshots, pauses \d+ ms in all, \d+ ms at most")
        self.assertEqual(r.report["teardown"], "exit")  # the final report replaced the snapshots

    def test_bad_values(self):
        for option, message in (("--report-every=10", "expected a positive duration"),
                                ("--report-every=0s", "expected a positive duration"),
                                ("--report-every=-5m", "expected a positive duration"),
                                ("--report-every=1d", "expected a positive duration"),
                                ("--limit=0", "expected a size in bytes"),
                                ("--limit=16X", "expected a size in bytes"),
                                ("--limit=-1G", "expected a size in bytes"),
                                ("--mark-rate=100", "expected marks per second"),
                                ("--mark-rate=0/s", "expected marks per second"),
                                ("--mark-rate=x/s", "expected marks per second"),
                                # Issue 43, C2: overflowing, or past 10^9 a second.
                                ("--mark-rate=99999999999999999999/h", "at most 10^9/s"),
                                ("--mark-rate=1000000001/s", "at most 10^9/s")):
            with self.subTest(option):
                r = run([program("grow_list")], options=[option])
                self.assertNotEqual(r.rc, 0)
                self.assertIn(f"Bad option: {option}", r.log)
                self.assertIn(message, r.log)


class Projection(TestCase):
    def test_marks_to_limit_on_a_known_growth(self):
        # mark_leak keeps 96 bytes a request and marks each request.
        r = run([program("mark_leak"), "600"], options=["--limit=2M", "--mark-rate=50/s"])
        self.assertEqual(r.rc, 0, r.log)
        p = r.report["projection"]
        self.assertEqual((p["limit_bytes"], p["limit_source"], p["basis"]), (2 << 20, "option", "marks"))
        self.assertAlmostEqual(p["rate_per_mark"], 96, delta=9.6)
        expected = ((2 << 20) - p["live_bytes"]) / 96
        self.assertAlmostEqual(p["marks_to_limit"], expected, delta=expected / 10)
        self.assertAlmostEqual(p["hours_to_limit"], p["marks_to_limit"] / (50 * 3600), delta=0.01)
        line = source_line("tests/regress/mark_leak.c", "PER_MARK_HERE")
        top = [s for s in r.report["sites"] if s["id"] == p["top_site"]][0]
        self.assertTrue(any(f["line"] == line for f in top["frames"]), top["frames"])
        self.assertEqual([s["share"] for s in p["sites"]], [1])
        self.assertRegex(r.log, r"projection: the heap \([\d.]+ KiB now\) reaches the 2 MiB limit "
                                r"\(--limit\) after ~2\dk more marks \(~[\d.]+ min at --mark-rate\), "
                                r"at \+96 bytes per mark, 100% of it at handle_request \(mark_leak.c:\d+\)")

    def test_bounded_holders_over_the_limit_only_when_full(self):
        # Issue 43, B12: 192,000 bytes live, 9.2 MiB once the array's
        # 100,000 slots are full: "already over the 1 MiB limit" was the
        # heap at the bound, not now.
        r = run([program("bounded_marks")], options=["--limit=1M", "--mark-rate=10/s"])
        self.assertEqual(r.rc, 0, r.log)
        p = r.report["projection"]
        self.assertEqual(p["live_bytes"], 2000 * 96)
        self.assertGreater(p["live_bytes"] + p["to_bounds_bytes"], 1 << 20)
        self.assertNotIn("already over", r.log)
        expected = ((1 << 20) - p["live_bytes"]) / 96
        self.assertAlmostEqual(p["marks_to_limit"], expected, delta=expected / 10)
        self.assertRegex(r.log, r"projection: at its holders' bounds the heap would be 9\.\d MiB, "
                                r"over the 1 MiB limit \(--limit\): the heap \(1\d\d KiB now\) "
                                r"reaches it after ~\d\.\dk more marks \(~1\d min at --mark-rate\), "
                                r"at \+96 bytes per mark")
        # Over the limit now: said so, with the heap now.
        r = run([program("bounded_marks")], options=["--limit=100K"])
        self.assertIn("projection: the heap (188 KiB) is already over the 100 KiB limit (--limit)",
                      r.log)
        # Under it even at the bounds.
        r = run([program("bounded_marks")], options=["--limit=20M"])
        self.assertRegex(r.log, r"the heap \(188 KiB now, 9\.\d MiB at its holders' bounds\) "
                                r"stays under the 20 MiB limit")

    def test_times_in_words_of_their_size(self):
        # Issue 43, C2: "~0 min", "~74564571111111.1 days", "~3817748624.2 days".
        for options, words in ((["--limit=2M", "--mark-rate=1000000000/s"], "under a minute"),
                               (["--limit=2M", "--mark-rate=30/h"], r"~2\d\.\d days"),
                               (["--limit=2M", "--mark-rate=1/h"], r"~2\.\d years"),
                               (["--limit=2M", "--mark-rate=0.0000001/h"], "more than 1,000 years"),
                               (["--limit=8T", "--mark-rate=1/h"], "more than 1,000 years")):
            with self.subTest(options):
                r = run([program("mark_leak"), "600"], options=options)
                self.assertRegex(r.log, rf"more marks \({words} at --mark-rate\)")

    def test_limit_by_the_clock_without_marks(self):
        r = run([program("grow_list")], options=["--limit=64M"])
        p = r.report["projection"]
        self.assertEqual(p["basis"], "clock")
        self.assertIsNone(p["marks_to_limit"])
        expected = ((64 << 20) - p["live_bytes"]) / p["rate_per_clock"]
        self.assertAlmostEqual(p["clock_to_limit"], expected, delta=expected / 1000)
        self.assertIn("more allocated, at +", r.log)

    def test_default_limit_from_the_cgroup(self):
        with tempfile.TemporaryDirectory() as tmp:
            limit = os.path.join(tmp, "memory.max")
            with open(limit, "w") as f:
                f.write("4294967296\n")
            r = run([program("churn")], env={"MEMGROW_TEST_MEMORY_MAX": limit})
            p = r.report["projection"]
            self.assertEqual((p["limit_bytes"], p["limit_source"]), (4 << 30, "cgroup"))
            self.assertIn("no site grows", r.log)
            # No limit, so no projection: "max", and (issue 43, C2) a number
            # that overflows (was 178 PiB) or is followed by garbage (was
            # 12.1 KiB), said so with -v.
            for text in ("max", "99999999999999999999999", "12345abc"):
                with self.subTest(text):
                    with open(limit, "w") as f:
                        f.write(text + "\n")
                    r = run([program("churn")], options=["-v"],
                            env={"MEMGROW_TEST_MEMORY_MAX": limit})
                    self.assertNotIn("projection", r.report)
                    self.assertNotIn("projection:", r.log)
                    self.assertEqual(f"{limit} does not hold a limit in bytes" in r.log,
                                     text != "max", r.log)

    def test_a_fifo_for_the_cgroup_file_does_not_block(self):
        # Issue 43, C2: opening the FIFO waited for a writer before the
        # program started.
        with tempfile.TemporaryDirectory() as tmp:
            fifo = os.path.join(tmp, "memory.max")
            os.mkfifo(fifo)
            r = run([program("churn")], env={"MEMGROW_TEST_MEMORY_MAX": fifo}, timeout=60)
            self.assertEqual(r.rc, 0, r.log)
            self.assertNotIn("projection", r.report)


if __name__ == "__main__":
    unittest.main()
