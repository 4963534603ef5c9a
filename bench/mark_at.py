#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What --mark-at costs: a Python service loop (tests/regress/py_mark_at_service.py)
under memgrow without marks and with --mark-at=__main__:handle, on each
interpreter at hand (3.11 uses a profile function, 3.12 and newer
sys.monitoring), and the PyTorch loop (tests/regress/py_torch_loop.py) with
and without --mark-at=torch. Wall time, median of --repeat runs, in one run.

    python3 bench/mark_at.py [--repeat 3] [--requests 20000] [--steps 100] [--build DIR]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVICE = os.path.join(ROOT, "tests", "regress", "py_mark_at_service.py")
TORCH = os.path.join(ROOT, "tests", "regress", "py_torch_loop.py")
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "memgrow")


def interpreters():
    out = {"3.11 (pyenv, shared)": sys.executable}
    if os.path.exists("/usr/bin/python3"):
        out["3.11 (Debian, static)"] = os.path.realpath("/usr/bin/python3")
    for minor in (13, 14, 15):
        exe = os.path.join(CACHE, f"python3.{minor}", "usr", "bin", f"python3.{minor}")
        if os.access(exe, os.X_OK):
            out[f"3.{minor} (Debian sid)"] = exe
        else:
            print(f"skipping 3.{minor}: {exe} is missing (scripts/fetch-python.sh)", file=sys.stderr)
    return out


def seconds(vg, options, argv, repeat):
    times = []
    with tempfile.TemporaryDirectory(prefix="memgrow-bench-mark-at-") as tmp:
        for _ in range(repeat):
            t = time.monotonic()
            p = subprocess.run([vg, "--tool=memgrow", "--json-stable-min-bytes=65536",
                                "--json-file=" + os.path.join(tmp, "r.%p.json"), *options, *argv],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            times.append(time.monotonic() - t)
            if p.returncode != 0:
                sys.exit(f"FAILED: {argv} {options}\n{p.stderr[-2000:]}")
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--no-torch", action="store_true", help="skip the PyTorch loop")
    args = ap.parse_args()
    vg = os.path.join(args.build, "vg-in-place")
    print(f"{'workload':44} {'no marks s':>11} {'--mark-at s':>12} {'ratio':>7}")
    for name, exe in interpreters().items():
        argv = [exe, SERVICE, str(args.requests)]
        base = seconds(vg, [], argv, args.repeat)
        marked = seconds(vg, ["--mark-at=__main__:handle"], argv, args.repeat)
        print(f"{'service, ' + name:44} {base:11.2f} {marked:12.2f} {marked / base:7.2f}")
    if not args.no_torch:
        argv = ["/usr/bin/python3", TORCH, "item", str(args.steps)]
        base = seconds(vg, [], argv, args.repeat)
        marked = seconds(vg, ["--mark-at=torch"], argv, args.repeat)
        print(f"{'PyTorch loop, ' + str(args.steps) + ' steps (Debian 3.11)':44} "
              f"{base:11.2f} {marked:12.2f} {marked / base:7.2f}")


if __name__ == "__main__":
    main()
