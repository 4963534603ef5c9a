# SPDX-License-Identifier: GPL-2.0-or-later
"""Records: every malloc-family entry point, device spaces through client
requests, mid-run reports, and bounded tool memory."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import TestCase, program, run, source_line, sites_at  # noqa: E402


class Records(TestCase):
    def test_every_allocation_function_is_recorded_with_its_size(self):
        r = run([program("alloc_family")])
        self.assertEqual(r.rc, 0, r.log)
        self.assertNotIn("FAILED", r.log)
        self.assertIn("ERROR SUMMARY: 0 errors", r.log)
        sizes = sorted(s["live_bytes"] for s in sites_at(r.report, file="alloc_family.cpp")
                       if s["live_bytes"])
        # calloc 1010, realloc 1020, memalign 1030, posix_memalign 1040,
        # valloc 1050, new[] 1060 and 1056, aligned new[] 1070, aligned_alloc
        # 1280, malloc 1001 (its failed realloc left it in place).
        self.assertEqual(sizes, [1001, 1010, 1020, 1030, 1040, 1050, 1056, 1060, 1070, 1280])
        freed = [s for s in sites_at(r.report, file="alloc_family.cpp")
                 if s["allocated_bytes"] == 77]
        self.assertEqual(len(freed), 1)
        self.assertEqual(freed[0]["live_bytes"], 0)

    def test_device_allocations_get_their_own_space(self):
        r = run([program("device_requests")])
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        line = source_line("tests/regress/device_requests.c", "DEVICE_HERE")
        site = self.assertClass(rep, "growing", file="device_requests.c", line=line)[0]
        self.assertEqual(site["space"], "device")
        self.assertEqual(site["device"], 1)
        self.assertEqual(site["live_bytes"], 400 << 20)
        managed = [s for s in rep["sites"] if s["space"] == "managed"]
        self.assertEqual(len(managed), 1)
        self.assertEqual(managed[0]["live_bytes"], 0)
        self.assertEqual(managed[0]["allocated_blocks"], 400)
        self.assertIn("device", rep["buckets"][-1]["spaces"])
        self.assertEqual(rep["buckets"][-1]["spaces"]["device"]["live_bytes"], 400 << 20)

    def test_stacks_reached_through_different_callers_are_told_apart(self):
        r = run([program("stack_paths")], options=["-v"])
        self.assertEqual(r.rc, 0, r.log)
        src = "tests/regress/stack_paths.c"
        make = source_line(src, "MAKE_HERE")
        sites = sites_at(r.report, file="stack_paths.c", line=make)
        # Exact block counts and sizes per path: 3000 of each size, and the
        # recursive path once per depth 0..4 (600 each).
        by_path = {}
        for s in sites:
            lines = tuple(f["line"] for f in s["frames"] if f["file"] and
                          f["file"].endswith("stack_paths.c"))
            by_path[lines] = (s["live_blocks"], s["live_bytes"])
        left, right = source_line(src, "LEFT_HERE"), source_line(src, "RIGHT_HERE")
        self.assertEqual(by_path[(make, left, source_line(src, "CALL_LEFT"))], (3000, 3000 * 16))
        self.assertEqual(by_path[(make, right, source_line(src, "CALL_RIGHT"))], (3000, 3000 * 32))
        self.assertEqual(by_path[(make, left, source_line(src, "CALL_LEFT_AGAIN"))],
                         (3000, 3000 * 64))
        recursive = [v for k, v in by_path.items() if source_line(src, "RECURSE_HERE") in k or
                     len(k) == 3 and k[1] not in (left, right)]
        self.assertEqual(sorted(recursive), [(600, 600 * 128)] * 5)
        self.assertEqual(len(sites), 8)
        # The cache was used (and so was tested).
        self.assertRegex(r.log, r"stack cache: [1-9][0-9,]* hits")

    def test_threads_allocating_at_once(self):
        r = run([program("threads")])
        self.assertEqual(r.rc, 0, r.log)
        src = "tests/regress/threads.c"
        keep = sites_at(r.report, file="threads.c", line=source_line(src, "KEEP_HERE"))
        # One stack, so one site for the four threads: every block counted.
        self.assertEqual([(s["live_blocks"], s["live_bytes"]) for s in keep],
                         [(8000, sum(2000 * (48 + t) for t in range(4)))])
        for s in keep:
            functions = [f["function"] for f in s["frames"]]
            self.assertEqual(functions[0], "worker")
            self.assertIn("start_thread", functions)
        scratch = sites_at(r.report, file="threads.c", line=source_line(src, "SCRATCH_HERE"))
        self.assertEqual(sum(s["allocated_blocks"] for s in scratch), 4 * 2000)
        self.assertEqual(sum(s["live_blocks"] for s in scratch), 0)

    def test_allocations_on_a_coroutine_stack(self):
        r = run([program("coroutine")])
        self.assertEqual(r.rc, 0, r.log)
        line = source_line("tests/regress/coroutine.c", "CO_ALLOC_HERE")
        sites = sites_at(r.report, file="coroutine.c", line=line)
        self.assertEqual(sum(s["live_blocks"] for s in sites), 1000)
        for s in sites:
            self.assertEqual(s["frames"][0]["function"], "body")

    def test_report_on_request_mid_run(self):
        r = run([program("report_midrun")])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("mid report: 1", r.log)
        self.assertIn("garbage name: 0", r.log)
        self.assertIn("MEMGROW_REPORT: the file name is not readable", r.log)
        self.assertEqual(len(r.reports), 2)
        mid = [rep for rep in r.reports if rep["teardown"] == "running"]
        end = [rep for rep in r.reports if rep["teardown"] == "exit"]
        self.assertEqual((len(mid), len(end)), (1, 1))
        line = source_line("tests/regress/report_midrun.c", "ALLOC_HERE")
        live = lambda rep: sum(s["live_blocks"] for s in sites_at(rep, file="report_midrun.c",
                                                                   line=line))
        self.assertEqual(live(mid[0]), 1000)
        self.assertEqual(live(end[0]), 2000)

    def test_site_count_and_series_do_not_grow_with_run_length(self):
        short = run([program("grow_list"), "2000"]).report
        long = run([program("grow_list"), "40000"]).report
        self.assertEqual(len(short["sites"]), len(long["sites"]))
        self.assertLessEqual(len(long["buckets"]), 64)
        self.assertGreater(long["bucket_width"], short["bucket_width"])

    def test_ended_sites_get_compact_records_and_nothing_tells(self):
        # 512 sites allocate one block and free it, and a use after free
        # names one more such site; once their blocks leave the quarantine
        # (every 16 of them here, 64 Ki by default) their records are
        # compacted. Then half of them allocate again (revived), and a sixth
        # of those lose their block. Report and log must be the same as
        # without compaction.
        prog = [program("one_shot_sites")]
        opts = ["-v", "--freelist-vol=100000"]
        plain = run(prog, options=opts + ["--site-compaction=0"])
        packed = run(prog, options=opts + ["--site-compaction=16"])
        for r in (plain, packed):
            # memcheck's: the 86 kept blocks main drops (a stale copy of one
            # in the stack exit() covers kept it reachable before).
            self.assertIn("definitely lost: 2,064 bytes in 86 blocks", r.log)
        counts = re.search(r"site records: ([\d,]+) ended, ([\d,]+) compacted, ([\d,]+) "
                           r"revived, ([\d,]+) compact at exit", packed.log)
        self.assertIsNotNone(counts, packed.log[-2000:])
        self.assertEqual([int(c.replace(",", "")) for c in counts.groups()], [513, 513, 256, 257])
        self.assertIn("site records: 0 ended, 0 compacted", plain.log)

        def without_pid(rep):
            return {k: v for k, v in rep.items() if k != "pid"}
        self.assertEqual(without_pid(plain.report), without_pid(packed.report))

        def messages(log):
            return [re.sub(r"^==\d+== ", "", line) for line in log.splitlines()
                    if line.startswith("==") and
                    not re.search(r"site records|vgdb|stack cache|written to|took [\d.]+ ms", line)]
        self.assertEqual(messages(plain.log), messages(packed.log))
        # The use after free: its block's site is still compact at exit, and
        # the error names its allocation line.
        src = "tests/regress/one_shot_sites.c"
        err = packed.report["errors"][0]
        self.assertEqual((os.path.basename(err["alloc_frames"][0]["file"]),
                          err["alloc_frames"][0]["line"]),
                         ("one_shot_sites.c", source_line(src, "UAF_ALLOC_HERE")))
        ended = sites_at(packed.report, file="one_shot_sites.c",
                         line=source_line(src, "ONE_SHOT_HERE"))
        self.assertEqual(len(ended), 512)
        self.assertEqual(sum(s["allocated_blocks"] for s in ended), 512 + 256)


if __name__ == "__main__":
    unittest.main()
