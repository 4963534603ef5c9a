# SPDX-License-Identifier: GPL-2.0-or-later
"""Instructions the host runs but Valgrind's decoder refuses are performed by
memgrow (RDTSCP where the host's CPUID hides it, RDPID), and a client killed
by an instruction nobody decodes still leaves its report and one line naming
the instruction. Each test says which host it ran on: the emulation path is
exercised on every host (--emulate-insns=always replaces VEX's own RDTSCP)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import TestCase, program, run, sites_at, source_line  # noqa: E402


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


FLAGS = cpu_flags()
HIDES_RDTSCP = "rdtscp" not in FLAGS
HAS_RDPID = "rdpid" in FLAGS
print(f"host: CPUID {'hides' if HIDES_RDTSCP else 'advertises'} RDTSCP, "
      f"{'has' if HAS_RDPID else 'lacks'} RDPID", file=sys.stderr)

GROW = source_line("tests/regress/host_insns.c", "GROW_HERE")


class HostInstructions(TestCase):
    def insns(self, what, *options):
        return run([program("host_insns"), what], options=list(options))

    def assertRanThrough(self, r, what):
        self.assertEqual(r.rc, 0, r.log)
        self.assertIn(f"{what} ok", r.log)
        site = self.assertClass(r.report, "growing", file="host_insns.c", line=GROW)[0]
        self.assertEqual(site["live_blocks"], 200 * 50)
        self.assertNotIn("fatal_instruction", r.report)

    def assertDiedAt(self, r, function, bytes_prefix, blocks):
        """Killed by SIGILL in `function`, with one line and the report saying so."""
        self.assertNotEqual(r.rc, 0, r.log)
        died = [l for l in r.log.splitlines() if "memgrow: the client died of SIGILL" in l]
        self.assertEqual(len(died), 1, r.log)
        self.assertIn(f": {function} (host_insns.c:", died[0])
        self.assertIn(f"(bytes {bytes_prefix}", died[0])
        fatal = r.report["fatal_instruction"]
        self.assertTrue(fatal["bytes"].startswith(bytes_prefix), fatal)
        self.assertIn(f"{function} (host_insns.c:", fatal["where"])
        self.assertEqual(r.report["teardown"], "process_end")
        sites = sites_at(r.report, file="host_insns.c", line=GROW)
        self.assertEqual([s["live_blocks"] for s in sites], [blocks], r.log)

    def test_rdtscp_by_default(self):
        r = self.insns("rdtscp")
        self.assertRanThrough(r, "rdtscp")
        if HIDES_RDTSCP:
            self.assertIn("memgrow: emulating RDTSCP, which this host's CPUID does not advertise "
                          "(first at", r.log)
        else:
            self.assertNotIn("emulating RDTSCP", r.log)  # VEX decodes it here

    def test_rdtscp_emulation_forced(self):
        r = self.insns("rdtscp", "--emulate-insns=always")
        self.assertRanThrough(r, "rdtscp")
        lines = [l for l in r.log.splitlines() if "emulating RDTSCP" in l]
        self.assertEqual(len(lines), 1, r.log)  # once, not per translation
        self.assertIn("check_rdtscp (host_insns.c:", lines[0])
        self.assertNotIn("vex amd64->IR", r.log)

    def test_rdtscp_not_emulated(self):
        r = self.insns("rdtscp", "--emulate-insns=no")
        if HIDES_RDTSCP:
            self.assertDiedAt(r, "check_rdtscp", "0f 01 f9", 50)
        else:
            self.assertRanThrough(r, "rdtscp")

    def test_rdpid(self):
        r = self.insns("rdpid")
        if HAS_RDPID:
            self.assertRanThrough(r, "rdpid")
            self.assertIn("memgrow: emulating RDPID, which Valgrind does not decode", r.log)
            self.assertNotIn("vex amd64->IR", r.log)
        else:  # the host would kill it too
            self.assertDiedAt(r, "check_rdpid", "f3 41 0f c7 f9", 50)

    def test_rdpid_not_emulated_dies_with_its_report(self):
        self.assertDiedAt(self.insns("rdpid", "--emulate-insns=no"), "check_rdpid",
                          "f3 41 0f c7 f9", 50)

    def test_undecodable_instruction_names_itself_and_leaves_the_report(self):
        r = self.insns("undecodable")
        self.assertDiedAt(r, "undecodable", "0f 04", 101 * 50)
        self.assertClass(r.report, "growing", file="host_insns.c", line=GROW)

    def test_a_caught_sigill_is_not_a_death(self):
        r = self.insns("caught")
        self.assertRanThrough(r, "caught")
        self.assertIn("caught SIGILL", r.log)
        self.assertNotIn("died of SIGILL", r.log)

    def test_bad_value(self):
        r = run([program("host_insns")], options=["--emulate-insns=sometimes"])
        self.assertNotEqual(r.rc, 0)
        self.assertIn("expected auto, always or no", r.log)

    def test_pytorch_timer_runs_through_the_emulation(self):
        # Debian's PyTorch loads libhwy, whose timer runs RDTSCP at start-up:
        # on a host that hides the flag this is what keeps `import torch` alive.
        # A million small stable sites: keep them out of the report (it would be gigabytes).
        opts = ["--python=no", "--leak-check=no", "--json-stable-min-bytes=1048576"]
        if not HIDES_RDTSCP:
            opts.append("--emulate-insns=always")
        r = run(["/usr/bin/python3", "-c", "import torch; print(torch.ones(3).sum())"],
                options=opts, timeout=900)
        self.assertEqual(r.rc, 0, r.log[-3000:])
        self.assertIn("tensor(3.)", r.log)
        self.assertIn("memgrow: emulating RDTSCP", r.log)


if __name__ == "__main__":
    unittest.main()
