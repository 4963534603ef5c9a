#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The memory of `import torch` under memgrow and memcheck (issue 19: memgrow
should peak below memcheck on it): runs Debian's python3-torch import under
memcheck, memgrow (the default, with the addressability checks) and the growth
hunt (--addressability=no), one run each, and prints each one's wall time, user
time and peak RSS, with memgrow's RSS over memcheck's (docs: bench/README.md).

    python3 bench/torch_import.py                 # /usr/bin/python3
    python3 bench/torch_import.py --python EXE    # another interpreter with torch
    python3 bench/torch_import.py --build DIR     # memgrow of another build

About 2 minutes on 2 cores. A million distinct allocation stacks make this
the bench of the tool's memory per stack on a real program (bench/stacks.py is
the synthetic one).
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    a = ap.parse_args()
    probe = subprocess.run([a.python, "-c", "import torch"], capture_output=True, text=True)
    if probe.returncode != 0:
        sys.exit(f"torch_import: {a.python} cannot import torch (Debian: apt-get install "
                 f"python3-torch): {probe.stderr.strip().splitlines()[-1:]}")
    valgrind = shutil.which("valgrind")
    memgrow = os.path.join(a.build, "vg-in-place")
    if not valgrind or not os.access(memgrow, os.X_OK):
        sys.exit("torch_import: needs valgrind on PATH and a built memgrow (scripts/build.sh)")
    with tempfile.TemporaryDirectory(prefix="memgrow-torch-") as tmp:
        rusage = os.path.join(tmp, "rusage_run")
        subprocess.run(["cc", "-O2", "-o", rusage, os.path.join(HERE, "rusage_run.c")],
                       check=True)
        report = os.path.join(tmp, "report.json")
        configs = [
            ("memcheck", [valgrind, "--tool=memcheck", "-q"]),
            ("memgrow", [memgrow, "--tool=memgrow", "-q", f"--json-file={report}"]),
            ("memgrow --addressability=no",
             [memgrow, "--tool=memgrow", "-q", "--addressability=no", f"--json-file={report}"]),
        ]
        rows = {}
        for name, argv in configs:
            res = os.path.join(tmp, "res")
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
            subprocess.run([rusage, res, *argv, a.python, "-c", "import torch"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
            with open(res) as f:
                secs, kib, status = f.read().split()
            if status != "0":
                sys.exit(f"torch_import: {name} exited {status}")
            rows[name] = int(kib)
            print(f"{name:30} {float(secs):7.1f} s wall {user:7.1f} s user  "
                  f"peak RSS {int(kib) / 1024:8.1f} MiB", flush=True)
        base = rows["memcheck"]
        for name in ("memgrow", "memgrow --addressability=no"):
            ratio = rows[name] / base
            print(f"peak RSS {name} / memcheck = {ratio:.2f} "
                  f"(target below 1.00: {'met' if ratio < 1 else 'MISSED'})")


if __name__ == "__main__":
    main()
