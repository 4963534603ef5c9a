# SPDX-License-Identifier: GPL-2.0-or-later
"""memgrow's leak scan agrees with memcheck's, byte for byte.

Each leak_*.c / leak_*.cpp program is one reachability case (definitely,
indirectly, possibly lost, still reachable; roots in globals, thread stacks and
registers; memcheck's heuristics). Every program runs under memcheck and under
memgrow in the same test run; memgrow's lost totals must equal memcheck's, and
both must equal the numbers the program was written to produce, so the test
fails when both tools are wrong the same way.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import TestCase, frames_text, program, run, sites_at, source_line  # noqa: E402

SRC = "tests/regress"
LOST = ("definite", "indirect", "possible")
KINDS = LOST + ("reachable", "suppressed")
LABELS = {
    "definitely lost": "definite",
    "indirectly lost": "indirect",
    "possibly lost": "possible",
    "still reachable": "reachable",
    "suppressed": "suppressed",
}
SUMMARY_LINE = re.compile(
    r"^(?:==\d+==)?\s*(definitely lost|indirectly lost|possibly lost|still reachable|suppressed):"
    r" ([\d,]+) bytes in ([\d,]+) blocks\s*$")
NO_LEAKS = "All heap blocks were freed -- no leaks are possible"


def number(text):
    return int(text.replace(",", ""))


def parse_leak_summary(log):
    """{kind: (bytes, blocks)} from the last LEAK SUMMARY of a log (memcheck's
    format, also memgrow's); all zeros when the log says no leaks are possible;
    None when it has neither."""
    at = log.rfind("LEAK SUMMARY:")
    if at < 0:
        return dict.fromkeys(KINDS, (0, 0)) if NO_LEAKS in log else None
    out = {}
    for line in log[at:].splitlines()[1:]:
        m = SUMMARY_LINE.match(line)
        if m:
            out[LABELS[m.group(1)]] = (number(m.group(2)), number(m.group(3)))
            if m.group(1) == "suppressed":
                break
        elif "reachable via heuristic" in line or re.search(r"^(==\d+==)?\s+\w+\s*: ", line):
            continue  # "of which reachable via heuristic:" and its per-heuristic lines
        else:
            break
    return out


def suppressed_by_kind(report):
    """Lost (bytes, blocks) of the sites whose loss records a suppression silenced."""
    out = {}
    for kind in LOST:
        out[kind] = (sum(s["lost"][kind] for s in report["sites"] if s["lost_suppressed"]),
                     sum(s["lost_blocks"][kind] for s in report["sites"] if s["lost_suppressed"]))
    return out


def memcheck(argv, options=(), timeout=300, env=None):
    """Runs argv under memcheck (through the same launcher), with env's
    variables added; returns (rc, log)."""
    with tempfile.TemporaryDirectory(prefix="memgrow-test-memcheck-") as tmp:
        p = subprocess.run(
            [mgtest.VALGRIND, "--tool=memcheck", "--leak-check=full", *options, *argv],
            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
            text=True, errors="replace", env={**os.environ, **(env or {})})
    return p.returncode, p.stdout


# Per program: the totals memcheck reports (bytes, blocks) -- None where they
# depend on glibc (the DTV of a running thread: 272 bytes possibly lost on
# Debian 12), then only memgrow == memcheck is checked -- and, per marker
# comment on an allocation line, the (definite, indirect, possible) lost bytes
# of the sites allocated there.
CASES = {
    "leak_stale_heap": dict(
        src="leak_stale_heap.c",
        definite=(300, 2), indirect=(0, 0), possible=(0, 0), reachable=(64 * 64 + 256 * 1024, 65),
        sites={"STALE_TARGET": (300, 0, 0), "REUSED_HERE": (0, 0, 0)}),
    "leak_unreadable": dict(
        src="leak_unreadable.c",
        definite=(300, 2), indirect=(0, 0), possible=(0, 0), reachable=(50, 1),
        sites={"HIDDEN_HERE": (300, 0, 0)}),
    "leak_lost_block": dict(
        src="leak_lost_block.c",
        definite=(2000, 1), indirect=(0, 0), possible=(0, 0), reachable=(200, 1),
        sites={"LOST_HERE": (2000, 0, 0), "KEPT_HERE": (0, 0, 0)}),
    "leak_tree": dict(
        src="leak_tree.c",
        definite=(32, 1), indirect=(48 + 64 + 80, 3), possible=(0, 0), reachable=(0, 0),
        sites={"ROOT_HERE": (32, 0, 0), "LEFT_HERE": (0, 48, 0), "RIGHT_HERE": (0, 64, 0),
               "GRANDCHILD_HERE": (0, 80, 0)}),
    "leak_cycle": dict(
        src="leak_cycle.c",
        definite=(64, 1), indirect=(64, 1), possible=(0, 0), reachable=(0, 0),
        sites={"NODE_HERE": (64, 64, 0)}),
    "leak_interior": dict(
        src="leak_interior.c",
        definite=(24, 1), indirect=(0, 0), possible=(256, 1), reachable=(0, 0),
        sites={"LOST_HERE": (24, 0, 0), "INTERIOR_HERE": (0, 0, 256)}),
    "leak_global": dict(
        src="leak_global.c",
        definite=(50, 1), indirect=(0, 0), possible=(0, 0), reachable=(40 + 3 * 16 + 72, 5),
        sites={"LOST_HERE": (50, 0, 0), "GLOBAL_HERE": (0, 0, 0), "INNER_HERE": (0, 0, 0),
               "ARRAY_HERE": (0, 0, 0)}),
    "leak_thread_stack": dict(
        src="leak_thread_stack.c",
        definite=(100, 1), indirect=(0, 0), possible=None, reachable=(333, 1),
        suppressed=(272, 1),  # the running thread's DTV (suppressions/glibc.supp)
        sites={"LOST_HERE": (100, 0, 0), "ON_STACK_HERE": (0, 0, 0)}),
    "leak_register": dict(
        src="leak_register.c",
        definite=(3000 + 700, 2), indirect=(0, 0), possible=None, reachable=(4000, 1),
        suppressed=(272, 1),
        sites={"LOST_HERE": (700, 0, 0), "MAIN_REGISTER_HERE": (3000, 0, 0),
               "THREAD_REGISTER_HERE": (0, 0, 0)}),
    "leak_cxx_interior": dict(
        src="leak_cxx_interior.cpp",
        definite=(56, 1), indirect=(0, 0), possible=(0, 0), reachable=(8 + 57 + 88, 3),
        heuristics=["stdstring          : 57 bytes in 1 blocks",
                    "newarray           : 88 bytes in 1 blocks"],
        sites={"LOST_ARRAY_HERE": (56, 0, 0), "STRING_HERE": (0, 0, 0), "ARRAY_HERE": (0, 0, 0)},
        # With --leak-check-heuristics=none the interior pointers only make
        # the blocks possibly lost.
        no_heuristics=dict(possible=(57 + 88, 2),
                           sites={"STRING_HERE": (0, 0, 57), "ARRAY_HERE": (0, 0, 88),
                                  "LOST_ARRAY_HERE": (56, 0, 0)})),
    "leak_multi_inherit": dict(
        src="leak_multi_inherit.cpp",
        definite=(40, 1), indirect=(0, 0), possible=(0, 0), reachable=(40, 1),
        heuristics=["multipleinheritance: 40 bytes in 1 blocks"],
        sites={"LOST_HERE": (40, 0, 0), "OBJECT_HERE": (0, 0, 0)},
        no_heuristics=dict(possible=(40, 1),
                           sites={"OBJECT_HERE": (0, 0, 40), "LOST_HERE": (40, 0, 0)})),
    # A destructor at exit frees the list's head, not its nodes: memcheck's
    # totals, and all the nodes lost by teardown (reachable when exit()
    # began); the program's own loss stays leaked.
    "teardown_list": dict(
        src="teardown_list.c",
        definite=(48 + 2000, 2), indirect=(99 * 48, 99), possible=(0, 0), reachable=(0, 0),
        sites={"NODE_HERE": (48, 99 * 48, 0), "LOST_HERE": (2000, 0, 0), "HEAD_HERE": (0, 0, 0)},
        teardown={"NODE_HERE": (48, 99 * 48, 0), "LOST_HERE": (0, 0, 0)}),
    # Before MEMGROW_WARMUP_END a table is dropped and a block lost: lost at
    # start-up, not leaked; then the program's own loss per request.
    "startup_losses": dict(
        src="startup_losses.c",
        definite=(48 + 1000 + 20 * 64, 22), indirect=(9 * 48, 9), possible=(0, 0),
        reachable=(0, 0),
        sites={"STARTUP_NODE_HERE": (48, 9 * 48, 0), "STARTUP_LOST_HERE": (1000, 0, 0),
               "REQUEST_LOST_HERE": (20 * 64, 0, 0)},
        startup={"STARTUP_NODE_HERE": (48, 9 * 48, 0), "STARTUP_LOST_HERE": (1000, 0, 0),
                 "REQUEST_LOST_HERE": (0, 0, 0)}),
    # Custom allocators annotated with valgrind.h's requests: the malloc()ed
    # arena or superblock holding their blocks is left out, as memcheck
    # leaves it out.
    "custom_arena": dict(
        src="custom_arena.c",
        definite=(20000, 100), indirect=(0, 0), possible=(0, 0),
        reachable=(20000 * 32 + 150, 20001),
        sites={"LOST_HERE": (20000, 0, 0), "GROW_HERE": (0, 0, 0), "BUFFER_HERE": (0, 0, 0)}),
    "custom_pool": dict(
        src="custom_pool.c",
        definite=(320, 5), indirect=(0, 0), possible=(0, 0),
        reachable=(5000 * 32 + 9 * 100 + 120 + 48 + 24, 5012),
        sites={"LOST_HERE": (320, 0, 0), "GROW_HERE": (0, 0, 0), "KEPT_HERE": (0, 0, 0),
               "TRIMMED_HERE": (0, 0, 0)}),
}
NO_HEURISTICS = ["--leak-check-heuristics=none"]


def program_lost(site, kind):
    """What the program lost at a site: memcheck's exit figure less what was
    allocated before start-up ended and what was reachable when teardown
    began."""
    return (site["lost"][kind] - site.get("lost_by_teardown", {}).get(kind, 0)
            - site.get("lost_at_startup", {}).get(kind, 0))


def describe_lost(report):
    return "\n".join(f"  {s['class']:8} lost={s.get('lost')} {frames_text(s)}"
                     for s in report["sites"])


class Leaks(TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        # All runs at once: each is a second or two of one core.
        cls.futures = {}
        workers = max(2, os.cpu_count() or 2)
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            for name, case in CASES.items():
                argv = [program(name)]
                cls.futures[("memcheck", name)] = pool.submit(memcheck, argv)
                cls.futures[("memgrow", name)] = pool.submit(run, argv)
                if "no_heuristics" in case:
                    none = NO_HEURISTICS
                    cls.futures[("memcheck-none", name)] = pool.submit(memcheck, argv, none)
                    cls.futures[("memgrow-none", name)] = pool.submit(run, argv, none)

    def result(self, tool, name):
        return self.futures[(tool, name)].result()  # re-raises what the run raised

    # -- memcheck's side ---------------------------------------------------

    def memcheck_summary(self, tool, name):
        rc, log = self.result(tool, name)
        self.assertEqual(rc, 0, log)
        mc = parse_leak_summary(log)
        self.assertIsNotNone(mc, f"no LEAK SUMMARY from memcheck:\n{log}")
        self.assertEqual(set(mc), set(KINDS), log)
        return mc, log

    # -- memgrow's side ----------------------------------------------------

    def leak_check(self, r):
        """memgrow's `leak_check` as {kind: (bytes, blocks)}, its shape checked."""
        self.assertEqual(r.rc, 0, r.log)
        rep = r.report
        self.assertIn("leak_check", rep, f"no leak_check in memgrow's report:\n{r.log}")
        lc = rep["leak_check"]
        out = {}
        for kind in KINDS:
            self.assertIn(kind, lc, lc)
            self.assertLessEqual({"bytes", "blocks"}, set(lc[kind]), lc)
            self.assertIsInstance(lc[kind]["bytes"], int, lc)
            self.assertIsInstance(lc[kind]["blocks"], int, lc)
            out[kind] = (lc[kind]["bytes"], lc[kind]["blocks"])
        return out

    def check_log(self, log, lc):
        """memgrow's log has a LEAK SUMMARY that agrees with its report."""
        self.assertIn("LEAK SUMMARY:", log)
        summary = parse_leak_summary(log)
        self.assertIn("definite", summary, log)
        for kind, value in summary.items():
            self.assertEqual(value, lc[kind], f"{kind} in memgrow's log vs its report:\n{log}")
        b, n = lc["definite"]
        self.assertIn(f"definitely lost: {b:,} bytes in {n:,} blocks", log)
        # Start-up's and teardown's parts are "of the lost above": not of
        # the suppressed line.
        lost = sum(lc[k][0] for k in LOST)
        for part in re.findall(r"lost (?:at start-up|by teardown): ([\d,]+) bytes", log):
            self.assertLessEqual(number(part), lost, log)

    def check_sites(self, rep, src, expected, lc):
        for s in rep["sites"]:
            self.assertIn("lost", s, describe_lost(rep))
            self.assertLessEqual(set(LOST), set(s["lost"]), describe_lost(rep))
            # a site where the program lost bytes is "leaked" (it beats every
            # other class); teardown's losses are not
            if program_lost(s, "definite") > 0:
                self.assertEqual(s["class"], "leaked", describe_lost(rep))
            elif program_lost(s, "indirect") == 0:
                self.assertNotEqual(s["class"], "leaked", describe_lost(rep))
        # Per site and in total, the same bytes (suppressed sites apart).
        for kind in LOST:
            self.assertEqual(sum(s["lost"][kind] for s in rep["sites"]
                                 if not s["lost_suppressed"]), lc[kind][0],
                             f"{kind}: sites vs leak_check\n{describe_lost(rep)}")
        for marker, want in expected.items():
            line = source_line(f"{SRC}/{src}", f"/* {marker}")  # not the header's mentions
            sites = sites_at(rep, file=src, line=line)
            self.assertTrue(sites, f"no site at {src}:{line} ({marker}):\n{describe_lost(rep)}")
            got = tuple(sum(s["lost"][k] for s in sites) for k in LOST)
            self.assertEqual(got, want, f"{marker} ({src}:{line}) lost (definite, indirect, "
                             f"possible):\n{describe_lost(rep)}")
            if sum(program_lost(s, "definite") for s in sites) > 0:
                self.assertIn("leaked", {s["class"] for s in sites}, describe_lost(rep))

    # -- one case ------------------------------------------------------------

    def check_case(self, name):
        case = CASES[name]
        mc, mc_log = self.memcheck_summary("memcheck", name)
        # The program does what it says (memcheck is the reference).
        for kind in KINDS[:4]:
            if case[kind] is not None:
                self.assertEqual(mc[kind], case[kind], f"memcheck's {kind}:\n{mc_log}")
        for line in case.get("heuristics", ()):
            self.assertIn(line, mc_log)

        r = self.result("memgrow", name)
        lc = self.leak_check(r)
        # memgrow's default suppressions (suppressions/*.supp) move glibc's
        # own blocks to "suppressed"; memcheck's default.supp has none of
        # them. Lost and suppressed together must be memcheck's.
        supp = suppressed_by_kind(r.report)
        for kind in LOST:
            got = (lc[kind][0] + supp[kind][0], lc[kind][1] + supp[kind][1])
            self.assertEqual(got, mc[kind], f"{kind} (+ suppressed): memgrow {got} vs memcheck "
                             f"{mc[kind]}\n--- memcheck:\n{mc_log}\n--- memgrow:\n{r.log}")
        self.assertEqual(mc["suppressed"], (0, 0), mc_log)
        self.assertEqual(lc["suppressed"], (sum(supp[k][0] for k in LOST),
                                            sum(supp[k][1] for k in LOST)), r.log)
        if case.get("suppressed"):
            self.assertEqual(lc["suppressed"], case["suppressed"], r.log)
        # memgrow may also see blocks that memcheck's run freed at exit
        # (--run-libc-freeres / --run-cxx-freeres), all reachable.
        self.assertGreaterEqual(lc["reachable"][0], case["reachable"][0], r.log)
        self.assertGreaterEqual(lc["reachable"][1], case["reachable"][1], r.log)
        self.check_log(r.log, lc)
        self.check_sites(r.report, case["src"], case["sites"], lc)

    def check_no_heuristics(self, name):
        case = CASES[name]
        want = case["no_heuristics"]
        mc, mc_log = self.memcheck_summary("memcheck-none", name)
        self.assertEqual(mc["possible"], want["possible"], mc_log)
        self.assertEqual(mc["definite"], case["definite"], mc_log)
        r = self.result("memgrow-none", name)
        lc = self.leak_check(r)
        self.assertGreater(lc["possible"][0], 0, r.log)
        for kind in LOST:
            self.assertEqual(lc[kind], mc[kind], f"{kind} without heuristics: memgrow "
                             f"{lc[kind]} vs memcheck {mc[kind]}\n{r.log}")
        self.check_log(r.log, lc)
        self.check_sites(r.report, case["src"], want["sites"], lc)

    def test_unreadable_and_unmapped_roots_are_skipped_without_faulting(self):
        self.check_case("leak_unreadable")

    def test_stale_pointers_in_reused_memory_do_not_reach(self):
        self.check_case("leak_stale_heap")

    def test_lost_block(self):
        self.check_case("leak_lost_block")

    def test_tree_children_are_indirectly_lost(self):
        self.check_case("leak_tree")

    def test_cycle_has_one_definite_and_one_indirect(self):
        self.check_case("leak_cycle")

    def test_interior_pointer_is_possibly_lost(self):
        self.check_case("leak_interior")

    def test_globals_static_arrays_and_reachable_blocks_are_roots(self):
        self.check_case("leak_global")

    def test_other_thread_stacks_are_roots(self):
        self.check_case("leak_thread_stack")

    def test_registers_of_other_threads_are_roots_not_of_the_exiting_one(self):
        self.check_case("leak_register")

    def test_stdstring_and_newarray_heuristics(self):
        self.check_case("leak_cxx_interior")

    def test_malloclike_blocks_in_a_malloced_arena(self):
        self.check_case("custom_arena")

    def test_mempool_chunks_in_malloced_superblocks(self):
        self.check_case("custom_pool")

    def test_multipleinheritance_heuristic(self):
        self.check_case("leak_multi_inherit")

    def test_cxx_interior_without_heuristics_is_possibly_lost(self):
        self.check_no_heuristics("leak_cxx_interior")

    def test_multi_inherit_without_heuristics_is_possibly_lost(self):
        self.check_no_heuristics("leak_multi_inherit")

    def test_teardown_losses_are_told_from_the_programs(self):
        self.check_case("teardown_list")
        r = self.result("memgrow", "teardown_list")
        rep, src = r.report, CASES["teardown_list"]["src"]
        self.assertEqual(rep["teardown"], "exit")
        by_teardown = rep["leak_check"]["lost_by_teardown"]
        self.assertEqual((by_teardown["definite"]["bytes"], by_teardown["indirect"]["bytes"]),
                         (48, 99 * 48), rep["leak_check"])
        self.assertIn("lost by teardown: 4,800 bytes in 100 blocks (of the lost above; "
                      "reachable when exit() began)", r.log)
        # Its records in one line by default, listed on request.
        self.assertIn("Lost by teardown: 4,800 bytes in 100 blocks in 1 loss records, not listed "
                      "(reachable when exit() began; not errors; "
                      "--show-leak-kinds=definite,possible,teardown lists them)", r.log)
        self.assertEqual(len(re.findall(r"lost in loss record", r.log)), 1, r.log)
        listed = run([program("teardown_list")], options=["--show-leak-kinds=all"]).log
        self.assertIn("Lost by teardown (reachable when exit() began; not errors):", listed)
        self.assertEqual(len(re.findall(r"lost in loss record", listed)), 3, listed)
        for marker, want in CASES["teardown_list"]["teardown"].items():
            line = source_line(f"{SRC}/{src}", f"/* {marker}")
            sites = sites_at(rep, file=src, line=line)
            got = tuple(sum(s.get("lost_by_teardown", {}).get(k, 0) for s in sites) for k in LOST)
            self.assertEqual(got, want, f"{marker}: {describe_lost(rep)}")
        node = sites_at(rep, file=src, line=source_line(f"{SRC}/{src}", "/* NODE_HERE"))
        self.assertNotIn("leaked", {s["class"] for s in node}, describe_lost(rep))
        # One error: the program's own lost block, not the teardown's list.
        self.assertRegex(r.log, r"ERROR SUMMARY: 1 errors")

    def test_teardown_losses_as_errors_on_request(self):
        line = source_line(f"{SRC}/teardown_list.c", "/* NODE_HERE")
        for options in (["--errors-for=leaked,teardown"], ["--teardown-scan=no"]):
            r = run([program("teardown_list")], options=options)
            node = sites_at(r.report, file="teardown_list.c", line=line)
            self.assertEqual({s["class"] for s in node}, {"leaked"}, options)
            self.assertRegex(r.log, r"ERROR SUMMARY: 2 errors", options)
        # Without the scan, nothing is said of teardown.
        self.assertNotIn("lost_by_teardown", r.report["leak_check"])
        self.assertNotIn("lost by teardown", r.log)

    def test_startup_losses_are_told_from_the_programs(self):
        self.check_case("startup_losses")
        r = self.result("memgrow", "startup_losses")
        rep, src = r.report, CASES["startup_losses"]["src"]
        by_startup = rep["leak_check"]["lost_at_startup"]
        self.assertEqual((by_startup["definite"]["bytes"], by_startup["indirect"]["bytes"]),
                         (48 + 1000, 9 * 48), rep["leak_check"])
        for marker, want in CASES["startup_losses"]["startup"].items():
            line = source_line(f"{SRC}/{src}", f"/* {marker}")
            sites = sites_at(rep, file=src, line=line)
            got = tuple(sum(s.get("lost_at_startup", {}).get(k, 0) for s in sites) for k in LOST)
            self.assertEqual(got, want, f"{marker}: {describe_lost(rep)}")
            if marker != "REQUEST_LOST_HERE":
                self.assertNotIn("leaked", {s["class"] for s in sites}, describe_lost(rep))
        self.assertIn("lost at start-up: 1,480 bytes in 11 blocks (of the lost above; allocated "
                      "before the warm-up ended", r.log)
        # The request leak is the one record listed; start-up's are a line.
        records = re.findall(r"are definitely lost in loss record (\d+)", r.log)
        self.assertEqual(len(records), 1, r.log)
        self.assertIn("handle_request (startup_losses.c", r.log)
        self.assertNotIn("add_node (startup_losses.c", r.log)
        self.assertRegex(r.log, r"Lost at start-up: 1,480 bytes in 11 blocks in 2 loss records, "
                         r"not listed \(allocated before the warm-up ended, at clock [\d,]+; not "
                         r"errors; --show-leak-kinds=definite,possible,startup lists them\)")
        self.assertLess(r.log.index("handle_request (startup_losses.c"),
                        r.log.index("Lost at start-up:"))
        self.assertRegex(r.log, r"ERROR SUMMARY: 1 errors")

    def test_startup_losses_by_the_first_mark_and_as_errors_on_request(self):
        src = "startup_losses.c"
        node = source_line(f"{SRC}/{src}", "/* STARTUP_NODE_HERE")
        request = source_line(f"{SRC}/{src}", "/* REQUEST_LOST_HERE")
        # Marks: the first one ends start-up, as MEMGROW_WARMUP_END does.
        r = run([program("startup_losses"), "mark"])
        self.assertEqual(r.report["leak_check"]["lost_at_startup"]["definite"]["blocks"], 2)
        self.assertNotIn("leaked", {s["class"] for s in sites_at(r.report, file=src, line=node)})
        self.assertEqual({s["class"] for s in sites_at(r.report, file=src, line=request)},
                         {"leaked"})
        self.assertRegex(r.log, r"ERROR SUMMARY: 1 errors")
        r = run([program("startup_losses")], options=["--errors-for=leaked,startup"])
        self.assertEqual({s["class"] for s in sites_at(r.report, file=src, line=node)},
                         {"leaked"})
        self.assertRegex(r.log, r"ERROR SUMMARY: 3 errors")
        self.assertIn("Lost at start-up (allocated before the warm-up ended, at clock", r.log)
        self.assertIn("add_node (startup_losses.c", r.log)
        # Without an announced start-up (--warmup as a share), nothing is start-up's.
        r = run([program("startup_losses")], options=["--warmup=50%"])
        self.assertNotIn("lost_at_startup", r.report["leak_check"])
        self.assertNotIn("lost at start-up", r.log)
        self.assertRegex(r.log, r"ERROR SUMMARY: 3 errors")

    def test_summary_parser(self):
        log = ("==7== LEAK SUMMARY:\n"
               "==7==    definitely lost: 1,234,567 bytes in 1,001 blocks\n"
               "==7==    indirectly lost: 0 bytes in 0 blocks\n"
               "==7==      possibly lost: 272 bytes in 1 blocks\n"
               "==7==    still reachable: 153 bytes in 3 blocks\n"
               "==7==                       of which reachable via heuristic:\n"
               "==7==                         stdstring          : 57 bytes in 1 blocks\n"
               "==7==                         multipleinheritance: 40 bytes in 1 blocks\n"
               "==7==         suppressed: 8 bytes in 2 blocks\n"
               "==7== \n")
        self.assertEqual(parse_leak_summary(log), {
            "definite": (1234567, 1001), "indirect": (0, 0), "possible": (272, 1),
            "reachable": (153, 3), "suppressed": (8, 2)})
        self.assertEqual(
            parse_leak_summary("==7== All heap blocks were freed -- no leaks are possible\n"),
            dict.fromkeys(KINDS, (0, 0)))
        self.assertIsNone(parse_leak_summary("==7== HEAP SUMMARY:\n"))


class StartupExtension(TestCase):
    """An extension module loses blocks while a script without marks imports
    it (after a sys.path change), and keeps a registry that grows during the
    import; then each request loses a block. The import's losses are
    start-up's, one line apart; the request leak is the finding."""

    PYTHON = "/usr/bin/python3"
    DRIVER = f"{mgtest.SRC}/tests/regress/py_startup_ext.py"
    EXT = "py_startup_ext.c"

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="memgrow-test-startup-")
        mgtest.build_extension(cls.PYTHON, cls.EXT, "startup_ext", cls.tmp.name)
        cls.argv = [cls.PYTHON, cls.DRIVER, cls.tmp.name, "200"]
        with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
            # memgrow's preload sets PYTHONMALLOC=malloc: memcheck gets it too.
            mc = pool.submit(memcheck, cls.argv, env={"PYTHONMALLOC": "malloc"})
            default = pool.submit(run, cls.argv)
            errors = pool.submit(run, cls.argv, ["--errors-for=leaked,startup",
                                                 "--json-sites=relevant"])
            listed = pool.submit(run, cls.argv, ["--show-leak-kinds=definite,possible,startup"])
            cls.mc, cls.r, cls.errors = mc.result(), default.result(), errors.result()
            cls.listed = listed.result()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def sites(self, report, marker):
        line = source_line(f"{SRC}/{self.EXT}", f"/* {marker}")
        return sites_at(report, file=self.EXT, line=line)

    def test_the_request_leak_first_the_imports_losses_one_line_apart(self):
        r = self.r
        self.assertEqual(r.rc, 0, r.log)
        for marker in ("IMPORT_TABLE_LOST", "IMPORT_BLOCK_LOST"):
            sites = self.sites(r.report, marker)
            self.assertTrue(sites, describe_lost(r.report))
            self.assertNotIn("leaked", {s["class"] for s in sites}, describe_lost(r.report))
            self.assertEqual(sum(s["lost_at_startup"]["definite"] for s in sites),
                             sum(s["lost"]["definite"] for s in sites), marker)
        request = self.sites(r.report, "REQUEST_LOST")
        self.assertEqual({s["class"] for s in request}, {"leaked"}, describe_lost(r.report))
        self.assertGreaterEqual(sum(program_lost(s, "definite") for s in request),
                                0.95 * 200 * 64)
        # The registry grew during the import: start-up, no growth.
        for marker in ("REGISTRY_ENTRY", "REGISTRY_GROWS"):
            self.assertEqual({s["class"] for s in self.sites(r.report, marker)}, {"stable"},
                             marker)
        self.assertNotRegex(r.log, r"GROWING \d+ of \d+: .*(registry|py_startup_ext)")
        # The import line is no leaked Python site.
        line = source_line(self.DRIVER, "STARTUP_IMPORT")
        at_import = [s for s in r.report["python_sites"]
                     if any(f.get("line") == line and
                            os.path.basename(f.get("file") or "") == "py_startup_ext.py"
                            for f in s["frames"])]
        self.assertTrue(at_import, r.report["python_sites"][:3])
        self.assertNotIn("leaked", {s["class"] for s in at_import})
        # The log: the request's record, then one line for the import's.
        self.assertEqual(len(re.findall(r"lost in loss record", r.log)), 1, r.log)
        self.assertIn("handle (py_startup_ext.c", r.log)
        self.assertNotIn("lose_table (py_startup_ext.c", r.log)
        at = r.log.index("handle (py_startup_ext.c")
        # Start-up's stacks are short (--startup-depth): its records are
        # fewer than the 258 the whole stacks make when listed.
        records = re.search(r"Lost at start-up: 5,376 bytes in 273 blocks in (\d+) loss "
                            r"records, not listed \(allocated before the warm-up ended", r.log[at:])
        self.assertTrue(records, r.log)
        self.assertLessEqual(int(records[1]), 258)
        self.assertRegex(r.log, r"ERROR SUMMARY: 1 errors")
        # Sized to the answer: the 258 records the import lost are a line;
        # listed, they are most of the log.
        self.assertLess(len(r.log), 8_000, r.log)
        self.assertGreater(len(self.listed.log), 30 * len(r.log))
        self.assertEqual(len(re.findall(r"lost in loss record", self.listed.log)), 1 + 258)

    def test_startup_losses_are_errors_on_request(self):
        r = self.errors
        for marker in ("IMPORT_TABLE_LOST", "IMPORT_BLOCK_LOST", "REQUEST_LOST"):
            self.assertEqual({s["class"] for s in self.sites(r.report, marker)}, {"leaked"},
                             marker)
        # Errors, so listed: the Python sites of the import line and the request's.
        self.assertIn("Lost at start-up (allocated before the warm-up ended, at clock", r.log)
        self.assertIn("lose_table (py_startup_ext.c", r.log)
        self.assertRegex(r.log, r"ERROR SUMMARY: 2 errors")
        # The import line, leaked now, lists the sub-sites that lost blocks
        # (and the large ones, and the churn), not the import's every stack.
        line = source_line(self.DRIVER, "STARTUP_IMPORT")
        (imp,) = [ps for ps in r.report["python_sites"] if ps["class"] == "leaked" and
                  any(f.get("line") == line and f["file"].endswith("py_startup_ext.py")
                      for f in ps["frames"])]
        floor = r.report["omitted_sites"]["min_bytes"]
        by_id = {s["id"]: s for s in r.report["sites"]}
        listed = [by_id[i] for i in imp["sites"]]
        self.assertGreater(imp["omitted_sites"], 0, imp)
        self.assertGreaterEqual(len(listed), 256 + 2)
        churn = max(floor, sum(b["allocated_bytes"] for b in r.report["buckets"]) // 100)
        for s in listed:
            self.assertTrue(any(s["lost"].values()) or s["peak_bytes"] >= floor or
                            s["allocated_bytes"] >= churn, s)
        # Its headline gives what it lost first, then what it holds.
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(r.report, f)
            f.flush()
            show = mgtest.memgrow_report("show", f.name)
        self.assertEqual(show.returncode, 0, show.stderr)
        self.assertRegex(show.stdout, r"LEAKED \d+ of \d+: <module> \(py_startup_ext\.py:"
                         rf"{line}\), [\d.]+ kB definitely lost, of [\d.]+ [kM]B live in "
                         r"[\d,]+ blocks")

    def test_leak_summary_is_memchecks(self):
        rc, theirs = self.mc
        self.assertEqual(rc, 0, theirs)
        mc, mine = parse_leak_summary(theirs), parse_leak_summary(self.r.log)
        # A request's block that a stale interior pointer keeps possibly
        # lost for memcheck may be definitely lost for memgrow (no
        # definedness bits: docs/leak-check.md); the lost total is the same.
        def lost(summary):
            return tuple(sum(summary[k][i] for k in LOST + ("suppressed",)) for i in (0, 1))
        self.assertEqual(lost(mine), lost(mc), f"{self.r.log}\n--- memcheck:\n{theirs}")
        self.assertEqual(mine["reachable"], mc["reachable"], theirs)
        self.assertEqual(mine["indirect"], mc["indirect"], theirs)


if __name__ == "__main__":
    unittest.main()
