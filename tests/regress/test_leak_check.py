# SPDX-License-Identifier: GPL-2.0-or-later
"""Leak scans on demand and what the scan's results drive.

- MEMGROW_LEAK_CHECK() scans mid-run, returns the definitely and indirectly
  lost bytes and lists only the loss records new or increased since the
  previous scan, with memcheck's "(+N)" deltas; the exit scan lists them all.
- vgdb's `leak_check` monitor command does the same in a running program.
- --error-exitcode counts the site classes --errors-for names (leaked by
  default: growth is a profile, not an error, unless asked for).
- --leak-check=no|summary turn the scan off or its loss records off.
"""
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import TestCase, program, run, sites_at, source_line  # noqa: E402

SRC = "tests/regress"
# Native runs of leak_service are short (it spins until told to go on).

# "10 (+10) bytes in 1 (+1) blocks are definitely lost in loss record 1 of 2",
# also memcheck's "X (Y direct, Z indirect) bytes in ..." for definite records
# that hold indirect ones.
# From Valgrind 3.21 a delta scan says "in new loss record" for a record
# that had no blocks in the scan before, and memcheck gives the direct and
# indirect parts their deltas too: "1,064 (+1,064) (24 (+24) direct, 1,040
# (+1,040) indirect) bytes".
RECORD = re.compile(
    r"^(?:==\d+==)?\s*([\d,]+)(?: \(([+-][\d,]+)\))?"
    r"(?: \([\d,]+(?: \([+-][\d,]+\))? direct, [\d,]+(?: \([+-][\d,]+\))? indirect\))?"
    r" bytes in ([\d,]+)(?: \(([+-][\d,]+)\))? blocks are (definitely|indirectly|possibly) lost"
    r"(?: \(reachable\))? in (new )?loss record ([\d,]+) of ([\d,]+)\s*$", re.M)
SUMMARY = re.compile(
    r"^(?:==\d+==)?\s*(definitely lost|indirectly lost|possibly lost|still reachable|suppressed):"
    r" ([\d,]+)(?: \(([+-][\d,]+)\))? bytes in ([\d,]+)(?: \(([+-][\d,]+)\))? blocks\s*$", re.M)
FRAME = re.compile(r"^(?:==\d+==)?\s+(?:at|by) 0x[0-9A-Fa-f]+: (.*?)\s*$")
FILE_LINE = re.compile(r"\(([^():]+):(\d+)\)$")


# A delta after a count of bytes or blocks (not "+32 bytes per byte" in a
# growth evidence line).
DELTA = r"[\d,]+ \([+-][\d,]+\) (?:bytes|blocks)"


def number(text):
    return None if text is None else int(text.replace(",", "").replace("+", ""))


