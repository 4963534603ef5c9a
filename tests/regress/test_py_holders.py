"""Holders of Python memory (docs/holders.md), on every CPython the tests
run (3.11 shared and static, 3.13, 3.14, 3.15): each line of
py_holders_service.py is named by the structure that keeps its memory (a
module global, an instance or class attribute, a closure, an lru_cache, a
queue), with the holder's type, length and bound read from the objects; a
line held by bounded holders a third full is a plateau by the rule "bounded
holder", with the bound and what it reaches at the bound, where the same
line's history alone says growing."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import SRC, TestCase, python_interpreters, run, source_line  # noqa: E402

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


if __name__ == "__main__":
    unittest.main()
