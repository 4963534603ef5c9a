# SPDX-License-Identifier: GPL-2.0-or-later
"""Who holds it (docs/holders.md): the leak scan names, for each growing,
plateau and leaked site, the holders of its memory, by the shortest way
from the roots: a global by its symbol, a stack slot by the frame that owns
it, a lost block by its site; a linked list's nodes collapse to what holds
its head. Both report formats carry `held_by`, and the log a line under
each site's headline."""
import json
import re
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import (REPORT, VALGRIND, TestCase, program, run, sites_at,  # noqa: E402
                    source_line)

SRC = "tests/regress/holders_native.c"


def line(marker):
    return source_line(SRC, marker)


class NativeHolders(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.runs = {fmt: run([program("holders_native"), "1000"], options=[f"--json-format={fmt}"])
                    for fmt in (2, 1)}

    def site(self, fmt, marker):
        r = self.runs[fmt]
        (s,) = sites_at(r.report, file="holders_native.c", line=line(marker))
        return s

    def test_a_global_list_is_held_by_the_global(self):
        for fmt in (2, 1):
            with self.subTest(format=fmt):
                s = self.site(fmt, "NODE_HERE")
                self.assertIn(s["class"], ("growing", "plateau"), s)
                (h,) = s["held_by"]
                # One holder: the nodes collapse to the head, which the global holds.
                self.assertEqual((h["path"], h["root"]), ("journal", "global"), s["held_by"])
                self.assertEqual((h["bytes"], h["blocks"]), (48_000, 1000))
                self.assertEqual(h["share"], 1)
                self.assertEqual((h["type"], h["length"], h["bound"]), (None, None, None))

    def test_a_global_array_is_one_holder(self):
        s = self.site(2, "SLOT_HERE")
        (h,) = s["held_by"]
        self.assertEqual((h["path"], h["root"], h["blocks"]), ("slots", "global", 1000))

    def test_a_list_on_the_stack_is_held_by_its_frame(self):
        s = self.site(2, "LOCAL_HERE")
        (h,) = s["held_by"]
        self.assertEqual(h["root"], "stack", s["held_by"])
        self.assertRegex(h["path"], r"^main \(holders_native\.c:\d+\)$")
        self.assertEqual(h["blocks"], 1000)

    def test_a_list_in_thread_local_storage_is_held_by_its_thread(self):
        s = self.site(2, "TLS_HERE")
        (h,) = s["held_by"]
        self.assertEqual((h["root"], h["path"], h["blocks"]),
                         ("thread", "the thread-local storage of thread 1", 1000), s["held_by"])

    def test_lost_nodes_are_held_by_the_lost_head(self):
        s = self.site(2, "LOST_HERE")
        self.assertEqual(s["class"], "leaked")
        (h,) = s["held_by"]  # the 49 indirectly lost nodes; the head itself has no holder
        self.assertEqual((h["root"], h["blocks"]), ("heap", 49))
        self.assertEqual(h["path"], f"lost block from lose_list (holders_native.c:{line('LOST_HERE')})")

    def test_the_log_names_the_holder_under_the_headline(self):
        log = self.runs[2].log
        self.assertRegex(log, r"held by: journal \(global\), 48,000 bytes in 1,000 blocks, 100%")

    def test_memgrow_report_expand_keeps_held_by(self):
        with tempfile.TemporaryDirectory() as tmp:
            raw, out = os.path.join(tmp, "r.json"), os.path.join(tmp, "x.json")
            p = subprocess.run([VALGRIND, "--tool=memgrow", *mgtest.COMPLETE, f"--json-file={raw}",
                                program("holders_native"), "200"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout)
            x = subprocess.run([REPORT, "expand", raw, "-o", out], stderr=subprocess.PIPE,
                               text=True, timeout=60)
            self.assertEqual(x.returncode, 0, x.stderr)
            with open(out) as f:
                doc = json.load(f)
        paths = {h["path"] for s in doc["sites"] for h in s.get("held_by", [])}
        self.assertIn("journal", paths)
        self.assertIn("slots", paths)


CXX = "tests/regress/holders_cxx.cpp"


class NativeContainers(TestCase):
    """A heap array of pointers made once bounds what it holds (a third full:
    a plateau by the bounded-holder rule); a std::vector and a
    std::unordered_map that keep growing are held by their globals, with no
    bound, and their buffers grow too; a list only a thread's stack holds is
    held by the thread's frame. The holders lead the log."""

    @classmethod
    def setUpClass(cls):
        cls.r = run([program("holders_cxx"), "1000"])

    def site(self, marker):
        (s,) = sites_at(self.r.report, file="holders_cxx.cpp", line=source_line(CXX, marker))
        return s

    def test_a_fixed_heap_array_is_a_bounded_holder(self):
        s = self.site("ARRAY_REC")
        (h,) = s["held_by"]
        self.assertTrue(h["path"].startswith("ring → block from main (holders_cxx.cpp:"), h)
        self.assertEqual((h["length"], h["bound"], h["blocks"]), (1000, 3000, 1000))
        g = s["growth"]
        self.assertEqual((s["class"], g["rule"], g["bound"]), ("plateau", "bounded holder", 3000))
        self.assertEqual(g["bound_bytes"], 3 * s["live_bytes"])

    def test_growing_containers_are_held_by_their_globals_without_bound(self):
        # A C++ global is named as the program writes it, not `_ZN5store5by_idE`.
        for marker, path in (("VECTOR_REC", "records"), ("MAP_REC", "store::by_id")):
            s = self.site(marker)
            self.assertEqual(s["class"], "growing", s["growth"])
            h = s["held_by"][0]
            self.assertEqual((h["path"], h["root"], h["bound"]), (path, "global", None))
            self.assertGreater(h["share"], 0.99)
            top = self.r.report["holders"][h["holder"]]
            self.assertEqual(top["class"], "growing")
            self.assertIn(s["id"], top["sites"])

    def test_a_list_on_a_threads_stack_is_held_by_its_frame(self):
        s = self.site("THREAD_NODE")
        (h,) = s["held_by"]
        self.assertEqual(h["root"], "stack")
        self.assertRegex(h["path"], r"^worker\(void\*\) \(holders_cxx\.cpp:\d+\)$")
        self.assertEqual(h["blocks"], 1000)

    def test_the_growing_holders_lead_the_log(self):
        # The holders lead, before the sites. The worker's list (its frame's
        # holder) grows too, faster or slower than the globals as the two
        # threads are scheduled: the order among them is not fixed.
        first = self.r.log.index("GROWING HOLDER 1 of")
        self.assertRegex(self.r.log[first:], r"^GROWING HOLDER 1 of [23]: \S.* keeps ")
        holders = re.findall(r"GROWING HOLDER \d+ of [23]: (.*) keeps ", self.r.log)
        self.assertIn("store::by_id (global)", holders)
        self.assertIn("records (global)", holders)


class CountsAreNoBoundOnBytes(TestCase):
    """A bound on the number of blocks bounds bytes only when the blocks keep
    their size and sit side by side: four per-connection buffers appended to
    with realloc in a 64-slot array, a chained hash table's nodes scattered
    over its 16,384 buckets (no collision yet), and random words that happen
    to point into blocks all grow without bound: growing, not a plateau by
    the bounded-holder rule."""

    def test_buffers_grown_by_realloc_are_growing(self):
        r = run([program("conn_bufs"), "4000"])
        (s,) = sites_at(r.report, file="conn_bufs.c",
                        line=source_line("tests/regress/conn_bufs.c", "CONN_APPEND"))
        self.assertEqual((s["class"], s["live_blocks"]), ("growing", 4), s["growth"])
        self.assertIsNone(s["growth"].get("bound"))
        self.assertEqual(s["held_by"][0]["path"], "conn_buf")
        self.assertRegex(r.log, r"GROWING 1 of 1: on_data \(conn_bufs\.c:\d+\)")
        (h,) = [h for h in r.report["holders"] if h["path"] == "conn_buf"]
        self.assertEqual(h["class"], "growing", h)

    def test_a_chained_hash_table_is_no_bound(self):
        r = run([program("chained_table"), "3000"])
        (s,) = sites_at(r.report, file="chained_table.c",
                        line=source_line("tests/regress/chained_table.c", "TABLE_NODE"))
        self.assertEqual(s["class"], "growing", s["growth"])
        (h,) = s["held_by"]
        self.assertEqual((h["path"], h["root"], h["bound"], h["blocks"]),
                         ("table", "global", None, 3000), h)
        self.assertIn(" held by: table (global), ", r.log)

    def test_random_words_that_point_into_blocks_are_no_bound(self):
        # 65,536 random words, 3,000 of them planted into the blocks: they
        # are scattered, and their array's 65,536 words bound nothing.
        r = run([program("junk_words"), "3000"])
        (s,) = sites_at(r.report, file="junk_words.c",
                        line=source_line("tests/regress/junk_words.c", "JUNK_BLOCK"))
        self.assertEqual(s["class"], "growing", s["growth"])
        junk = [h for h in s["held_by"] if h["path"] == "junk"]
        self.assertEqual([(h["root"], h["bound"]) for h in junk], [("global", None)], s["held_by"])
        self.assertIn(" held by: junk (global), ", r.log)


if __name__ == "__main__":
    unittest.main()
