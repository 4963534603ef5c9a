#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`import torch` under memgrow, beside `--tool=none` and memcheck: the price of
every PyTorch run (issue 45 §5: CPU time over `--tool=none`, targets 1.5 for
the growth hunt and 2.0 for the default) and of its memory (issue 19: memgrow
should peak below memcheck). A script that imports torch at its top and makes
one matrix product, as users write them, runs under each configuration once,
one after the other; each row gives wall time, CPU time (user + system: on a
shared machine it moves less than the wall time) and peak RSS.

    python3 bench/torch_import.py                 # /usr/bin/python3 (Debian's torch 1.13)
    python3 bench/torch_import.py --python EXE    # another interpreter with torch
                                                  # (sid's 3.14 and torch 2.14:
                                                  # scripts/fetch-python.sh --torch)
    python3 bench/torch_import.py --build DIR     # memgrow of another build
    python3 bench/torch_import.py --skip memcheck # leave configurations out

Valgrind 3.19 and glibc 2.42+ (sid's): glibc's malloc in a threaded program
under `--tool=none` or memcheck corrupts its heap while rseq is registered, so
every configuration runs with GLIBC_TUNABLES=glibc.pthread.rseq=0 (memgrow
replaces malloc and never needed it). About 15 minutes on 2 cores with sid's
torch, 3 with Debian's.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = """import torch
a = torch.randn(64, 64)
b = (a @ a).sum()
print(float(b) != 0)
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--skip", action="append", default=[],
                    help="a configuration's name (none, memcheck, default, hunt, "
                         "hunt-startup-depth-32)")
    a = ap.parse_args()
    probe = subprocess.run([a.python, "-c", "import torch"], capture_output=True, text=True)
    if probe.returncode != 0:
        sys.exit(f"torch_import: {a.python} cannot import torch (Debian: apt-get install "
                 f"python3-torch): {probe.stderr.strip().splitlines()[-1:]}")
    valgrind = shutil.which("valgrind")
    memgrow = os.path.join(a.build, "vg-in-place")
    if not valgrind or not os.access(memgrow, os.X_OK):
        sys.exit("torch_import: needs valgrind on PATH and a built memgrow (scripts/build.sh)")
    env = dict(os.environ, GLIBC_TUNABLES="glibc.pthread.rseq=0")
    with tempfile.TemporaryDirectory(prefix="memgrow-torch-") as tmp:
        rusage = os.path.join(tmp, "rusage_run")
        subprocess.run(["cc", "-O2", "-o", rusage, os.path.join(HERE, "rusage_run.c")],
                       check=True)
        script = os.path.join(tmp, "torch_script.py")
        with open(script, "w") as f:
            f.write(SCRIPT)
        report = os.path.join(tmp, "report.json")
        mg = [memgrow, "--tool=memgrow", "-q", f"--json-file={report}"]
        configs = [
            ("none", [memgrow, "--tool=none", "-q"]),
            ("memcheck", [valgrind, "--tool=memcheck", "-q"]),
            ("default", mg),
            ("hunt", mg + ["--addressability=no"]),
            # The hunt with start-up's stacks as deep as the rest: what
            # --startup-depth buys.
            ("hunt-startup-depth-32", mg + ["--addressability=no", "--startup-depth=32"]),
        ]
        rows = {}
        for name, argv in configs:
            if name in a.skip:
                continue
            res = os.path.join(tmp, "res")
            subprocess.run([rusage, res, *argv, a.python, script], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            with open(res) as f:
                secs, kib, status, cpu = f.read().split()
            if status != "0":
                # memcheck cannot start a program whose ld.so is stripped
                # (sid's): it needs the loader's strlen by name.
                print(f"{name:24} exited {status}: not measured", flush=True)
                continue
            rows[name] = (float(secs), float(cpu), int(kib))
            ratio = f"{float(cpu) / rows['none'][1]:5.2f}x none" if "none" in rows else ""
            print(f"{name:24} {float(secs):7.1f} s wall {float(cpu):7.1f} s CPU  "
                  f"peak RSS {int(kib) / 1024:8.1f} MiB  {ratio}", flush=True)
        if "memcheck" in rows:
            for name in ("default", "hunt"):
                if name in rows:
                    print(f"peak RSS {name} / memcheck = {rows[name][2] / rows['memcheck'][2]:.2f}")


if __name__ == "__main__":
    main()
