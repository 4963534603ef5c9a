# SPDX-License-Identifier: GPL-2.0-or-later
"""A site is named by the innermost frame of the program's own code
(core/site_name.hpp) in every view: the bundled example's response cache
allocates through strdup (a frame of the C library, with debug info), and
must be called `cache_response (leaky_service.c:36)` in the log, in its leak
record, in `memgrow-report show`, on the HTML page, in SARIF and in JUnit,
never `strdup (strdup.c:...)`.

With 1,500 requests the example's 2,048-slot cache never evicts, so the
cache site grows and SARIF and JUnit (which list leaked and growing sites)
name it too."""
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import BUILD, SRC, memgrow_report, run  # noqa: E402

EXAMPLE = os.path.join(BUILD, "examples", "leaky_service")
SOURCE = os.path.join(SRC, "examples", "leaky_service.c")


def line_of(marker):
    with open(SOURCE) as f:
        for n, text in enumerate(f, 1):
            if marker in text:
                return n
    raise AssertionError(f"{marker} not in {SOURCE}")


class SiteNames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-names-")
        cls.cache = f"cache_response (leaky_service.c:{line_of('= strdup(body)')})"
        cls.stats = f"stats_for (leaky_service.c:{line_of('= calloc(1, sizeof *s)')})"
        cls.runs = {}
        for name, argv in (("full", [EXAMPLE]), ("filling", [EXAMPLE, "1500"])):
            r = run(argv, options=["--leak-check=full", "--show-leak-kinds=all"])
            assert r.rc == 0, r.log
            path = os.path.join(cls.tmp, name + ".json")
            with open(path, "w") as f:
                json.dump(r.report, f)
            cls.runs[name] = (r, path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_stack_really_starts_in_the_c_library(self):
        # Else the test proves nothing: the cache's innermost frame is strdup's.
        r, _ = self.runs["full"]
        cache = [s for s in r.report["sites"] if s["class"] == "plateau"]
        self.assertEqual(len(cache), 1, r.log)
        self.assertEqual(cache[0]["frames"][0]["function"], "strdup", cache[0]["frames"])

    def test_log(self):
        r, _ = self.runs["full"]
        self.assertRegex(r.log, r"PLATEAU 1 of 1: " + re.escape(self.cache) + r", 51,200 bytes")
        self.assertRegex(r.log, r"GROWING 1 of 1: " + re.escape(self.stats) + r", [\d,]+ bytes")
        self.assertRegex(r.log, r"memgrow: site \d+, " + re.escape(self.cache) + ", grew as plateau")
        self.assertNotRegex(r.log, r"(GROWING|PLATEAU) \d of \d: strdup")

    def test_show(self):
        _, path = self.runs["full"]
        p = memgrow_report("show", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\nPLATEAU 1 of 1: " + self.cache + "\n", p.stdout)
        self.assertIn("\nGROWING 1 of 1: " + self.stats + "\n", p.stdout)

    def test_html(self):
        _, path = self.runs["full"]
        page = os.path.join(self.tmp, "page.html")
        p = memgrow_report("html", path, "-o", page)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(page) as f:
            text = f.read()
        cards = re.findall(r'<div class="site-card"[^>]*data-class="(\w+)".*?<code>([^<]*)</code>',
                           text, re.S)
        self.assertIn(("plateau", self.cache), cards)
        self.assertIn(("growing", self.stats), cards)
        self.assertNotIn("<code>strdup (strdup.c", text)

    def test_sarif_and_junit(self):
        r, path = self.runs["filling"]
        growing = [s for s in r.report["sites"] if s["class"] == "growing"]
        self.assertEqual(len(growing), 1, r.log)  # the statistics
        # The cache still filling (1,500 of 2,048 slots) is known bounded by its
        # ring array: a plateau by the bounded-holder rule (docs/holders.md).
        (cache,) = [s for s in r.report["sites"] if s["class"] == "plateau"]
        self.assertEqual((cache["growth"]["rule"], cache["growth"]["bound"]),
                         ("bounded holder", 2048), cache["growth"])
        self.assertEqual(cache["held_by"][0]["path"], "response_cache")
        sarif = os.path.join(self.tmp, "out.sarif")
        p = memgrow_report("sarif", path, "-o", sarif)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(sarif) as f:
            results = json.load(f)["runs"][0]["results"]
        by_name = {res["message"]["text"].split(": ")[0]: res for res in results}
        self.assertEqual(set(by_name), {self.stats}, results)
        loc = by_name[self.stats]["locations"][0]["physicalLocation"]
        self.assertTrue(loc["artifactLocation"]["uri"].endswith("leaky_service.c"), loc)
        xml = os.path.join(self.tmp, "out.xml")
        p = memgrow_report("junit", path, "-o", xml)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(xml) as f:
            text = f.read()
        self.assertNotIn(f'message="{self.cache}: growing', text)
        self.assertIn(f'message="{self.stats}: growing', text)


if __name__ == "__main__":
    unittest.main()
