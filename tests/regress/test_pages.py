# SPDX-License-Identifier: GPL-2.0-or-later
"""What the dashboard sees (docs/pages.md): the report's `pages` series,
per bucket, of the heap's live bytes, the client's own mappings and the
client's resident bytes (mincore), and the html chart "heap vs mapped vs
resident". pages_seed allocates 32 MiB of small blocks and frees them, and
unmaps a 16 MiB buffer: the heap and the mapped bytes go back to their
start, the resident bytes do not (the allocator keeps the heap's pages).
pages_dontneed gives 64 MiB back with MADV_DONTNEED: the resident bytes fall
in the bucket it happened in. The page is opened in headless Chromium and its screenshot kept as a test
artifact ($MG_BUILD_DIR/tests/artifacts/pages.png)."""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import BUILD, memgrow_report, program, run  # noqa: E402
from test_report_html import Charts, browse, chromium, console_errors  # noqa: E402

MIB = 1 << 20
ARTIFACTS = os.path.join(BUILD, "tests", "artifacts")


class Pages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-pages-")
        cls.runs = {}
        for fmt in ("1", "2"):
            r = run([program("pages_seed")], options=[f"--json-format={fmt}"],
                    json_name=f"seed{fmt}.json")
            assert r.rc == 0, r.log
            cls.runs[fmt] = r.report

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_series(self, rep):
        pages = rep["pages"]
        n = len(rep["buckets"])
        for key in ("heap", "mapped", "resident"):
            self.assertEqual(len(pages[key]), n, key)
        heap, mapped, resident = pages["heap"], pages["mapped"], pages["resident"]
        # The heap's levels are the host space's, the mapped ones the mapped space's.
        self.assertEqual(heap, [b["spaces"]["host"]["live_bytes"] for b in rep["buckets"]])
        # Levels at bucket ends: the last before the frees has most of the batch.
        self.assertGreaterEqual(max(heap), 28 * MIB)
        self.assertEqual(max(mapped), 16 * MIB)
        # The seed's picture: heap and mapped back at their start...
        self.assertLess(heap[-1], 1 * MIB)
        self.assertEqual(mapped[-1], 0)
        # ... the resident bytes not: the heap's pages stay with the
        # allocator, and the steady work after the frees takes fresh ones
        # while the freed blocks wait in the quarantine (docs/pages.md).
        self.assertGreater(resident[-1], max(heap))
        self.assertGreaterEqual(max(resident), max(heap) + 16 * MIB)
        self.assertLess(resident[0], max(resident) / 2)
        self.assertEqual(pages["teardown"]["resident"], resident[-1])
        self.assertEqual(pages["teardown"]["heap"], heap[-1])
        # File mappings by file: the program itself among them.
        files = [f["file"] for f in pages["files"] if f["file"]]
        self.assertTrue(any(os.path.basename(f) == "pages_seed" for f in files), files)
        for f in pages["files"]:
            self.assertLessEqual(f["resident_bytes"], f["mapped_bytes"])

    def test_format_2_series(self):
        self.check_series(self.runs["2"])

    def test_format_1_series(self):
        self.check_series(self.runs["1"])

    def test_html_chart_heap_vs_mapped_vs_resident(self):
        if not chromium():
            raise AssertionError("no chromium: scripts/install-deps.sh installs it")
        import json
        path = os.path.join(self.tmp, "seed.json")
        with open(path, "w") as f:
            json.dump(self.runs["1"], f)
        page = os.path.join(self.tmp, "seed.html")
        p = memgrow_report("html", path, "-o", page)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(page) as f:
            self.assertIn("Heap vs mapped vs resident", f.read())
        dom, log = browse(page, "--dump-dom")
        self.assertEqual(console_errors(log), [], log)
        c = Charts()
        c.feed(dom)
        [chart] = [ch for ch in c.charts if "pages-chart" in ch["class"]]
        n = len(self.runs["1"]["buckets"])
        self.assertEqual(chart["buckets"], n)
        self.assertEqual([name for name, _ in chart["lines"]], ["heap", "mapped", "resident"])
        for _, points in chart["lines"]:
            self.assertEqual(len(points), n)
        os.makedirs(ARTIFACTS, exist_ok=True)
        shot = os.path.join(ARTIFACTS, "pages.png")
        if os.path.exists(shot):
            os.remove(shot)
        _, log = browse(page, f"--screenshot={shot}", "--window-size=1280,1000")
        with open(shot, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


class Released(unittest.TestCase):
    def test_resident_falls_at_a_release(self):
        # Issue 43, B12: the buckets after a 64 MiB MADV_DONTNEED, ended by
        # small allocations within 50 ms of the last sample, kept the
        # resident level sampled before it (66 MiB) up to teardown.
        r = run([program("pages_dontneed")])
        self.assertEqual(r.rc, 0, r.log)
        resident = r.report["pages"]["resident"]
        self.assertGreaterEqual(max(resident), 64 * MIB, resident)
        # The last 90 allocations are the last 45% of the clock.
        after = resident[len(resident) * 2 // 3:]
        self.assertLess(max(after), 32 * MIB, resident)


if __name__ == "__main__":
    unittest.main()
