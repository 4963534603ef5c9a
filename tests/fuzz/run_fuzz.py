#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs the libFuzzer target of the report loader (tests/fuzz/fuzz_report_load)
for a bounded time and fails on any finding.

The corpus (in the build tree, tests/fuzz/corpus) is seeded with the reports
the tool wrote during this `make check` (tests/unit/reports/**/*.json), and with
truncated and mutated copies of them. MG_FUZZ_SECONDS sets the time (default
60, the least the tests run it); docs/memgrow-report.md, "Fuzzing", says how
to run it longer by hand.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

BUILD = os.environ.get("MG_BUILD_DIR", os.getcwd())
SRC = os.environ.get("MG_SRC_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FUZZER = os.path.join(BUILD, "tests", "fuzz", "fuzz_report_load")
DICT = os.path.join(SRC, "tests", "fuzz", "report.dict")
CORPUS = os.path.join(BUILD, "tests", "fuzz", "corpus")
ARTIFACTS = os.path.join(BUILD, "tests", "fuzz", "artifacts")
REPORTS = os.path.join(BUILD, "tests", "unit", "reports")
SECONDS = int(os.environ.get("MG_FUZZ_SECONDS", "60"))


def fail(message):
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def mutations(report):
    """Copies of a loaded report, each wrong in one way the loader must name."""
    def edited(change):
        r = json.loads(json.dumps(report))
        change(r)
        return r

    def first_site(r):
        return r["sites"][0] if r.get("sites") else {}

    if report.get("memgrow") == 2:
        yield from mutations_v2(report, edited)
        return
    yield edited(lambda r: r.update(memgrow=3))
    yield edited(lambda r: r.update(memgrow="1"))
    yield edited(lambda r: r.pop("sites"))
    yield edited(lambda r: r.update(pid=2**64 - 1))
    yield edited(lambda r: r.update(teardown_at=-(2**63)))
    yield edited(lambda r: r.update(buckets=[{"end": 1.5}]))
    yield edited(lambda r: first_site(r).update({"class": "leaky"}))
    yield edited(lambda r: first_site(r).update(series=[2**63 - 1, -(2**63), 0]))
    yield edited(lambda r: first_site(r).update(series=[]))
    yield edited(lambda r: first_site(r).update(frames=[]))
    yield edited(lambda r: first_site(r).update(
        frames=[{"function": None, "file": None, "line": None, "object": None}]))
    yield edited(lambda r: first_site(r).update(growth={"rate": 1e308, "confidence": -1e308}))
    yield edited(lambda r: first_site(r).update(live_bytes=2**63 - 1, peak_bytes=-1))
    yield edited(lambda r: first_site(r).update(space="\u00e9\u0000\U0001f600"))
    yield edited(lambda r: r.update(sites=r["sites"] * 3))


def mutations_v2(report, edited):
    """Format 2's own ways to be wrong: its tables and rows."""
    def row(r):
        return r["sites"][0] if r.get("sites") else [0] * 13

    yield edited(lambda r: r.update(memgrow=1))
    yield edited(lambda r: r.update(memgrow=3))
    yield edited(lambda r: r.pop("stacks"))
    yield edited(lambda r: r.pop("frames"))
    yield edited(lambda r: r.update(stacks=r["stacks"][:-1]))
    yield edited(lambda r: r.update(stacks=[0, 0] + r["stacks"]))  # its own caller
    yield edited(lambda r: r.update(stacks=[2**31, -1] + r["stacks"][2:]))
    yield edited(lambda r: r.update(frames=[[None] * 5, "x", 1]))
    yield edited(lambda r: r.update(sites=[r["sites"][0][:5]] if r["sites"] else [[]]))
    yield edited(lambda r: row(r).__setitem__(1, 2**32))
    yield edited(lambda r: row(r).__setitem__(1, -1))
    yield edited(lambda r: row(r).__setitem__(10, [0, 2**63 - 1, 1, -(2**63)]))
    yield edited(lambda r: row(r).__setitem__(10, [3, 1, 2, 1]))
    yield edited(lambda r: row(r).__setitem__(11, [0]))
    yield edited(lambda r: row(r).__setitem__(12, {"growth": {"rate": "x"}, "space": 5}))
    yield edited(lambda r: row(r).__setitem__(3, 2**63 - 1))
    yield edited(lambda r: r.update(sites=r["sites"] * 3))
    yield edited(lambda r: r.update(python_sites=r["sites"][:2]))
    # Revision 2's encoding: callers as distances back, id gaps, class
    # codes, "leak" arrays, sub-site steps; and the revision itself.
    yield edited(lambda r: r.update(revision=3))
    yield edited(lambda r: r.pop("revision", None))
    yield edited(lambda r: r.update(revision=r.pop("revision", 2)))  # after the rows
    yield edited(lambda r: r.update(stacks=[0, 1] + r["stacks"]))  # before the first node
    yield edited(lambda r: r.update(stacks=r["stacks"][:3] + [-1] + r["stacks"][4:]))
    yield edited(lambda r: r.update(stacks=r["stacks"][:3] + [2**63 - 1] + r["stacks"][4:]))
    yield edited(lambda r: row(r).__setitem__(0, -1))
    yield edited(lambda r: r.update(sites=[[2**63 - 1] + row(r)[1:], row(r)]))
    yield edited(lambda r: row(r).__setitem__(2, 4))
    yield edited(lambda r: row(r).__setitem__(2, "stable"))
    yield edited(lambda r: row(r).__setitem__(12, {"leak": [1, 2]}))
    yield edited(lambda r: row(r).__setitem__(12, {"leak": [2**63 - 1] * 8}))
    yield edited(lambda r: r.update(
        python_sites=[row(r)[:12] + [{"sites": [2**63 - 1, 2**63 - 1], "leak": [1, 2, 3]}]]))


def seed():
    reports = sorted(glob.glob(os.path.join(REPORTS, "**", "*.json"), recursive=True))
    if not reports:
        fail(f"no reports in {REPORTS} to seed the corpus (make check writes them: check_DATA)")
    shutil.rmtree(CORPUS, ignore_errors=True)
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    os.makedirs(CORPUS)
    os.makedirs(ARTIFACTS)
    n = 0

    def put(data):
        nonlocal n
        with open(os.path.join(CORPUS, f"seed-{n:04d}.json"), "wb") as f:
            f.write(data)
        n += 1

    # Format 2's first encoding, as the tool wrote it before revision 2.
    reports.append(os.path.join(SRC, "tests", "unit", "data", "report-format2-revision1.json"))
    for path in reports:
        with open(path, "rb") as f:
            data = f.read()
        put(data)
        for frac in (0.1, 0.25, 0.5, 0.75, 0.9, 0.99):  # truncated reports
            put(data[: int(len(data) * frac)])
        put(data[:-1])
        report = json.loads(data)
        put(json.dumps(report, indent=1).encode())
        for m in mutations(report):
            put(json.dumps(m).encode())
    return n


def printable(data):
    text = data[:4096].decode("utf-8", "backslashreplace")
    return text + ("..." if len(data) > 4096 else "")


def main():
    if not os.path.exists(FUZZER):
        fail("tests/fuzz/fuzz_report_load was not built: configure found no clang++ that "
             "links -fsanitize=fuzzer,address,undefined (install clang and "
             "libclang-rt-14-dev, e.g. with scripts/install-deps.sh, then run configure "
             "again; see config.log)")
    seeds = seed()
    cmd = [FUZZER, f"-max_total_time={SECONDS}", "-timeout=10", "-rss_limit_mb=2048",
           "-max_len=1000000", f"-dict={DICT}", f"-artifact_prefix={ARTIFACTS}/",
           "-print_final_stats=1", CORPUS]
    print(f"{seeds} seeds; running {' '.join(cmd)}", flush=True)
    env = dict(os.environ)
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    run = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    log = run.stdout.decode("utf-8", "backslashreplace")
    # The progress lines are many: keep the start, the end and any report.
    lines = log.splitlines()
    print("\n".join(lines if len(lines) <= 80 else lines[:20] + ["..."] + lines[-60:]))
    found = sorted(glob.glob(os.path.join(ARTIFACTS, "*")))
    for path in found:
        with open(path, "rb") as f:
            data = f.read()
        print(f"--- artifact {path} ({len(data)} bytes); reproduce: {FUZZER} {path}")
        print(printable(data))
    if run.returncode != 0 or found:
        fail(f"the fuzzer found a problem (exit {run.returncode}, {len(found)} artifacts)")
    print(f"PASS: {SECONDS} s of fuzzing, no finding")


if __name__ == "__main__":
    main()
