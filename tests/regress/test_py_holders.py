# SPDX-License-Identifier: GPL-2.0-or-later
"""Holders of Python memory (docs/holders.md), on every CPython the tests
run (3.11 shared and static, 3.13, 3.14, 3.15): each line of
py_holders_service.py is named by the structure that keeps its memory (a
module global, an instance or class attribute, a closure, an lru_cache, a
queue), with the holder's type, length and bound read from the objects; a
line held by bounded holders a third full is a plateau by the rule "bounded
holder", with the bound and what it reaches at the bound, where the same
line's history alone says growing."""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tempfile  # noqa: E402

from mgtest import (REPORT, SRC, VALGRIND, Service, TestCase, build_extension,  # noqa: E402
                    load_report, python_interpreters, representative_interpreters, run,
                    source_line)

NAME = "py_holders_service.py"
SCRIPT = os.path.join(SRC, "tests", "regress", NAME)
N = 2000


def line(marker):
    return source_line(os.path.join("tests", "regress", NAME), marker)


def headline(ps):
    for f in ps["frames"]:
        if os.path.basename(f["file"] or "") == NAME:
            return f["line"]
    return None


class PythonHolders(TestCase):
    runs = {}

    @classmethod
    def setUpClass(cls):
        for name, py in python_interpreters().items():
            cls.runs[name] = run([*py.argv, SCRIPT, str(N)])

    def sites(self, name, marker):
        r = self.runs[name]
        self.assertEqual(r.rc, 0, r.log[-3000:])
        found = [ps for ps in r.report["python_sites"] if headline(ps) == line(marker)
                 and ps["class"] != "stable"]
        self.assertTrue(found, f"{name}: no Python site at {marker}\n{r.log[-3000:]}")
        return found

    def main_holder(self, ps):
        self.assertTrue(ps.get("held_by"), ps)
        return ps["held_by"][0]

    def each(self):
        for name in self.runs:
            with self.subTest(python=name):
                yield name

    def test_bounded_holders_a_third_full_make_plateaus(self):
        for name in self.each():
            for marker, path, type_ in (("RECORD_IDS", "__main__.RECENT", "collections.deque"),
                                        ("CACHED_TOKENS", "__main__.tokenize",
                                         "functools._lru_cache_wrapper"),
                                        ("PY_CACHED_WORDS", "__main__.split_words",
                                         "functools._lru_cache_wrapper")):
                big = max(self.sites(name, marker), key=lambda ps: ps["live_bytes"])
                h = self.main_holder(big)
                self.assertEqual((h["path"], h["type"], h["length"], h["bound"]),
                                 (path, type_, N, 3 * N), big["held_by"])
                self.assertGreaterEqual(h["share"], 0.9)
                g = big["growth"]
                self.assertEqual((big["class"], g["rule"], g["bound"]),
                                 ("plateau", "bounded holder", 3 * N), g)
                self.assertAlmostEqual(g["fill"], 1 / 3, places=2)
                # Three times what it holds now, once full.
                self.assertGreater(g["bound_bytes"], 2.5 * h["bytes"])
                self.assertLess(g["bound_bytes"], 3.5 * big["live_bytes"])

    def test_unbounded_holders_keep_their_lines_growing(self):
        for name in self.each():
            for marker, path, type_ in (("STAT_KEY", "__main__.TOKEN_STATS", "dict"),
                                        ("INSTANCE_ITEM", "__main__.LOG._recent", "list"),
                                        ("CLASS_ITEM", "__main__.Cache.entries", "dict")):
                (ps,) = [p for p in self.sites(name, marker) if p["class"] == "growing"]
                h = self.main_holder(ps)
                self.assertEqual((h["path"], h["type"], h["length"], h["bound"]),
                                 (path, type_, N, None), ps["held_by"])
                self.assertGreater(h["share"], 0.95)
                self.assertIsNone(ps["growth"].get("bound"))

    def test_a_closure_holds_its_dict(self):
        for name in self.each():
            (ps,) = [p for p in self.sites(name, "CLOSURE_VALUE") if p["class"] == "growing"]
            h = self.main_holder(ps)
            self.assertEqual(h["path"], "__main__.make_counter.<locals>.count.__closure__[*]")
            self.assertEqual((h["type"], h["length"]), ("dict", N))

    def test_a_queue_that_fills_is_a_plateau_held_by_the_queue(self):
        for name in self.each():
            for ps in self.sites(name, "QUEUE_ITEM"):
                self.assertEqual(ps["class"], "plateau", ps["growth"])
                h = self.main_holder(ps)
                self.assertEqual((h["path"], h["type"], h["length"], h["bound"]),
                                 ("__main__.JOBS", "queue.Queue", N // 10, N // 10))

    def test_holders_are_listed_once_and_referenced(self):
        for name in self.each():
            r = self.runs[name].report
            holders = r["holders"]
            self.assertEqual([h["id"] for h in holders], list(range(len(holders))))
            for ps in r["python_sites"] + r["sites"]:
                for h in ps.get("held_by", []):
                    top = holders[h["holder"]]
                    self.assertEqual((top["path"], top["type"]), (h["path"], h["type"]))
                    if h["count"] == 1:  # else the sum of the holders that read the same
                        self.assertGreaterEqual(top["bytes"], h["bytes"])

    def test_the_log_names_each_holder_with_its_bound(self):
        for name in self.each():
            log = self.runs[name].log
            self.assertRegex(log, r"held by: __main__\.TOKEN_STATS \(dict, 2,000 items, no "
                                  r"bound\), [\d,]+ bytes in [\d,]+ blocks, \d+(\.\d)?%")
            self.assertRegex(log, r"held by: __main__\.RECENT \(collections\.deque, 2,000 of "
                                  r"6,000 items\)")
            self.assertRegex(log, re.escape("bounded holder rule") + r".*its holder is bounded "
                                  r"at 6,000, 33% full: .* at the bound")


class OneFindingPerHolder(TestCase):
    """The holders of growing memory lead the log and are findings of their
    own in the report: one list that keeps the memory of five growing
    Python sites (sys.exc_info() tuples) is one finding; growth spread thin
    over 10,000 compiled snippets, none of which grows alone, is the growth
    of the list that keeps them."""

    @classmethod
    def setUpClass(cls):
        cls.runs = {}
        for name, py in representative_interpreters().items():
            cls.runs[name] = {
                "exc": run([*py.argv, os.path.join(SRC, "tests", "regress", "py_exc_info.py")]),
                "spread": run([*py.argv, os.path.join(SRC, "tests", "regress",
                                                      "py_holders_spread.py"), "10000"])}

    def finding(self, r, path):
        self.assertEqual(r.rc, 0, r.log[-3000:])
        (h,) = [h for h in r.report["holders"] if h["path"] == path]
        return h

    def test_one_list_keeping_five_growing_sites_is_one_finding(self):
        for name, runs in self.runs.items():
            with self.subTest(python=name):
                r = runs["exc"]
                h = self.finding(r, "__main__.errors")
                self.assertEqual((h["class"], h["type"], h["length"], h["bound"]),
                                 ("growing", "list", 15000, None), h)
                self.assertGreaterEqual(h["n_sites"], 4)
                growing = {ps["id"] for ps in r.report["python_sites"] if ps["class"] == "growing"}
                self.assertTrue(set(h["python_sites"]) <= growing | {ps["id"] for ps in
                                                                     r.report["python_sites"]})
                kept = [ps for ps in r.report["python_sites"] if ps["class"] == "growing"
                        and ps["held_by"][0]["path"] == "__main__.errors"]
                self.assertGreaterEqual(len(kept), 4)
                self.assertRegex(r.log, r"GROWING HOLDER 1 of 1: __main__\.errors \(list, 15,000 "
                                        r"items, no bound\) keeps [\d.]+ MB in \d sites")

    def test_growth_spread_thin_is_its_holders(self):
        for name, runs in self.runs.items():
            with self.subTest(python=name):
                r = runs["spread"]
                h = self.finding(r, "__main__.KEPT")
                self.assertEqual((h["class"], h["length"]), ("growing", 10000), h)
                self.assertGreater(h["n_sites"], 1000)
                self.assertGreater(h["live_bytes"], 500_000)
                self.assertRegex(r.log, r"GROWING HOLDER \d+ of \d+: __main__\.KEPT \(list, 10,000 "
                                        r"items, no bound\) keeps [\d.]+ kB in [\d,]+ sites")


class HoldersThatReadTheSame(TestCase):
    """Four lists that each hold a quarter of one line's memory, all named
    `__main__.SESSIONS[*].log`: one held_by entry that counts them, and one
    growing holder finding in the log."""

    def test_the_elements_of_one_list_are_one_holder_line(self):
        name = "py_holders_alike.py"
        py = python_interpreters()["running"]
        r = run([*py.argv, os.path.join(SRC, "tests", "regress", name)])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        entry = source_line(os.path.join("tests", "regress", name), "ALIKE_ENTRY")
        (ps,) = [p for p in r.report["python_sites"] if p["class"] == "growing" and
                 p["frames"][0]["line"] == entry]
        (h,) = ps["held_by"]
        self.assertEqual((h["path"], h["type"], h["count"], h["length"]),
                         ("__main__.SESSIONS[*].log", "list", 4, 500), h)
        self.assertGreater(h["share"], 0.99)
        findings = re.findall(r"GROWING HOLDER \d+ of \d+: __main__\.SESSIONS\[\*\]\.log .*", r.log)
        self.assertEqual(len(findings), 1, r.log[-3000:])
        self.assertIn("(list, 500 items, no bound; 4 such) keeps", findings[0])
        self.assertIn("held by: __main__.SESSIONS[*].log (list, 500 items, no bound; 4 such)",
                      r.log)


class NamesInTheLog(TestCase):
    """Dict keys, attribute, module, type, function and file names holding a
    newline, ESC, BEL and U+202E are escaped in the tool's log as
    `memgrow-report show` escapes them: they forge no line, send no escape."""

    def test_names_are_escaped_in_the_log_as_show_escapes_them(self):
        py = python_interpreters()["running"]
        r = run([*py.argv, os.path.join(SRC, "tests", "regress", "py_holders_inject.py")])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        for raw in ("\x1b", "\x07", "\u202e"):
            self.assertNotIn(raw, r.log)
        self.assertFalse([l for l in r.log.splitlines() if re.match(r"==\d+== ==1==", l)])
        for escaped in (r"mod\nname\x1b[31m.items (list, 3,000 items",
                        r"__main__.B.attr\n==1== held by: FORGED\x07 (list, 3,000 items",
                        r"__main__.CACHE['\n==1== GROWING 9 of 9: injected (",
                        r"__main__.TYPED (__main__.Lst\n==1== FORGED\x1b[0m, 3,000 items",
                        r"at py: step\n==1== FORGED\u202e (evil\n==1== FORGED\x1b[2J.py:"):
            self.assertIn(escaped, r.log)
        # The report keeps the names as they are.
        paths = {h["path"] for h in r.report["holders"]}
        self.assertIn("mod\nname\x1b[31m.items", paths)


class TracebackCache(TestCase):
    """traceback.format_exc() into a deque(maxlen=50): what grows under the
    formatting line is kept by the interpreter's own state (its caches hold
    at most one object per word of _PyRuntime), not by the deque, and is
    classed by that holder: a plateau, never growing."""

    def test_the_interpreters_cache_is_named_and_bounds_the_line(self):
        for name, py in representative_interpreters().items():
            with self.subTest(python=name):
                r = run([*py.argv, os.path.join(SRC, "tests", "regress",
                                                "py_holders_traceback.py"), "2000"])
                self.assertEqual(r.rc, 0, r.log[-3000:])
                fmt = source_line(os.path.join("tests", "regress", "py_holders_traceback.py"),
                                  "TB_FORMAT")
                at = [ps for ps in r.report["python_sites"]
                      if any(f["line"] == fmt and "py_holders_traceback" in (f["file"] or "")
                             for f in ps["frames"][:1] + [f for f in ps["frames"] if f["python"]][:1])]
                self.assertTrue(at)
                self.assertNotIn("growing", {ps["class"] for ps in at}, [ps["growth"] for ps in at])
                for ps in at:
                    if ps["class"] != "plateau" or ps["growth"]["rule"] != "bounded holder":
                        continue
                    h = ps["held_by"][0]
                    self.assertTrue(h["path"].startswith("the interpreter's state (_PyRuntime"), h)
                    self.assertGreater(h["bound"], 1000)


class WhoHolds(TestCase):
    """`vgdb who_holds FILE:LINE` scans the live program and names what holds
    that line's memory now, with the holder's type, length and bound."""

    def test_who_holds_a_line_of_a_live_service(self):
        # On every interpreter: a live frame's locals are read by version.
        for label, py in python_interpreters().items():
            with self.subTest(python=label):
                self.who_holds(py)

    def who_holds(self, py):
        name = "py_holders_live.py"
        with tempfile.TemporaryDirectory() as tmp:
            stop = os.path.join(tmp, "stop")
            svc = Service(tmp, [*py.argv, os.path.join(SRC, "tests", "regress", name), stop])
            try:
                svc.expect("ready")
                stats = source_line(os.path.join("tests", "regress", name), "LIVE_STATS")
                out = svc.vgdb("who_holds", f"{name}:{stats}")
                self.assertRegex(out, rf"{name}:{stats}: \d+ sites?, [\d,]+ bytes live; held by:")
                self.assertRegex(out, r"__main__\.STATS \(dict, 1,000 items, no bound\), "
                                      r"[\d,]+ bytes, (9\d|100)%")
                recent = source_line(os.path.join("tests", "regress", name), "LIVE_RECENT")
                out = svc.vgdb("who_holds", f"{name}:{recent}")
                self.assertRegex(out, r"__main__\.RECENT \(collections\.deque, 1,000 of "
                                      r"5,000 items\)")
                # A full deque of bytearrays: the deque holds the line's
                # memory, the bytearrays' bytes with them; holders that
                # read the same are one line, and no register or frame of
                # memgrow's own malloc is named.
                ring = source_line(os.path.join("tests", "regress", name), "LIVE_RING")
                out = svc.vgdb("who_holds", f"{name}:{ring}")
                self.assertRegex(out, r"\n  __main__\.RING \(collections\.deque, 50 of 50 "
                                      r"items\), [\d,]+ bytes, (9\d|100)%")
                paths = re.findall(r"\n  (\S+) \(", out)
                self.assertEqual(len(paths), len(set(paths)), out)
                self.assertNotRegex(out, r"a register|vgpreload_memgrow")
                # A live frame's local, by the function's and the variable's
                # names (the list it names, not the list's type after it).
                batch = source_line(os.path.join("tests", "regress", name), "LIVE_BATCH")
                out = svc.vgdb("who_holds", f"{name}:{batch}")
                self.assertRegex(out, r"\n  serve\.<locals>\.batch \(list, 1,000 items, "
                                      r"no bound\), [\d,]+ bytes, (9\d|100)%")
                self.assertIn("no site allocated at nowhere.py:1",
                              svc.vgdb("who_holds", "nowhere.py:1"))
                self.assertIn("is not FILE:LINE or a site id", svc.vgdb("who_holds", "x:y"))
                svc.touch(stop)
                self.assertEqual(svc.proc.wait(timeout=120), 0, svc.log())
            finally:
                svc.close()


class Safety(TestCase):
    """Garbage on the way to a holder (a wild type pointer, a dict whose
    keys table and size are garbage, a str with a huge length, a cycle) and
    a dict of a million keys: the report is written, the dict named with its
    length, and the tool neither crashes nor hangs."""

    def test_corrupted_objects_and_a_million_keys(self):
        script = os.path.join(SRC, "tests", "regress", "py_holders_corrupt.py")
        for name, py in representative_interpreters().items():
            with self.subTest(python=name):
                r = run([*py.argv, script, "1000000"], timeout=600)
                self.assertEqual(r.rc, 0, r.log[-3000:])
                self.assertIn("corrupted", r.log)
                self.assertNotRegex(r.log, r"impossible|internal error|Process terminating")
                big = [h for h in r.report["holders"] if h["path"] == "__main__.BIG"]
                self.assertEqual([(h["type"], h["length"]) for h in big], [("dict", 1000000)])


def script(name):
    return os.path.join(SRC, "tests", "regress", name)


class WithoutTheLeakReport(TestCase):
    """The holders come from a walk of their own when the exit's leak report
    (--leak-check=no) or the teardown scan (--teardown-scan=no) is off: a
    deque(maxlen=6000) half full still makes its line a plateau."""

    def test_a_bounded_deque_bounds_its_line_with_either_scan_off(self):
        py = python_interpreters()["running"]
        line_ = source_line(os.path.join("tests", "regress", "py_base.py"), "BASE_RECENT")
        for options in (["--leak-check=no"], ["--teardown-scan=no"],
                        ["--leak-check=no", "--teardown-scan=no"]):
            with self.subTest(options=options):
                r = run([*py.argv, script("py_base.py")], options=options)
                self.assertEqual(r.rc, 0, r.log[-3000:])
                (ps,) = [p for p in r.report["python_sites"]
                         if p["frames"][0]["line"] == line_ and p["class"] != "stable"]
                self.assertEqual((ps["class"], ps["growth"]["rule"]), ("plateau", "bounded holder"),
                                 ps["growth"])
                h = ps["held_by"][0]
                self.assertEqual((h["path"], h["type"], h["length"], h["bound"]),
                                 ("__main__.RECENT", "collections.deque", 3000, 6000))
                self.assertRegex(r.log, r"held by: __main__\.RECENT \(collections\.deque, "
                                        r"3,000 of 6,000 items\)")


class GrowingToTheEnd(TestCase):
    """A dict that gains keys to the very end, its last resize in the run's
    last third (the resize's peak, then the drop, defeats the trend test of
    the line's summed series): held by a dict with no bound whose items keep
    coming, the line is growing (rule "unbounded holder" where its series
    alone does not say so; tests/unit/test_classify.cpp), and every output
    says so: the log, the exit code (counted once, by the Python site), the
    JSON classes, and memgrow-report's sarif, junit, show and diff."""

    def test_a_dict_growing_to_the_end_is_growing_everywhere(self):
        py = python_interpreters()["running"]
        line_ = source_line(os.path.join("tests", "regress", "py_dict_grow.py"), "DICT_GROW")
        r = run([*py.argv, script("py_dict_grow.py"), "120000"],
                options=["--errors-for=growing", "--error-exitcode=3"])
        self.assertEqual(r.rc, 3, r.log[-3000:])
        (ps,) = [p for p in r.report["python_sites"] if p["class"] != "stable"]
        self.assertEqual(ps["frames"][0]["line"], line_)
        # Growing by its own series where the table's resizes are seen as a
        # staircase (the bytes clock counts an allocation in flight at a
        # bucket's end from the next bucket), else by its holder.
        self.assertEqual(ps["class"], "growing", ps["growth"])
        self.assertIn(ps["growth"]["rule"], ("staircase", "trend", "unbounded holder"),
                      ps["growth"])
        h = ps["held_by"][0]
        self.assertEqual((h["path"], h["type"], h["length"], h["bound"]),
                         ("__main__.SEEN", "dict", 120000, None))
        (finding,) = [x for x in r.report["holders"] if x["path"] == "__main__.SEEN"]
        self.assertEqual(finding["class"], "growing")
        self.assertRegex(r.log, r"GROWING 1 of 1: <module> \(py_dict_grow\.py:\d+\)")
        self.assertRegex(r.log, r"Python sites: [\d,]+ \(leaked 0, growing 1, plateau 0,")
        # One error for the one growing line, not one per native sub-site.
        self.assertRegex(r.log, r"ERROR SUMMARY: 1 errors from 1 contexts")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.json")
            with open(path, "w") as f:
                json.dump(r.report, f)
            sarif, junit = os.path.join(tmp, "r.sarif"), os.path.join(tmp, "r.xml")
            subprocess.run([REPORT, "sarif", f"--output={sarif}", path], check=True,
                           capture_output=True)
            subprocess.run([REPORT, "junit", f"--output={junit}", path], check=True,
                           capture_output=True)
            with open(sarif) as f:
                results = json.load(f)["runs"][0]["results"]
            self.assertEqual([x["ruleId"] for x in results], ["memgrow/growing"])
            with open(junit) as f:
                self.assertRegex(f.read(), r'failures="1"')
            show = subprocess.run([REPORT, "show", path], check=True, capture_output=True,
                                  text=True).stdout
            self.assertRegex(show, r"GROWING 1 of 1: <module> \(py_dict_grow\.py:\d+\)")
            diff = subprocess.run([REPORT, "diff", path, path], capture_output=True,
                                  text=True).stdout
            self.assertRegex(diff, rf"leaked and growing sites hold {ps['live_bytes']:,} -> ")


class WhatHoldsNothing(TestCase):
    """A full C lru_cache(maxsize=32) whose values grow is one holder, the
    wrapper, holding all its values (its links are its own), and its line
    grows: 32 values are no bound on their bytes. Floats whose bits are the
    addresses of blobs kept in a dict's list are never their holders: an
    object with no pointer in it holds nothing. A module's namespace holding
    a linked list from one global is that global, by its variable."""

    def test_a_full_lru_cache_is_one_holder(self):
        py = python_interpreters()["running"]
        r = run([*py.argv, script("py_lru_full.py")])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        value = source_line(os.path.join("tests", "regress", "py_lru_full.py"), "LRU_FULL_VALUE")
        (ps,) = [p for p in r.report["python_sites"] if p["frames"][0]["line"] == value
                 and p["class"] != "stable"]
        self.assertEqual(ps["class"], "growing", ps["growth"])
        (h,) = ps["held_by"]
        self.assertEqual((h["path"], h["type"], h["length"], h["bound"]),
                         ("__main__.render", "functools._lru_cache_wrapper", 32, 32))
        self.assertGreater(h["share"], 0.99)
        self.assertEqual([x["path"] for x in r.report["holders"]
                          if x["path"].startswith("__main__.render")], ["__main__.render"])
        self.assertEqual(len(re.findall(r"GROWING HOLDER \d+ of \d+: __main__\.render", r.log)), 1,
                         r.log[-3000:])

    def test_a_float_is_never_a_holder(self):
        py = python_interpreters()["running"]
        r = run([*py.argv, script("py_holders_decoy.py"), "3000"])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        blob = source_line(os.path.join("tests", "regress", "py_holders_decoy.py"), "DECOY_BLOB")
        ps = max((p for p in r.report["python_sites"] if p["frames"][0]["line"] == blob),
                 key=lambda p: p["live_bytes"])
        h = ps["held_by"][0]
        self.assertEqual((h["path"], h["type"]), ("__main__.STORE['blobs']", "list"), h)
        self.assertGreater(h["share"], 0.99)
        self.assertNotIn("float", [x["type"] for x in r.report["holders"]])

    def test_a_list_whose_head_is_a_global_is_held_by_the_global(self):
        py = python_interpreters()["running"]
        r = run([*py.argv, script("py_slots_chain.py"), "30000"])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        for marker in ("CHAIN_NODE", "CHAIN_PAYLOAD"):
            at = source_line(os.path.join("tests", "regress", "py_slots_chain.py"), marker)
            ps = max((p for p in r.report["python_sites"] if p["frames"][0]["line"] == at),
                     key=lambda p: p["live_bytes"])
            h = ps["held_by"][0]
            self.assertEqual((h["path"], h["type"]), ("__main__.CHAIN", "__main__.Node"), h)
            self.assertGreater(h["share"], 0.99)
        self.assertIn("held by: __main__.CHAIN (__main__.Node), ", r.log)


class TokenService(TestCase):
    """Issue 45's token service (py_token_service.py) tells one story on the
    shared and static 3.11 and on 3.14: its growing lines are held by
    __main__.TOKEN_STATS in the log, `show` and the report; its deque is the
    one plateau holder; the dead objects parked on CPython's free lists (the
    floats the temporaries line returns to the float list on 3.14) are no
    holders and no live bytes; and the log and `show` count and name a
    holder's sites alike."""

    N = 2000

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-token-service-")
        cls.runs = {}
        for name, py in representative_interpreters().items():
            path = os.path.join(cls.tmp, f"{name}.json")
            p = subprocess.run([VALGRIND, "--tool=memgrow", f"--json-file={path}", *py.argv,
                                os.path.join(SRC, "tests", "regress", "py_token_service.py"),
                                str(cls.N)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", timeout=300)
            show = subprocess.run([REPORT, "show", path], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, errors="replace", timeout=60)
            report = load_report(path) if p.returncode == 0 else None
            cls.runs[name] = (p.returncode, p.stdout, report, show.stdout)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def each(self, check):
        for name, (rc, log, report, show) in self.runs.items():
            with self.subTest(python=name):
                self.assertEqual(rc, 0, log[-3000:])
                check(name, log, report, show)

    def lines(self, report, marker):
        want = source_line(os.path.join("tests", "regress", "py_token_service.py"), marker)
        return [ps for ps in report["python_sites"]
                if any(os.path.basename(f["file"] or "") == "py_token_service.py" and
                       f["line"] == want for f in ps["frames"][:1])]

    def test_the_growing_lines_are_held_by_the_dict_everywhere(self):
        def check(name, log, report, show):
            growing = [ps for ps in report["python_sites"] if ps["class"] == "growing"]
            self.assertTrue(growing, log[-3000:])
            for ps in growing:
                self.assertEqual(ps["held_by"][0]["path"], "__main__.TOKEN_STATS", ps["held_by"])
            for text in (log, show):
                self.assertRegex(text, r"\n(==\d+== )?GROWING HOLDER 1 of 1: __main__\.TOKEN_STATS "
                                       r"\(dict, [\d,]+ items, no bound\) keeps ")
                self.assertIn(" held by: __main__.TOKEN_STATS (dict, ", text)
            self.assertEqual([h["path"] for h in report["holders"] if h["class"] == "growing"
                              and h["path"].startswith("__main__.TOKEN_STATS")],
                             ["__main__.TOKEN_STATS"])
        self.each(check)

    def test_the_deque_is_the_one_plateau_holder(self):
        def check(name, log, report, show):
            found = re.findall(r"^==\d+== PLATEAU HOLDER \d+ of (\d+): (.*?) keeps ", log, re.M)
            self.assertEqual(found, [("1", "__main__.RECENT (collections.deque, 500 of 500 items)")],
                             log[-4000:])
        self.each(check)

    def test_free_lists_hold_nothing(self):
        def check(name, log, report, show):
            # No holder line names the interpreter's state: its free lists
            # and caches of dead objects keep nothing the program made.
            for text in (log, show):
                self.assertNotIn("held by: the interpreter's state", text)
            for ps in report["python_sites"]:
                for h in ps.get("held_by") or []:
                    self.assertNotIn("_PyRuntime", h["path"], ps)
            # The temporaries line keeps nothing at the end: no plateau, of
            # its own or in a sub-site (on 3.14 its floats are revived from
            # the float free list and go back to it). A line the report
            # leaves out is stable and small, its sub-sites too (a plateau
            # one would be listed, and its line with it).
            sites = {site["id"]: site for site in report["sites"]}
            for ps in self.lines(report, "TEMPORARIES"):
                self.assertEqual(ps["class"], "stable", ps)
                for sub in ps["sites"]:
                    self.assertNotEqual(sites[sub]["class"], "plateau", sites[sub])
        self.each(check)

    def test_log_and_show_count_and_name_the_same_sites(self):
        heading = r"^(?:==\d+== )?(\w+ HOLDER \d+ of \d+: .* keeps .* in ([\d,]+) sites?),"
        def check(name, log, report, show):
            found = re.findall(heading, log, re.M)
            shown = re.findall(heading, show, re.M)
            self.assertTrue(found, log[-3000:])
            self.assertEqual([h for h, _ in shown], [h for h, _ in found], show)
            for h in report["holders"]:
                if h["class"] in ("growing", "plateau") and h.get("members") is not None:
                    in_log = re.search(r"^==\d+== \w+ HOLDER \d+ of \d+: %s \(.*\n((?:==\d+==    .*\n)*)"
                                       % re.escape(h["path"]), log, re.M)
                    if not in_log:
                        continue
                    members = re.findall(r"==\d+==    (?!and )[\d.]+ \w+ of (.*)", in_log.group(1))
                    more = re.search(r"and ([\d,]+) more sites?", in_log.group(1))
                    self.assertEqual(len(members), len(h["members"]), in_log.group(0))
                    self.assertEqual(len(members) + (int(more.group(1).replace(",", ""))
                                                     if more else 0), h["n_sites"])
                    in_show = re.search(r"^\w+ HOLDER \d+ of \d+: %s \(.*\n((?:    .*\n)*)"
                                        % re.escape(h["path"]), show, re.M)
                    self.assertTrue(in_show, show)
                    self.assertEqual(len(re.findall(r"bytes held: ", in_show.group(1))),
                                     len(members), in_show.group(0))
                    if more:
                        self.assertIn(f"    and {more.group(1)} more site", in_show.group(1))
            # The same words and numbers: each holder's and site's headline,
            # its rate included, reads alike in the log and in show.
            line = r"^(?:==\d+== )?((?:GROWING|PLATEAU)(?: HOLDER)? \d+ of \d+: .*)$"
            self.assertEqual(re.findall(line, show, re.M), re.findall(line, log, re.M))
            # One growing count: the log's summary, show's and the HTML
            # page's verdict.
            total = re.search(r"growing: ([\d,]+) sites, ([\d,]+) bytes", log)
            self.assertIn(f"growing {total.group(1)} ({total.group(2)} bytes)", show)
            page = os.path.join(self.tmp, f"{name}.html")
            p = subprocess.run([REPORT, "html", os.path.join(self.tmp, f"{name}.json"), "-o", page],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=120)
            self.assertEqual(p.returncode, 0, p.stdout)
            with open(page, encoding="utf-8") as f:
                verdict = re.search(r'class="verdict">(Growing: .*?)</p>', f.read()).group(1)
            self.assertIn(", held by __main__.TOKEN_STATS", verdict)
            rate = re.search(r"\(([+-][\d.,]+ B per byte allocated)\)", verdict)
            self.assertTrue(rate, verdict)
            self.assertIn(f", {rate.group(1)}\n", log)
            self.assertIn(f"; {total.group(1)} growing sites ", verdict)
        self.each(check)


class PythonWayWins(TestCase):
    """An extension's registry in its static data (py_registry_ext.c, most
    of it in the anonymous tail of its .bss) keeps every object a request
    makes: the records a module global holds too are held by the global,
    all of them (before, the slots in the file-backed part of the .bss took
    8% of them); the ones only the registry keeps are the registry's."""

    def test_a_python_way_wins_over_a_native_root(self):
        for name, py in representative_interpreters().items():
            with self.subTest(python=name), tempfile.TemporaryDirectory(
                    prefix="memgrow-test-registry-") as tmp:
                build_extension(py.argv[0], "py_registry_ext.c", "registry_ext", tmp)
                r = run([*py.argv, os.path.join(SRC, "tests", "regress", "py_registry_ext.py"),
                         tmp, "2000"])
                self.assertEqual(r.rc, 0, r.log[-3000:])
                for marker, path in (("BOTH_HERE", "__main__.KEPT"),
                                     ("NATIVE_ONLY_HERE", "registry_slots")):
                    want = source_line(os.path.join("tests", "regress", "py_registry_ext.py"),
                                       marker)
                    (ps,) = [ps for ps in r.report["python_sites"] if ps["class"] == "growing"
                             and ps["frames"][0]["line"] == want]
                    self.assertEqual([h["path"] for h in ps["held_by"]], [path], ps["held_by"])
                    self.assertGreater(ps["held_by"][0]["share"], 0.999, ps["held_by"])

if __name__ == "__main__":
    unittest.main()