def records(text):
    """The loss records in a piece of log, in order: dicts with bytes,
    blocks, their deltas (None when not shown), kind and the stack as
    (file, line) pairs."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = RECORD.match(line)
        if not m:
            continue
        stack = []
        for follow in lines[i + 1:]:
            f = FRAME.match(follow)
            if not f:
                break
            where = FILE_LINE.search(f.group(1))
            # memcheck's malloc frame has its line where Valgrind's preload
            # has debug info (Debian 13's and later); memgrow shows none.
            if where and not where.group(1).startswith("vg_replace_"):
                stack.append((where.group(1), int(where.group(2))))
        out.append(dict(bytes=number(m.group(1)), delta_bytes=number(m.group(2)),
                        blocks=number(m.group(3)), delta_blocks=number(m.group(4)),
                        kind=m.group(5), new=bool(m.group(6)), number=number(m.group(7)),
                        of=number(m.group(8)), stack=stack, line=line.strip()))
    return out


def summaries(text):
    """Every LEAK SUMMARY in a piece of log: a list of
    {label: (bytes, delta bytes, blocks, delta blocks)}, deltas None when
    not shown."""
    out = []
    for part in text.split("LEAK SUMMARY:")[1:]:
        s = {}
        for m in SUMMARY.finditer(part):
            if m.group(1) in s:
                break  # the next summary's (not split on: the text ended)
            s[m.group(1)] = (number(m.group(2)), number(m.group(3)), number(m.group(4)),
                             number(m.group(5)))
            if m.group(1) == "suppressed":
                break
        out.append(s)
    return out


def describe(recs):
    return "\n".join(r["line"] + "  " + repr(r["stack"]) for r in recs)


class LeakCheckOnDemand(TestCase):
    """MEMGROW_LEAK_CHECK() from leak_on_demand.c."""

    @classmethod
    def setUpClass(cls):
        cls.r = run([program("leak_on_demand")])
        src = f"{SRC}/leak_on_demand.c"
        cls.first_line = source_line(src, "/* FIRST_LOST_HERE")
        cls.second_line = source_line(src, "/* SECOND_LOST_HERE")
        # The log, cut where the program printed each scan's result (stdout
        # and the log share one pipe; the program flushes after each line).
        log = cls.r.log
        m1 = re.search(r"^first scan: (\d+)$", log, re.M)
        m2 = re.search(r"^second scan: (\d+)$", log, re.M)
        cls.values = (m1 and int(m1.group(1)), m2 and int(m2.group(1)))
        cls.parts = None
        if m1 and m2:
            cls.parts = (log[:m1.start()], log[m1.end():m2.start()], log[m2.end():])

    def setUp(self):
        self.assertEqual(self.r.rc, 0, self.r.log)
        self.assertIsNotNone(self.parts, f"the program did not print both results:\n{self.r.log}")

    def test_returns_definitely_lost_bytes_so_far(self):
        self.assertEqual(self.values, (10, 50), self.r.log)

    def test_first_scan_lists_the_first_record(self):
        first = self.parts[0]
        recs = records(first)
        self.assertEqual(len(recs), 1, describe(recs) + "\n" + first)
        (rec,) = recs
        self.assertEqual((rec["bytes"], rec["blocks"], rec["kind"]), (10, 1, "definitely"), first)
        # Deltas are optional on a first scan (memcheck shows them against 0).
        self.assertIn(rec["delta_bytes"], (None, 10), first)
        self.assertIn(("leak_on_demand.c", self.first_line), rec["stack"], first)
        (summary,) = summaries(first)
        self.assertEqual(summary["definitely lost"][0::2], (10, 1), first)
        self.assertEqual(summary["indirectly lost"][0::2], (0, 0), first)

    def test_second_scan_lists_only_the_new_record_with_deltas(self):
        second = self.parts[1]
        recs = records(second)
        # The 10-byte record did not change: not listed again.
        self.assertEqual(len(recs), 1, describe(recs) + "\n" + second)
        (rec,) = recs
        self.assertEqual((rec["bytes"], rec["delta_bytes"], rec["blocks"], rec["delta_blocks"]),
                         (40, 40, 2, 2), second)
        # A record without blocks at the previous scan is "new" from 3.21,
        # as memcheck says.
        fresh = "new " if mgtest.valgrind_version() >= (3, 21) else ""
        self.assertIn(f"40 (+40) bytes in 2 (+2) blocks are definitely lost in {fresh}loss record",
                      second)
        self.assertEqual(rec["new"], bool(fresh), second)
        self.assertIn(("leak_on_demand.c", self.second_line), rec["stack"], second)
        self.assertNotIn(("leak_on_demand.c", self.first_line), rec["stack"], second)
        (summary,) = summaries(second)
        self.assertEqual(summary["definitely lost"], (50, 40, 3, 2), second)
        self.assertEqual(summary["indirectly lost"], (0, 0, 0, 0), second)
        self.assertEqual(summary["possibly lost"], (0, 0, 0, 0), second)
        self.assertIn("definitely lost: 50 (+40) bytes in 3 (+2) blocks", second)

    def test_exit_scan_lists_every_record_without_deltas(self):
        last = self.parts[2]
        recs = records(last)
        self.assertEqual(sorted((r["bytes"], r["blocks"]) for r in recs), [(10, 1), (40, 2)],
                         describe(recs) + "\n" + last)
        for rec in recs:
            self.assertIsNone(rec["delta_bytes"], rec["line"])
            self.assertIsNone(rec["delta_blocks"], rec["line"])
        lines = {fl for r in recs for fl in r["stack"]}
        self.assertIn(("leak_on_demand.c", self.first_line), lines, last)
        self.assertIn(("leak_on_demand.c", self.second_line), lines, last)
        (summary,) = summaries(last)
        self.assertEqual(summary["definitely lost"], (50, None, 3, None), last)
        self.assertNotRegex(last, DELTA)

    def test_report_counts_the_scans_and_the_lost_sites(self):
        rep = self.r.report
        lc = rep["leak_check"]
        self.assertEqual(lc["scans"], 3, lc)  # two on demand, one at exit
        self.assertEqual((lc["definite"]["bytes"], lc["definite"]["blocks"]), (50, 3), lc)
        for line, want in ((self.first_line, 10), (self.second_line, 40)):
            sites = sites_at(rep, file="leak_on_demand.c", line=line)
            self.assertTrue(sites, mgtest.describe(rep))
            self.assertEqual(sum(s["lost"]["definite"] for s in sites), want)
            self.assertEqual({s["class"] for s in sites}, {"leaked"})


class LeakCheckOverVgdb(TestCase):  # vgdb ships with valgrind: never skipped
    maxDiff = None

    def test_new_and_changed_keywords(self):
        # Valgrind 3.21's `new`: only the records that did not exist at the
        # previous scan, not the one that grew; `changed`: grown or shrunk.
        src = "tests/regress/leak_service.c"
        with tempfile.TemporaryDirectory(prefix="memgrow-test-vgdb-") as tmp:
            svc = mgtest.Service(tmp, [program("leak_service"), os.path.join(tmp, "go"),
                                       os.path.join(tmp, "stop")])
            try:
                svc.expect("ready 1")
                svc.vgdb("leak_check")
                svc.touch(svc.go)
                svc.expect("ready 2")
                fresh = svc.vgdb("leak_check", "full", "new")
                unchanged = svc.vgdb("leak_check", "full", "changed")
                self.assertEqual(svc.finish(), 0, svc.log())
            finally:
                svc.close()
        recs = records(fresh)
        self.assertEqual([(r["bytes"], r["delta_bytes"]) for r in recs], [(32, 32)], fresh)
        self.assertIn(("leak_service.c", source_line(src, "/* NEW_LOST_HERE")), recs[0]["stack"])
        (s,) = summaries(fresh)
        self.assertEqual(s["definitely lost"], (596, 232, 7, 3), fresh)
        self.assertEqual(records(unchanged), [], unchanged)

    def test_leak_check_monitor_command(self):
        src = f"{SRC}/leak_service.c"
        batch = ("leak_service.c", source_line(src, "/* LOST_HERE"))
        once = ("leak_service.c", source_line(src, "/* ONCE_LOST_HERE"))
        new = ("leak_service.c", source_line(src, "/* NEW_LOST_HERE"))
        with tempfile.TemporaryDirectory(prefix="memgrow-test-vgdb-") as tmp:
            svc = mgtest.Service(tmp, [program("leak_service"), os.path.join(tmp, "go"),
                                          os.path.join(tmp, "stop")])
            try:
                svc.expect("ready 1")
                helptext = svc.vgdb("help")
                first = svc.vgdb("leak_check")
                svc.touch(svc.go)
                svc.expect("ready 2")
                second = svc.vgdb("leak_check")
                third = svc.vgdb("leak_check")
                every = svc.vgdb("leak_check", "full", "any")
                summary_only = svc.vgdb("leak_check", "summary", "any")
                rc = svc.finish()
                log = svc.log()
            finally:
                svc.close()
            rep = mgtest.load_report(svc.json)
        self.assertEqual(rc, 0, log)

        # help: memgrow's monitor commands, leak_check with its arguments.
        self.assertIn("memgrow monitor commands:", helptext)
        self.assertRegex(helptext,
                         r"(?m)^\s*leak_check \[full\|summary\] \[kinds <set>\|reachable\|possibleleak\|"
                         r"definiteleak\]\n\s*\[increased\|changed\|new\|any\]")

        # First scan: both records of phase 1, and the summary.
        recs = records(first)
        got = sorted((r["bytes"], r["blocks"], r["kind"]) for r in recs)
        self.assertEqual(got, [(64, 1, "definitely"), (300, 3, "definitely")],
                         describe(recs) + "\n" + first)
        stacks = {r["bytes"]: r["stack"] for r in recs}
        self.assertIn(batch, stacks[300], first)
        self.assertIn(once, stacks[64], first)
        (s,) = summaries(first)
        self.assertEqual(s["definitely lost"][0::2], (364, 4), first)
        self.assertEqual(s["indirectly lost"][0::2], (0, 0), first)
        self.assertEqual(s["possibly lost"][0::2], (0, 0), first)

        # Second: the grown record and the new one, with deltas; not the
        # 64-byte record that did not change.
        recs = records(second)
        got = sorted((r["bytes"], r["delta_bytes"], r["blocks"], r["delta_blocks"])
                     for r in recs)
        self.assertEqual(got, [(32, 32, 1, 1), (500, 200, 5, 2)], describe(recs) + "\n" + second)
        self.assertIn("500 (+200) bytes in 5 (+2) blocks are definitely lost", second)
        self.assertIn("32 (+32) bytes in 1 (+1) blocks are definitely lost", second)
        stacks = {r["bytes"]: r["stack"] for r in recs}
        self.assertIn(batch, stacks[500], second)
        self.assertIn(new, stacks[32], second)
        self.assertNotIn(f"leak_service.c:{once[1]})", second)
        (s,) = summaries(second)
        self.assertEqual(s["definitely lost"], (596, 232, 7, 3), second)
        self.assertIn("definitely lost: 596 (+232) bytes in 7 (+3) blocks", second)

        # Third: nothing new, so no record; the summary says +0.
        self.assertEqual(records(third), [], third)
        (s,) = summaries(third)
        self.assertEqual(s["definitely lost"], (596, 0, 7, 0), third)

        # `full any`: every lost record, no deltas; `summary`: no records.
        recs = records(every)
        self.assertEqual(sorted((r["bytes"], r["blocks"]) for r in recs),
                         [(32, 1), (64, 1), (500, 5)], describe(recs) + "\n" + every)
        self.assertNotRegex(every, DELTA)
        self.assertEqual(records(summary_only), [], summary_only)
        (s,) = summaries(summary_only)
        self.assertEqual(s["definitely lost"], (596, None, 7, None), summary_only)

        # The monitor output went to vgdb, not to the log; the exit scan is
        # the usual one, and counted with the others.
        self.assertNotRegex(log, DELTA)
        (s,) = summaries(log)
        self.assertEqual(s["definitely lost"], (596, None, 7, None), log)
        # five leak_check commands and the exit scan (help scans nothing)
        self.assertEqual(rep["leak_check"]["scans"], 6, rep["leak_check"])


class MemcheckMonitorArguments(TestCase):
    """memcheck's leak_check arguments (kinds, reachable, definiteleak,
    limited), who_points_at and check_memory addressable, over vgdb
    (leak_service.c)."""

    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory(prefix="memgrow-test-vgdb-") as tmp:
            svc = mgtest.Service(tmp, [program("leak_service"), os.path.join(tmp, "go"),
                                       os.path.join(tmp, "stop")],
                                 options=["--addressability=yes"])
            try:
                svc.expect("ready 1")
                cls.kept = re.search(r"^kept (0x[0-9a-f]+)$", svc.log(), re.M).group(1)
                cls.out = {name: svc.vgdb(*cmd.split()) for name, cmd in (
                    ("who", f"who_points_at {cls.kept}"),
                    ("who_interior", f"who_points_at {int(cls.kept, 16) - 8:#x} 16"),
                    ("who_null", "who_points_at 0x0"),
                    ("reachable", "leak_check full reachable any"),
                    ("limited", "leak_check full definiteleak any limited 1"),
                    ("definite", "leak_check full definiteleak any"),
                    ("kinds", "leak_check full kinds possible,reachable any"),
                    ("bad_kinds", "leak_check kinds lost"),
                    ("bad_limit", "leak_check limited 0"),
                    ("null", "check_memory addressable 0x0 8"),
                    ("huge_len", "check_memory addressable 0 18446744073709551615"),
                    ("past_end", f"check_memory addressable {cls.kept} 0x800000000000"),
                    ("past_2_64", "check_memory addressable 0x10 18446744073709551616"),
                    ("bad_len", "check_memory addressable 0x10 12q"),
                    ("kept", f"check_memory addressable {cls.kept} 8"),
                    ("defined", "check_memory defined 0x0"),
                    ("help", "help"))}
                svc.touch(svc.go)
                svc.expect("ready 2")
                cls.rc = svc.finish()
                cls.log = svc.log()
            finally:
                svc.close()

    def test_hints_name_the_monitor_arguments(self):
        # memcheck's hints under the summary, worded for leak_check.
        hidden = "Reachable blocks (those to which a pointer was found) are not shown."
        self.assertRegex(self.out["definite"], re.escape(hidden) + r"\n(==\d+== )?"
                         + re.escape("To see them, add 'reachable any' args to leak_check"))
        self.assertNotIn(hidden, self.out["reachable"])
        self.assertNotIn("To see them, rerun with", self.out["definite"])

    def test_kinds(self):
        self.assertEqual(self.rc, 0, self.log)
        every = records(self.out["reachable"])
        kinds = {r["kind"] for r in every}
        self.assertIn("definitely", kinds, self.out["reachable"])
        self.assertIn("still reachable in loss record", self.out["reachable"])
        self.assertEqual({r["kind"] for r in records(self.out["definite"])}, {"definitely"})
        self.assertNotIn("still reachable in loss record", self.out["definite"])
        # kinds possible,reachable: no definite records (leak_service has no
        # possibly lost block), the reachable ones.
        self.assertEqual(records(self.out["kinds"]), [], self.out["kinds"])
        self.assertIn("still reachable in loss record", self.out["kinds"])

    def test_limited_keeps_the_largest(self):
        both = records(self.out["definite"])
        self.assertEqual(len(both), 2, self.out["definite"])
        (one,) = records(self.out["limited"])
        self.assertEqual(one["bytes"], max(r["bytes"] for r in both), self.out["limited"])
        self.assertEqual(self.out["limited"].count("in loss record"), 1, self.out["limited"])

    def test_malformed_arguments(self):
        self.assertIn("missing or malformed leak kinds set", self.out["bad_kinds"])
        self.assertIn("max_loss_records_output must be >= 1, got 0", self.out["bad_limit"])
        self.assertNotIn("LEAK SUMMARY", self.out["bad_kinds"] + self.out["bad_limit"])

    def test_who_points_at(self):
        # The global `kept` holds the block's address: memcheck's lines.
        out = self.out["who"]
        self.assertIn(f"Searching for pointers to {self.kept}", out)
        found = re.search(r"\*(0x[0-9a-f]+) points at " + self.kept + r"\n(?:==\d+==)? Address \1 is "
                          r"0 bytes inside data symbol \"kept\"", out)
        self.assertIsNotNone(found, out)
        out = self.out["who_interior"]
        self.assertIn(f"Searching for pointers pointing in 16 bytes from "
                      f"{int(self.kept, 16) - 8:#x}", out)
        self.assertRegex(out, r"\*0x[0-9a-f]+ interior points at 8 bytes inside ")
        self.assertIn("Cannot search who points at 0x0", self.out["who_null"])

    def test_check_memory_addressable(self):
        out = self.out["null"]
        self.assertIn("Address 0x0 len 8 not addressable:\nbad address 0x0", out)
        self.assertIn("Address 0x0 is not stack'd, malloc'd or (recently) free'd", out)
        self.assertIn("memgrow checks addressable only", self.out["defined"])
        self.assertRegex(self.out["help"], r"(?m)^\s*check_memory addressable <addr> \[<len>\]")
        self.assertIn(f"Address 0x{int(self.kept, 16):X} len 8 addressable", self.out["kept"])

    def test_check_memory_names_a_length_that_runs_past_the_address_space(self):
        # The length is wrong, not the address (issue 32); a decimal address
        # is read as one.
        for name, start, length in (("huge_len", "0x0", "18446744073709551615"),
                                    ("past_end", self.kept, "0x800000000000"),
                                    ("past_2_64", "0x10", "18446744073709551616")):
            out = self.out[name]
            self.assertIn(f"check_memory: the length {length} is too large: from {start} it runs "
                          "past the end of the address space (0x800000000000)", out)
            self.assertNotIn("address", out.replace("address space", ""))
        self.assertIn("malformed integer", self.out["bad_len"])


# block_list's lines: a block of a record ("0x4A4B340[32]", "... (found via
# heuristic newarray)"), and the blocks lost through it, indented two spaces
# a level ("  0x4A4B380[48] indirect loss record 5").
BLOCK = re.compile(r"^(?:==\d+== )?0x[0-9A-Fa-f]+\[(\d+)\](?: \(found via heuristic (\w+)\))?\s*$")
THROUGH = re.compile(r"^(?:==\d+== )?((?:  )+)0x[0-9A-Fa-f]+\[(\d+)\] indirect loss record (\d+)\s*$")
# A loss record of any kind, still reachable ones too ("definitely" ... "still").
ANY_RECORD = re.compile(RECORD.pattern.replace(
    "(definitely|indirectly|possibly) lost", "(definitely|indirectly|possibly|still) (?:lost|reachable)"),
    re.M)


def block_lists(text):
    """block_list's answer: per record shown, its number, of, bytes, blocks,
    kind, the functions of its stack (the allocator's left out) and its blocks
    as (size, heuristic, [(level, size, record) lost through it])."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = ANY_RECORD.match(line)
        if m:
            funcs = []
            for follow in lines[i + 1:]:
                f = FRAME.match(follow)
                if not f:
                    break
                name = f.group(1).split(" (")[0]
                if name not in ("malloc", "calloc", "realloc"):
                    funcs.append(name)
            out.append(dict(number=number(m.group(7)), of=number(m.group(8)),
                            bytes=number(m.group(1)), blocks=number(m.group(3)), kind=m.group(5),
                            funcs=funcs, list=[]))
        elif (b := BLOCK.match(line)):
            out[-1]["list"].append((int(b.group(1)), b.group(2), []))
        elif (t := THROUGH.match(line)):
            out[-1]["list"][-1][2].append((len(t.group(1)) // 2, int(t.group(2)), int(t.group(3))))
    return out


def messages(text):
    """The lines of an answer that are not records, stacks or blocks."""
    keep = []
    for line in text.splitlines():
        line = re.sub(r"^==\d+== ?", "", line).rstrip()
        if (line and not ANY_RECORD.match(line) and not FRAME.match(" " + line)
                and not BLOCK.match(line) and not THROUGH.match(line)):
            keep.append(line)
    return keep


class MemcheckBlockList(TestCase):
    """memcheck's block_list monitor command over vgdb, against memcheck of
    the same Valgrind on leak_block_list.c: the same records, numbers,
    blocks (sizes, heuristics) and blocks lost through them, and the same
    messages. Addresses differ between the tools."""

    PHASE1 = (
        ("none_yet", "block_list 1"),
        ("search", "leak_check full reachable any heuristics all"),
        ("leaf", "block_list 1"),
        ("array", "block_list 2"),
        ("lost", "block_list 4"),
        ("nodes", "block_list 5"),
        ("tree", "block_list 6"),
        ("range", "block_list 1..7"),
        ("spaced", "block_list 2 .. 3"),
        ("clamped", "block_list 6..99"),
        ("limited", "block_list 6 limited 2"),
        ("limited_lost", "block_list 4 unlimited limited 2"),
        ("heuristic", "block_list 1..7 heuristics newarray"),
        ("heuristic_one", "block_list 3 heuristics stdstring"),
        ("zero", "block_list 0"),
        ("beyond", "block_list 99"),
        ("backwards", "block_list 3..2"),
        ("not_a_number", "block_list x"),
        ("nothing", "block_list"),
        ("limit_zero", "block_list 1 limited 0"),
        ("limit_missing", "block_list 1 limited"),
        ("limit_malformed", "block_list 1 limited x"),
        ("bad_heuristics", "block_list 1 heuristics foo"),
        ("bad_keyword", "block_list 1 foo"),
    )
    PHASE2 = (
        ("obsolete", "block_list 6"),
        ("again", "leak_check full increased heuristics all"),
        ("after", "block_list 7"),  # the tree, behind the kept record now 100 bytes
    )

    @classmethod
    def answers(cls, tool):
        with tempfile.TemporaryDirectory(prefix="memgrow-test-vgdb-") as tmp:
            svc = mgtest.Service(tmp, [program("leak_block_list"), os.path.join(tmp, "go"),
                                       os.path.join(tmp, "stop")], tool=tool)
            try:
                svc.expect("ready 1")
                out = {name: svc.vgdb(*cmd.split()) for name, cmd in cls.PHASE1}
                svc.touch(svc.go)
                svc.expect("ready 2")
                out.update({name: svc.vgdb(*cmd.split()) for name, cmd in cls.PHASE2})
                if tool == "memgrow":
                    out["help"] = svc.vgdb("help")
                out["rc"] = svc.finish()
                out["log"] = svc.log()
            finally:
                svc.close()
        return out

    @classmethod
    def setUpClass(cls):
        cls.mc = cls.answers("memcheck")
        cls.mg = cls.answers("memgrow")

    def both(self, name):
        return block_lists(self.mg[name]), block_lists(self.mc[name])

    def same(self, name):
        """memgrow's block list equals memcheck's, records and their numbers."""
        mine, theirs = self.both(name)
        what = f"--- memgrow:\n{self.mg[name]}\n--- memcheck:\n{self.mc[name]}"
        self.assertTrue(theirs, what)
        self.assertEqual(mine, theirs, what)
        return theirs

    def test_runs(self):
        self.assertEqual((self.mc["rc"], self.mg["rc"]), (0, 0), self.mg["log"])

    def test_records_and_their_blocks(self):
        (leaf,) = self.same("leaf")
        self.assertEqual((leaf["number"], leaf["bytes"], leaf["kind"], leaf["list"]),
                         (1, 16, "indirectly", [(16, None, [])]))
        (array,) = self.same("array")
        self.assertEqual((array["kind"], array["list"]), ("still", [(40, "newarray", [])]))
        (lost,) = self.same("lost")
        self.assertEqual((lost["bytes"], lost["blocks"], lost["list"]),
                         (72, 3, [(24, None, [])] * 3))
        (nodes,) = self.same("nodes")
        self.assertEqual(nodes["list"], [(48, None, []), (48, None, [(1, 16, 1)])])
        (tree,) = self.same("tree")
        self.assertEqual((tree["bytes"], tree["kind"], tree["funcs"]),
                         (144, "definitely", ["lose_tree", "main"]))
        self.assertEqual(tree["list"], [(32, None, [(1, 48, 5), (1, 48, 5), (2, 16, 1)])])

    def test_ranges(self):
        every = self.same("range")
        self.assertEqual([r["number"] for r in every], list(range(1, 8)))
        self.assertEqual([r["number"] for r in self.same("spaced")], [2, 3])
        # Past the last record: up to the last.
        self.assertEqual([r["number"] for r in self.same("clamped")], [6, 7])

    def test_limits_and_heuristics(self):
        (tree,) = self.same("limited")
        self.assertEqual(tree["list"], [(32, None, [(1, 48, 5)])])  # two blocks in all
        (lost,) = self.same("limited_lost")
        self.assertEqual(lost["list"], [(24, None, [])] * 2)
        (array,) = self.same("heuristic")  # of a range, only records that show a block
        self.assertEqual((array["number"], array["list"]), (2, [(40, "newarray", [])]))
        (one,) = self.same("heuristic_one")  # one record asked: shown without its block
        self.assertEqual((one["number"], one["list"]), (3, []))

    def test_messages(self):
        for name, _ in self.PHASE1 + self.PHASE2:
            if name in ("search", "again"):
                continue
            with self.subTest(command=name):
                self.assertEqual(messages(self.mg[name]), messages(self.mc[name]),
                                 f"--- memgrow:\n{self.mg[name]}\n--- memcheck:\n{self.mc[name]}")
        self.assertEqual(messages(self.mc["none_yet"]),
                         ["Can't print block list : no valid leak search result",
                          "invalid loss record nr"])
        self.assertEqual(messages(self.mc["obsolete"]),
                         ["Can't print obsolete block list : redo a leak search first",
                          "invalid loss record nr"])
        self.assertEqual(messages(self.mc["limit_zero"]), ["max_blocks must be >= 1, got 0"])
        self.assertRegex(self.mg["help"], r"(?m)^\s*block_list <loss_record_nr>\|"
                                          r"<loss_record_nr_from>\.\.<loss_record_nr_to>")

    def test_after_a_free_and_a_new_search(self):
        self.assertEqual(block_lists(self.mg["obsolete"]), [])
        (tree,) = self.same("after")
        # The record line as the delta search printed it.
        self.assertEqual((tree["number"], tree["bytes"], tree["list"]),
                         (7, 144, [(32, None, [(1, 48, 5), (1, 48, 5), (2, 16, 1)])]))
        self.assertRegex(self.mc["after"], r"144 \(\+0\) \(32 \(\+0\) direct")
        self.assertRegex(self.mg["after"], r"144 \(\+0\) \(32 \(\+0\) direct")


class ErrorExitcode(TestCase):
    def test_leaked_site_is_an_error(self):
        r = run([program("leak_lost_block")], options=["--error-exitcode=42"])
        self.assertEqual(r.rc, 42, r.log)
        self.assertIn("ERROR SUMMARY: 1 errors from 1 contexts", r.log)

    def test_clean_program_is_not(self):
        r = run([program("churn")], options=["--error-exitcode=42"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("ERROR SUMMARY: 0 errors from 0 contexts", r.log)

    def test_leaked_not_counted_when_only_growing_is(self):
        r = run([program("leak_lost_block")], options=["--error-exitcode=42",
                                                       "--errors-for=growing"])
        self.assertEqual(r.rc, 0, r.log)
        # still found and reported, only not an error
        self.assertEqual(r.report["leak_check"]["definite"]["bytes"], 2000)

    def test_growing_site_is_not_an_error_by_default(self):
        # Growth is a profile, not an error, unless asked for.
        r = run([program("grow_list")], options=["--error-exitcode=42"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("growing", {s["class"] for s in r.report["sites"]}, r.log)

    def test_growing_site_is_an_error_when_asked(self):
        for classes in ("growing", "leaked,growing", "all"):
            with self.subTest(errors_for=classes):
                r = run([program("grow_list")],
                        options=["--error-exitcode=42", f"--errors-for={classes}"])
                self.assertEqual(r.rc, 42, r.log)
                self.assertIn("ERROR SUMMARY: 1 errors from 1 contexts", r.log)

    def test_growing_not_counted_when_only_leaked_is(self):
        r = run([program("grow_list")], options=["--error-exitcode=42", "--errors-for=leaked"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("growing", {s["class"] for s in r.report["sites"]}, r.log)

    def test_no_class_counted_with_none(self):
        r = run([program("leak_lost_block")], options=["--error-exitcode=42", "--errors-for=none"])
        self.assertEqual(r.rc, 0, r.log)

    def test_bad_errors_for_is_an_option_error(self):
        r = run([program("churn")], options=["--errors-for=bogus"])
        self.assertNotEqual(r.rc, 0, r.log)
        self.assertIn("--errors-for=bogus", r.log)
        self.assertRegex(r.log, r"(?i)bad option")
        self.assertIn("leaked", r.log)  # says what it expected
        self.assertEqual(r.reports, [], "no run, no report")


class LeakCheckModes(TestCase):
    def test_no_means_no_scan(self):
        r = run([program("leak_lost_block")], options=["--leak-check=no"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertNotIn("LEAK SUMMARY", r.log)
        self.assertNotIn("loss record", r.log)
        self.assertNotIn("leak_check", r.report)
        self.assertNotIn("leaked", {s["class"] for s in r.report["sites"]})

    def test_summary_has_no_loss_records(self):
        r = run([program("leak_lost_block")], options=["--leak-check=summary"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("LEAK SUMMARY:", r.log)
        self.assertIn("definitely lost: 2,000 bytes in 1 blocks", r.log)
        self.assertNotIn("loss record", r.log)
        lc = r.report["leak_check"]
        self.assertEqual(lc["mode"], "summary")
        self.assertEqual(lc["definite"]["bytes"], 2000)

    def test_full_is_the_default(self):
        r = run([program("leak_lost_block")])
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn("2,000 bytes in 1 blocks are definitely lost in loss record", r.log)
        self.assertEqual(r.report["leak_check"]["mode"], "full")
        self.assertNotIn("still reachable in loss record", r.log)  # definite,possible

    def test_show_leak_kinds_chooses_the_records(self):
        r = run([program("leak_lost_block")], options=["--show-leak-kinds=reachable"])
        self.assertIn("200 bytes in 1 blocks are still reachable in loss record 1 of 2", r.log)
        self.assertNotIn("definitely lost in loss record", r.log)
        self.assertIn("definitely lost: 2,000 bytes in 1 blocks", r.log)  # the summary stays
        r = run([program("leak_lost_block")], options=["--show-leak-kinds=all"])
        self.assertIn("still reachable in loss record 1 of 2", r.log)
        self.assertIn("definitely lost in loss record 2 of 2", r.log)
        bad = run([program("leak_lost_block")], options=["--show-leak-kinds=lost"])
        self.assertNotEqual(bad.rc, 0, bad.log)
        self.assertIn("--show-leak-kinds", bad.log)


class MemcheckLeakRequests(TestCase):
    """memcheck.h's DO_LEAK_CHECK, DO_ADDED/CHANGED/NEW/QUICK_LEAK_CHECK,
    COUNT_LEAKS and COUNT_LEAK_BLOCKS from leak_requests.c: memgrow prints
    and counts what memcheck of the same Valgrind release prints and counts
    (DO_NEW_LEAK_CHECK and "new loss record" from 3.21)."""

    COUNTS = re.compile(r"^counts (\w+): ((?:\d+ ){4})blocks ((?:\d+ ?){4})$", re.M)
    UNKNOWN = "Warning: unknown memcheck leak search deltamode"

    @classmethod
    def setUpClass(cls):
        from test_leaks import memcheck
        argv = [program("leak_requests")]
        cls.mc_rc, cls.mc_log = memcheck(argv)
        cls.r = run(argv)
        cls.new_search = mgtest.valgrind_version() >= (3, 21)

    def counts(self, log):
        return {m.group(1): ([int(x) for x in m.group(2).split()],
                             [int(x) for x in m.group(3).split()])
                for m in self.COUNTS.finditer(log)}

    def mid_run(self, log):
        """The log up to the program's last line: the five requested checks."""
        return log[:log.index("counts last:")]

    def test_emptied_record_is_kept_one_scan(self):
        # memcheck keeps a loss record whose blocks were all freed until the
        # next scan: DO_CHANGED_LEAK_CHECK lists it with its change.
        from test_leaks import memcheck
        argv, kinds = [program("leak_requests")], ["--show-leak-kinds=all"]
        _, theirs = memcheck(argv, kinds)
        mine = run(argv, options=kinds).log
        emptied = re.compile(r"^==\d+== (0 \(-\d+\) bytes in 0 \(-1\) blocks are still reachable "
                             r"in loss record 1) of \d+$", re.M)
        self.assertEqual(emptied.findall(theirs), ["0 (-70) bytes in 0 (-1) blocks are still "
                                                   "reachable in loss record 1"], theirs)
        self.assertEqual(emptied.findall(mine), emptied.findall(theirs), mine)

    def test_hints_are_memchecks(self):
        # After each requested summary, the same hints as memcheck's.
        hints = ("Reachable blocks (those to which a pointer was found) are not shown.",
                 "To see them, rerun with: --leak-check=full --show-leak-kinds=all",
                 "Rerun with --leak-check=full to see details of leaked memory")
        mine, theirs = self.mid_run(self.r.log), self.mid_run(self.mc_log)
        for hint in hints:
            with self.subTest(hint=hint):
                self.assertEqual(mine.count(hint), theirs.count(hint), mine)
        self.assertEqual(mine.count(hints[0]), 4, mine)  # the four full checks
        self.assertEqual(mine.count(hints[2]), 1, mine)  # the quick one

    def test_summaries_are_memchecks(self):
        self.assertEqual((self.mc_rc, self.r.rc), (0, 0), self.r.log)
        mine, theirs = summaries(self.r.log), summaries(self.mc_log)
        self.assertEqual(len(theirs), 6, self.mc_log)  # five requests, and the exit's
        self.assertEqual(len(mine), 6, self.r.log)
        self.assertEqual(mine, theirs, f"--- memgrow:\n{self.r.log}\n--- memcheck:\n{self.mc_log}")
        # What the program was written to produce (memcheck's numbers).
        self.assertEqual(theirs[0]["definitely lost"], (0, None, 0, None))
        self.assertEqual(theirs[0]["still reachable"], (220, None, 3, None))
        self.assertEqual(theirs[1]["definitely lost"], (300, 300, 2, 2))
        self.assertEqual(theirs[2]["possibly lost"], (64, 64, 1, 1))
        self.assertEqual(theirs[2]["still reachable"][1::2], (-70, -1))
        # DO_NEW_LEAK_CHECK: a delta search from 3.21; before, memcheck warns
        # and lists all without deltas.
        if self.new_search:
            self.assertEqual(theirs[3]["definitely lost"], (500, 200, 3, 1))
            self.assertEqual(theirs[3]["possibly lost"], (128, 64, 2, 1))
        else:
            self.assertEqual(theirs[3]["definitely lost"], (500, None, 3, None))
        self.assertEqual(theirs[4]["definitely lost"], (500, None, 3, None))
        self.assertEqual(self.r.log.count(self.UNKNOWN), self.mc_log.count(self.UNKNOWN),
                         self.r.log)
        self.assertEqual(self.mc_log.count(self.UNKNOWN), 0 if self.new_search else 1)

    def test_records_are_memchecks(self):
        key = lambda r: (r["bytes"], r["delta_bytes"], r["blocks"], r["delta_blocks"], r["kind"],
                         r["new"], r["stack"])
        mine = [key(r) for r in records(self.mid_run(self.r.log))]
        theirs = [key(r) for r in records(self.mid_run(self.mc_log))]
        self.assertEqual(mine, theirs, f"--- memgrow:\n{self.r.log}\n--- memcheck:\n{self.mc_log}")
        src = f"{SRC}/leak_requests.c"
        first = source_line(src, "/* FIRST_LOST_HERE")
        second = source_line(src, "/* SECOND_LOST_HERE")
        interior = source_line(src, "/* INTERIOR_HERE")
        new = self.new_search
        # ADDED lists the two new definite records, CHANGED the possible one;
        # NEW the second SECOND_LOST_HERE block's record (from 3.21; before,
        # all four without deltas); QUICK none.
        want = [(100, 100, "definitely", new, first), (200, 200, "definitely", new, second),
                (64, 64, "possibly", new, interior)]
        want += ([(200, 200, "definitely", True, second)] if new else
                 [(100, None, "definitely", False, first), (128, None, "possibly", False, interior),
                  (200, None, "definitely", False, second),
                  (200, None, "definitely", False, second)])
        self.assertEqual([(r[0], r[1], r[4], r[5], r[6][0][1]) for r in theirs], want,
                         self.mc_log)

    def test_counts_are_memchecks(self):
        mine, theirs = self.counts(self.r.log), self.counts(self.mc_log)
        self.assertEqual(set(theirs), {"before", "first", "last"}, self.mc_log)
        self.assertEqual(theirs["first"], ([0, 0, 220, 0], [0, 0, 3, 0]))
        self.assertEqual(theirs["last"], ([500, 128, 50, 0], [3, 2, 1, 0]))
        self.assertEqual(mine, theirs, self.r.log)


class Parsers(unittest.TestCase):
    def test_record_and_summary_with_deltas(self):
        log = ("==9== 40 (+40) bytes in 2 (+2) blocks are definitely lost in loss record 1 of 1\n"
               "==9==    at 0x1093D9: lose_second (leak_on_demand.c:27)\n"
               "==9==    by 0x1095A1: main (leak_on_demand.c:58)\n"
               "==9== \n"
               "==9== 1,064 (24 direct, 1,040 indirect) bytes in 1 blocks are definitely lost"
               " in loss record 3 of 4\n"
               "==9== LEAK SUMMARY:\n"
               "==9==    definitely lost: 1,050 (+40) bytes in 3 (+2) blocks\n"
               "==9==    indirectly lost: 0 (-8) bytes in 0 (-1) blocks\n"
               "==9==         suppressed: 0 bytes in 0 blocks\n")
        recs = records(log)
        self.assertEqual(len(recs), 2)
        self.assertEqual((recs[0]["bytes"], recs[0]["delta_bytes"], recs[0]["blocks"],
                          recs[0]["delta_blocks"], recs[0]["kind"]), (40, 40, 2, 2, "definitely"))
        self.assertEqual(recs[0]["stack"], [("leak_on_demand.c", 27), ("leak_on_demand.c", 58)])
        self.assertEqual((recs[1]["bytes"], recs[1]["delta_bytes"]), (1064, None))
        self.assertEqual((recs[0]["new"], recs[0]["number"], recs[0]["of"]), (False, 1, 1))
        # 3.21's "new loss record", and the deltas of the direct and
        # indirect parts.
        (rec,) = records("==9== 1,064 (+1,064) (24 (+24) direct, 1,040 (+1,040) indirect) bytes"
                         " in 1 (+1) blocks are definitely lost in new loss record 3 of 4\n"
                         "==9==    at 0x4841818: malloc (vg_replace_malloc.c:446)\n"
                         "==9==    by 0x1095A1: main (leak_on_demand.c:58)\n")
        self.assertEqual((rec["bytes"], rec["delta_bytes"], rec["blocks"], rec["new"],
                          rec["number"], rec["of"], rec["stack"]),
                         (1064, 1064, 1, True, 3, 4, [("leak_on_demand.c", 58)]))
        (s,) = summaries(log)
        self.assertEqual(s["definitely lost"], (1050, 40, 3, 2))
        self.assertEqual(s["indirectly lost"], (0, -8, 0, -1))
        self.assertEqual(s["suppressed"], (0, None, 0, None))


if __name__ == "__main__":
    unittest.main()
