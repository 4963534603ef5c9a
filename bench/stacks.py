#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tool memory per distinct allocation stack: runs bench/many_stacks.c (N
distinct stacks, each block freed at once) under memgrow for several N and
prints the peak RSS and its growth per stack (docs: bench/README.md).

    python3 bench/stacks.py                    # N = 10k, 100k, 1M
    python3 bench/stacks.py --n 10000 --n 100000
    python3 bench/stacks.py --build DIR        # memgrow of another build

The slope between two N is what one more distinct stack costs the tool (its
site record, the stack's words, the hash tables, the report's tables), the
figure issue 19 asks to cut to a quarter.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, action="append")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--option", action="append", default=[],
                    help="extra memgrow option (repeatable)")
    a = ap.parse_args()
    ns = a.n or [10_000, 100_000, 1_000_000]
    vg = os.path.join(a.build, "vg-in-place")
    with tempfile.TemporaryDirectory(prefix="memgrow-stacks-") as tmp:
        prog, rusage = os.path.join(tmp, "many_stacks"), os.path.join(tmp, "rusage_run")
        subprocess.run(["cc", "-O0", "-g", "-o", prog, os.path.join(HERE, "many_stacks.c")],
                       check=True)
        subprocess.run(["cc", "-O2", "-o", rusage, os.path.join(HERE, "rusage_run.c")],
                       check=True)
        rows = []
        for n in ns:
            res = os.path.join(tmp, "res")
            report = os.path.join(tmp, f"r{n}.json")
            subprocess.run([rusage, res, vg, "--tool=memgrow", "-q", "--leak-check=no",
                            f"--json-file={report}", *a.option, prog, str(n)],
                           stdout=subprocess.DEVNULL, check=True)
            with open(res) as f:
                secs, kib, status = f.read().split()[:3]
            if status != "0":
                sys.exit(f"many_stacks {n} exited {status}")
            rows.append((n, float(secs), int(kib), os.path.getsize(report)))
            print(f"N={n:>9,}  {float(secs):7.1f} s  peak RSS {int(kib) / 1024:8.1f} MiB  "
                  f"report {os.path.getsize(report) / 1e6:8.1f} MB", flush=True)
        for (n0, _, k0, _), (n1, _, k1, _) in zip(rows, rows[1:]):
            print(f"per distinct stack, N {n0:,} -> {n1:,}: "
                  f"{(k1 - k0) * 1024 / (n1 - n0):,.0f} bytes of peak RSS")


if __name__ == "__main__":
    main()
