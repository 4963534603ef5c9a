#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs memcheck's own addressability regression programs under memcheck
and memgrow and compares their headlines (docs/addressability.md).

    scripts/compare-memcheck-programs.py VALGRIND_SOURCE [--build DIR]

VALGRIND_SOURCE is a Valgrind source tree (read, never copied into this
repository; valgrind.h comes from the installed headers): each program's memcheck/tests/NAME.vgtest gives its options,
NAME.c is compiled as the suite compiles it (-g -O0). A headline is an
error's first line with the address line under it ("Invalid read of size 4"
+ "Address 0x... is 4 bytes after a block of size 10 alloc'd", the address
left out); the two tools' lists are printed side by side, with the count of
each. Exit status 1 when they differ.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = ["badrw", "malloc1", "fprw", "describe-block", "badaddrvalue", "partial_load_dflt",
            "partial_load_ok", "big_blocks_freed_list"]
# memcheck's options memgrow has no use for (definedness, output markers).
MEMCHECK_ONLY = ("--keep-stacktraces", "--error-markers", "--undef-value-errors",
                 "--track-origins")
HEAD = re.compile(r"^==\d+== ((?:Invalid|Mismatched|Syscall param|Unaddressable)[^\n]*)$", re.M)
ADDR = re.compile(r"^==\d+==  Address 0x[0-9a-fA-F]+ (.*)$")


def vgtest(src, name):
    fields = {}
    with open(os.path.join(src, "memcheck", "tests", name + ".vgtest")) as f:
        for line in f:
            if ":" in line:
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    return fields


def headlines(log):
    """Each error's headline with its address description."""
    lines = log.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = HEAD.match(line)
        if not m:
            continue
        desc = ""
        for nxt in lines[i + 1:i + 40]:
            a = ADDR.match(nxt)
            if a:
                desc = a.group(1)
                break
            if HEAD.match(nxt):
                break
        out.append((m.group(1) + (" / " + desc if desc else "")).strip())
    return out


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", timeout=600)
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", help="a Valgrind source tree")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    valgrind = shutil.which("valgrind")
    memgrow = os.path.join(args.build, "vg-in-place")
    if not valgrind or not os.access(memgrow, os.X_OK):
        sys.exit("needs valgrind on PATH and %s" % memgrow)
    tests = os.path.join(args.source, "memcheck", "tests")
    differ = False
    with tempfile.TemporaryDirectory(prefix="memgrow-mctests-") as tmp:
        for name in PROGRAMS:
            spec = vgtest(args.source, name)
            prog = spec["prog"]
            exe = os.path.join(tmp, prog)
            if not os.path.exists(exe):
                subprocess.check_call(["cc", "-g", "-O0", "-w", "-I", os.path.join(args.source, "include"),
                                       "-I", tests, "-I", args.source,
                                       # valgrind.h: a source tree has only valgrind.h.in
                                       "-I", "/usr/include/valgrind", "-o", exe,
                                       os.path.join(tests, prog + ".c")])
            opts = [o for o in spec.get("vgopts", "").split() if o != "-q"]
            argv = [exe] + spec.get("args", "").split()
            mc = headlines(run([valgrind, "--tool=memcheck"] + opts + argv, tmp))
            mine = [o for o in opts if not o.startswith(MEMCHECK_ONLY)]
            mg = headlines(run([memgrow, "--tool=memgrow", "--leak-check=no"] + mine + argv, tmp))
            same = collections.Counter(mc) == collections.Counter(mg)
            differ |= not same
            print("== %s (%s): memcheck %d, memgrow %d errors: %s" % (
                name, " ".join(opts) or "no options", len(mc), len(mg),
                "the same headlines" if same else "DIFFERENT"))
            for line in sorted(set(mc) | set(mg)):
                print("   memcheck %d  memgrow %d  %s" % (mc.count(line), mg.count(line), line))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
