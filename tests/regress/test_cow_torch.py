# SPDX-License-Identifier: GPL-2.0-or-later
"""Copy-on-write in a PyTorch DataLoader's forked workers (Debian's
python3-torch on /usr/bin/python3, docs/pages.md): each worker's copy is
charged to the dataset's line and written at the line that reads a record."""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import SRC, run, source_line  # noqa: E402

PYTHON = "/usr/bin/python3"  # Debian's, with python3-torch (scripts/install-deps.sh)
SCRIPT = os.path.join(SRC, "tests", "regress", "py_cow_torch.py")
SOURCE = "tests/regress/py_cow_torch.py"


def at_line(frames, marker):
    line = source_line(SOURCE, marker)
    return any(f["python"] and f["line"] == line and (f["file"] or "").endswith("py_cow_torch.py")
               for f in frames)


class DataLoaderWorkers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        found = subprocess.run([PYTHON, "-c", "import torch"], capture_output=True, text=True)
        assert found.returncode == 0, "python3-torch is missing: " + found.stderr[-500:]

    def test_each_worker_copies_the_records_it_reads(self):
        # import torch makes over a million distinct stacks: list only the
        # sites that held 32 KiB (and those a fork object names). The growth
        # hunt without a leak scan: about 3 minutes instead of 11.
        r = run([PYTHON, SCRIPT], options=["--trace-children=yes", "--json-stable-min-bytes=32768",
                                           "--addressability=no", "--leak-check=no"],
                env={"PYTHONMALLOC": "malloc"}, timeout=1500)
        self.assertEqual(r.rc, 0, r.log[-3000:])
        self.assertIn("done 50000", r.log)
        workers = {int(p) for p in re.findall(r"worker \d pid (\d+)", r.log)}
        self.assertEqual(len(workers), 2, r.log[-3000:])
        reports = {rep["pid"]: rep for rep in r.reports}
        [main] = [rep for rep in r.reports if rep["ppid"] not in reports]
        self.assertNotIn("fork", main)
        for pid in workers:
            fork = reports[pid]["fork"]
            self.assertEqual(fork["parent_pid"], main["pid"])
            sites = {s["id"]: s for s in reports[pid]["sites"]}
            records = sum(c["bytes"] for c in fork["copied"]
                          if "site" in c and at_line(sites[c["site"]]["frames"], "DATASET_HERE"))
            # A read writes the dict object's reference count: half of 50,000
            # dict objects of 64 bytes (their keys lie in other slabs).
            self.assertGreater(records, 1.2e6, fork["copied"][:5])
            lead = next(c for c in fork["copied"] if "site" in c)
            self.assertTrue(at_line(sites[lead["site"]]["frames"], "DATASET_HERE"),
                            sites[lead["site"]]["frames"])
            reading = sum(w["bytes"] for w in fork["writers"] if at_line(w["frames"], "READ_HERE"))
            self.assertGreaterEqual(reading, records * 0.9, fork["writers"][:3])
            self.assertIn(f"this process (forked from {main['pid']}) copied", r.log)


if __name__ == "__main__":
    unittest.main()
