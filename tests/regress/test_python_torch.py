# SPDX-License-Identifier: GPL-2.0-or-later
"""Training loops (Debian's python3-torch on /usr/bin/python3), run as a new
user runs them: the script knows nothing of memgrow. Keeping each step's
loss tensor keeps its autograd graph, which grows at the forward line, by the
clock and, with --mark-at=torch, by steps; keeping loss.item() grows nothing,
and `import torch` leaves no leaked site and no error behind. A C extension's
own leaks stay leaked."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import SRC, TestCase, build_extension, describe, run, source_line  # noqa: E402

PYTHON = "/usr/bin/python3"  # Debian's, with python3-torch (scripts/install-deps.sh)
SCRIPT = os.path.join(SRC, "tests", "regress", "py_torch_loop.py")
# import torch alone makes over a million distinct allocation stacks: list
# only the stable sites that held 32 KiB at some point.
OPTIONS = ["--json-stable-min-bytes=32768"]
STEPS = "300"


def at_line(report, marker, script="py_torch_loop.py", key="sites"):
    line = source_line(f"tests/regress/{script}", marker)
    return [s for s in report[key]
            if any(f["python"] and os.path.basename(f["file"] or "") == script
                   and f["line"] == line for f in s["frames"])]


def in_script(report, script="py_torch_loop.py"):
    return [s for s in report["sites"]
            if any(f["python"] and os.path.basename(f["file"] or "") == script
                   for f in s["frames"])]


def per_step(sites):
    return sum(s["growth"]["rate_per_mark"] or 0 for s in sites)


class TorchLoop(TestCase):
    @classmethod
    def setUpClass(cls):
        found = subprocess.run([PYTHON, "-c", "import torch"], capture_output=True, text=True)
        assert found.returncode == 0, "python3-torch is missing: " + found.stderr[-500:]

    def test_keeping_loss_tensors_grows_at_the_forward_line_by_the_clock(self):
        r = run([PYTHON, SCRIPT, "tensor", STEPS], options=OPTIONS, timeout=900)
        self.assertEqual(r.rc, 0, r.log[-3000:])
        rep = r.report
        self.assertEqual(rep["marks"]["count"], 0)
        # import torch is most of the clock; the buckets start afresh at the
        # script's first line, so the loop has at least half of them.
        self.assertGreater(rep["warmup_end"], rep["teardown_at"] // 2)
        self.assertEqual(rep["buckets"][0]["end"], rep["warmup_end"])
        self.assertGreaterEqual(len(rep["buckets"]), 33)
        growing = [s for s in at_line(rep, "TORCH_FORWARD") if s["class"] == "growing"]
        self.assertTrue(growing, describe(rep)[-5000:])
        # The graph's tensors, through the model's Python frames
        # (Linear.forward) down to the loop's line: hundreds of KiB.
        self.assertGreater(sum(s["live_bytes"] for s in growing), 300 * 1024)
        self.assertTrue(any(f["python"] and f["function"] == "Linear.forward"
                            for s in growing for f in s["frames"]))
        # Tensor storage carries the Python line that made the tensor: each
        # step's inputs (32 KiB, freed by backward) at torch.randn, the
        # momentum buffers at the optimizer's step, through PyTorch's CPU
        # allocator (no cache of its own: each storage is a block).
        randn = at_line(rep, "TORCH_RANDN")
        self.assertTrue([s for s in randn if s["peak_bytes"] >= 128 * 64 * 4
                         and s["allocated_blocks"] >= int(STEPS)], describe({"sites": randn}))
        step = at_line(rep, "TORCH_STEP")
        self.assertTrue(any(f["python"] and os.path.basename(f["file"] or "") == "sgd.py"
                            for s in step for f in s["frames"]), describe({"sites": step}))
        self.assertTrue(any(re.search(r"at::detail::empty_(cpu|generic|strided)", f["function"] or "")
                            for s in growing for f in s["frames"]),
                        describe({"sites": growing}))

    def test_keeping_loss_tensors_grows_per_step_with_mark_at_torch(self):
        r = run([PYTHON, SCRIPT, "tensor", STEPS], options=OPTIONS + ["--mark-at=torch"],
                timeout=900)
        self.assertEqual(r.rc, 0, r.log[-3000:])
        rep = r.report
        self.assertEqual(rep["marks"]["count"], int(STEPS))
        self.assertEqual(rep["marks"]["label"], "step")
        growing = [s for s in at_line(rep, "TORCH_FORWARD") if s["class"] == "growing"]
        self.assertTrue(growing, describe(rep)[-5000:])
        # Every step added: the per-mark (refleak) rule, kilobytes per step.
        self.assertIn("refleak", {s["growth"]["rule"] for s in growing})
        self.assertGreater(per_step(growing), 1000)
        self.assertRegex(r.log, r"per step: \+[\d,.]+ (bytes|kB|MB)")

    def test_keeping_loss_items_grows_nothing_and_import_torch_leaks_nothing(self):
        r = run([PYTHON, SCRIPT, "item", STEPS], options=OPTIONS, timeout=900)
        self.assertEqual(r.rc, 0, r.log[-3000:])
        rep = r.report
        self.assertTrue(at_line(rep, "TORCH_FORWARD"))
        # Nothing of the script's own grows or plateaus. (PyTorch 1.13 has
        # its own reference leak in broadcast_tensors: one 59-byte string
        # per call, at mse_loss -- a real finding, a thousandth of the
        # graph's growth, held in torch's interned strings, not the script.)
        grown = [s for s in in_script(rep) if s["class"] in ("growing", "plateau")
                 and s["growth"]["rate"] * int(STEPS) > 64 * 1024]
        self.assertFalse(grown, describe({"sites": grown}))
        self.assertFalse([s for s in at_line(rep, "TORCH_FORWARD")
                          if s["class"] == "growing"
                          and any(f["function"] == "Linear.forward" for f in s["frames"])])
        # The fused attention's one-time initialisation is neither (by its
        # Python sites: its native ones are small and stable, left out).
        attention = at_line(rep, "TORCH_ATTENTION", key="python_sites")
        self.assertTrue(attention, describe(rep)[-3000:])
        self.assertFalse([s for s in attention if s["class"] in ("growing", "leaked")],
                         describe({"sites": attention}))
        # import torch + a clean loop: no leaked site and no error with the
        # default options. What torch's and numpy's modules make once and
        # drop at Py_FinalizeEx is lost by teardown.
        self.assertEqual([s for s in rep["sites"] if s["class"] == "leaked" and not s["suppressed"]],
                         [], r.log[-6000:])
        # NumPy's own import-time losses (imported by torch) are what
        # suppressions/numpy.supp silences.
        self.assertGreater(rep["leak_check"]["suppressed"]["bytes"], 0)
        self.assertRegex(r.log, r"ERROR SUMMARY: 0 errors")
        self.assertGreater(rep["leak_check"]["lost_by_teardown"]["definite"]["bytes"], 0)
        # Their records are one line of the log (listed on request).
        self.assertRegex(r.log, r"Lost by teardown: [\d,]+ bytes in [\d,]+ blocks in [\d,]+ loss "
                         r"records, not listed \(reachable when Py_FinalizeEx began; not errors;")


class LeakyExtension(TestCase):
    """A C extension that loses a malloc and a reference per call: leaked,
    and growing by their history, on the interpreters with headers here."""

    def check(self, python):
        with tempfile.TemporaryDirectory(prefix="memgrow-test-ext-") as tmp:
            build_extension(python, "py_leaky_ext.c", "leaky_ext", tmp)
            driver = os.path.join(SRC, "tests", "regress", "py_leaky_ext.py")
            r = run([python, driver, tmp, "2000"])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        for marker, each in (("EXT_MALLOC", 64), ("EXT_REF", 48)):
            sites = at_line(r.report, marker, "py_leaky_ext.py")
            leaked = [s for s in sites if s["class"] == "leaked"]
            self.assertTrue(leaked, f"{marker}: {describe(r.report)[-4000:]}")
            self.assertEqual({s["growth"]["class"] for s in leaked}, {"growing"}, marker)
            lost = sum(s["lost"]["definite"] - s.get("lost_by_teardown", {}).get("definite", 0)
                       for s in leaked)
            # Every call's block, but for the few that a stale copy of a
            # pointer (memgrow has no definedness bits) keeps reachable.
            self.assertGreaterEqual(lost, 0.95 * 2000 * each, marker)
        self.assertRegex(r.log, r"ERROR SUMMARY: [1-9]\d* errors")

    def test_on_debian_python(self):
        self.check(PYTHON)

    def test_on_the_running_python(self):
        self.check(sys.executable)


if __name__ == "__main__":
    unittest.main()
