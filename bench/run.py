#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark memgrow against native runs and its peers.

    python3 bench/run.py [--quick] [--build DIR] [--repeat N]
                         [--only c|python|fork|startup|length|scan] [--length]
                         [--python EXE|3.15] [--keep]

Runs each workload (bench/malloc_heavy.c, bench/python_loop.py) natively and
under Valgrind's none, memcheck, massif, dhat, memgrow and under heaptrack,
measures wall time and peak RSS, prints one table per workload, the targets
check, the run-length check (memgrow's peak RSS on N and 10xN iterations
of a workload whose live set does not depend on N), and the leak scan's cost
on a 1 GiB heap (bench/leak_heap.c under memgrow and memcheck, each with
--leak-check=full and --leak-check=no). See bench/README.md.

Standard library only. Exits non-zero only when a run fails (non-zero exit
status or a signal), never because of a timing.
"""

import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Workload sizes: (full, quick). Full sizes give about 0.15 s native for C and
# about 0.5 s native for Python on the 2-core machine where README's results
# were taken.
C_ITERS = (1500000, 200000)
PY_ITERS = (200000, 20000)
LENGTH_ITERS = (300000, 50000)  # N; the long run is 10 x N
# Leak scan: blocks of SCAN_BLOCK_SIZE bytes, (full, quick): 1 GiB and 128 MiB.
SCAN_BLOCKS = (1048576, 131072)
SCAN_BLOCK_SIZE = 1024


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


class Failure(Exception):
    pass


class Runner:
    def __init__(self, tmp, helper, retries=1):
        self.tmp = tmp
        self.helper = helper  # the compiled rusage_run.c
        self.retries = retries
        self.counter = 0
        self.failures = []

    def once(self, argv, env):
        """Runs argv once; returns (seconds, peak RSS KiB, exit status, CPU
        seconds, log).

        The command runs under rusage_run (see rusage_run.c): forked from
        Python, its peak RSS would include the interpreter's. The exit status
        is negative for a signal."""
        self.counter += 1
        out_path = os.path.join(self.tmp, "run%04d.log" % self.counter)
        res_path = os.path.join(self.tmp, "run%04d.res" % self.counter)
        with open(out_path, "wb") as out:
            rc = subprocess.call([self.helper, res_path] + argv, stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=subprocess.STDOUT, env=env, cwd=self.tmp)
        if rc != 0:
            raise Failure("rusage_run failed (exit status %d) on: %s\n%s" % (
                rc, " ".join(argv), read_tail(out_path)))
        with open(res_path) as f:
            secs, kib, status, cpu = f.read().split()
        return float(secs), int(kib), int(status), float(cpu), out_path

    def run_one(self, name, argv, env, label):
        """One run that must succeed: (seconds, peak RSS KiB, CPU seconds,
        log). A failed run is retried once (announced); a second failure is
        recorded and raised."""
        attempt = 0
        while True:
            try:
                secs, kib, rc, cpu, out_path = self.once(argv, env)
            except Failure as e:
                self.failures.append("%s: %s" % (name, e))
                raise
            if rc == 0:
                log("  %-30s %s: %7.2f s  %7.2f s CPU  %7.1f MiB" % (
                    name, label, secs, cpu, kib / 1024.0))
                return secs, kib, cpu, out_path
            what = "exit status %d" % rc if rc > 0 else "killed by signal %d" % -rc
            if attempt < self.retries:
                # The tool may have been rebuilt under us.
                attempt += 1
                log("  %s: %s, retrying once (log %s)" % (name, what, out_path))
                continue
            msg = "%s failed: %s\n  command: %s\n  last lines of its output:\n%s" % (
                name, what, " ".join(argv), read_tail(out_path))
            self.failures.append(msg)
            raise Failure(msg)

    def measure(self, name, argv, env, repeat):
        """`repeat` runs of one command in a row: see summary()."""
        runs = [self.run_one(name, argv, env, "run %d/%d" % (i + 1, repeat))
                for i in range(repeat)]
        return summary(name, argv, runs)


def summary(name, argv, runs):
    """Best (lowest) and median wall and CPU time, median peak RSS of runs
    [(seconds, KiB, CPU seconds, log)]. Other load on the machine (a build
    on a 2-core box) only ever adds time, so the minimum is the steadiest;
    the median is what the issues' targets name."""
    times, rss, cpu = [r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs]
    return {"name": name, "secs": min(times), "median": statistics.median(times),
            "cpu": min(cpu), "cpu_median": statistics.median(cpu),
            "rss_kib": statistics.median(rss), "argv": argv, "log": runs[-1][3]}


def read_tail(path, lines=25):
    try:
        with open(path, "rb") as f:
            data = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return "\n".join("    | " + l for l in data[-lines:])


def probe(argv, env=None):
    """(True, "") when argv runs and exits 0, else (False, its output's tail);
    used to detect installed tools."""
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=env, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)
    if r.returncode == 0:
        return True, ""
    lines = r.stdout.decode("utf-8", "replace").splitlines()
    return False, "\n".join("    | " + l for l in lines[-10:])


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def interpreters():
    """The CPythons the regression tests run, by name ("running", "debian",
    "3.12" to "3.15"): tests/regress/mgtest.py finds them (Debian's 3.13 to
    3.15 unpacked by scripts/fetch-python.sh, each starting through its own
    glibc's ld.so)."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "regress"))
    try:
        import mgtest
    finally:
        sys.path.pop(0)
    return mgtest, mgtest.python_executables()


def find_python(explicit):
    if explicit and os.path.sep not in explicit:
        mgtest, known = interpreters()
        if explicit in known:
            explicit = known[explicit]
    exe = os.path.realpath(explicit or sys.executable)
    if not is_elf(exe):
        # A pyenv shim or wrapper script: Valgrind would measure its shell.
        try:
            exe = os.path.realpath(subprocess.check_output(
                [exe, "-c", "import sys; print(sys.executable)"], text=True).strip())
        except (OSError, subprocess.CalledProcessError):
            pass
    if not is_elf(exe):
        log("warning: %s is not an ELF executable; Valgrind will measure the wrapper" % exe)
    return exe


def readelf(args, path):
    try:
        return subprocess.run(["readelf"] + args + [path], capture_output=True, text=True,
                              errors="replace", timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def build_id(path):
    m = re.search(r"Build ID: ([0-9a-f]+)", readelf(["-n"], path))
    return m.group(1) if m else None


def debug_link(path):
    m = re.search(r"\]\s+(\S+\.debug)", readelf(["--string-dump=.gnu_debuglink"], path))
    return m.group(1) if m else None


def glibc_debuginfo(python, tmp):
    """Valgrind options that give the tools the symbols of the glibc an
    interpreter brings along (Debian sid's, for the 3.13 to 3.15 of
    scripts/fetch-python.sh), or [] when it runs on the machine's own.
    Memcheck stops at start-up without the symbols of that ld.so (it must
    redirect its strlen), and sid's is stripped: fetch-python.sh unpacks
    sid's libc6-dbg beside the interpreters. Valgrind 3.19 looks for debug
    files by build ID only under /usr/lib/debug; elsewhere it follows the
    .gnu_debuglink name under --extra-debuginfo-path + the object's folder,
    so that tree is made of links in tmp. Every Valgrind configuration gets
    it: each then reads the same debug info."""
    m = re.search(r"Requesting program interpreter: ([^\]]+)\]", readelf(["-lW"], python))
    if not m:
        return []
    interp = os.path.realpath(m.group(1))
    libdir = os.path.dirname(interp)
    if libdir in ("/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/lib64"):
        return []
    mgtest, _ = interpreters()
    debug = (os.environ.get("MEMGROW_GLIBC_DEBUG")
             or mgtest._cache("glibc-dbg-sid", "usr", "lib", "debug"))
    mirror = os.path.join(tmp, "debuginfo")
    found = set()
    for path in sorted(glob.glob(os.path.join(libdir, "*.so*"))):
        path = os.path.realpath(path)
        bid, link = build_id(path), debug_link(path)
        target = bid and os.path.join(debug, ".build-id", bid[:2], bid[2:] + ".debug")
        if not link or not target or not os.path.exists(target):
            continue
        where = mirror + os.path.dirname(path)
        os.makedirs(where, exist_ok=True)
        if not os.path.lexists(os.path.join(where, link)):
            os.symlink(target, os.path.join(where, link))
        found.add(path)
    if interp not in found:
        log("warning: no debug info for %s (in %s): memcheck cannot start on %s; "
            "scripts/fetch-python.sh unpacks it" % (interp, debug, python))
        return []
    return ["--extra-debuginfo-path=" + mirror]


class Tools:
    """Which configurations can run here, and how to run them."""

    def __init__(self, build, tmp, before=None):
        self.tmp = tmp
        self.vg_options = []  # given to every Valgrind tool (glibc_debuginfo)
        self.valgrind = shutil.which("valgrind")
        self.in_place = os.path.join(build, "vg-in-place")
        if not os.access(self.in_place, os.X_OK):
            self.in_place = None
        true_bin = shutil.which("true") or "/bin/true"
        self.missing = {}  # config -> reason
        self.skip = set()  # configurations left out (--skip)
        peers = ["none", "memcheck", "massif", "dhat"]
        if not self.valgrind:
            for t in peers:
                self.missing[t] = "valgrind not installed (not on PATH)"
        else:
            for t in peers:
                extra = []
                if t == "massif":
                    extra = ["--massif-out-file=" + os.path.join(tmp, "probe.massif")]
                elif t == "dhat":
                    extra = ["--dhat-out-file=" + os.path.join(tmp, "probe.dhat")]
                if not probe([self.valgrind, "--tool=" + t, "-q"] + extra + [true_bin])[0]:
                    self.missing[t] = "valgrind --tool=%s not installed (probe failed)" % t
        # memgrow: the build's vg-in-place first, else an installed one. A
        # build whose tool does not start is a failure, not a missing tool;
        # it is probed a few times since the build may be being redone.
        self.memgrow_vg = None
        self.memgrow_broken = None
        mg_probe = ["--tool=memgrow", "-q", "--json-file=" + os.path.join(tmp, "probe.json"), true_bin]
        if self.in_place:
            for attempt in range(3):
                ok, out = probe([self.in_place] + mg_probe)
                if ok:
                    self.memgrow_vg = self.in_place
                    self.memgrow_where = "build " + build
                    break
                log("memgrow in %s does not start (try %d of 3)%s" % (
                    build, attempt + 1, ", retrying in 10 s" if attempt < 2 else ""))
                if attempt < 2:
                    time.sleep(10)
            else:
                self.memgrow_broken = "%s/vg-in-place --tool=memgrow does not start:\n%s" % (build, out)
        if not self.memgrow_vg and self.valgrind and probe([self.valgrind] + mg_probe)[0]:
            self.memgrow_vg = self.valgrind
            self.memgrow_where = "installed valgrind (the build's does not start)" if self.in_place else "installed valgrind"
        if not self.memgrow_vg:
            if self.memgrow_broken:
                self.missing["memgrow"] = "memgrow does not start (see FAILED RUNS below)"
            else:
                self.missing["memgrow"] = ("memgrow not installed (no %s/vg-in-place, and "
                                           "`valgrind --tool=memgrow` fails)" % build)
        # --before DIR: a second memgrow build, its rows beside this one's.
        self.before_vg = os.path.join(before, "vg-in-place") if before else None
        if not before:
            self.missing["before"] = "no --before build given"
        elif not probe([self.before_vg] + mg_probe)[0]:
            self.missing["before"] = "%s --tool=memgrow does not start" % self.before_vg
        self.heaptrack = shutil.which("heaptrack")
        if not self.heaptrack:
            self.missing["heaptrack"] = "heaptrack not installed (not on PATH)"

    def wrap(self, config, tag, argv):
        """argv run under `config`; tag names the tool's output file."""
        out = os.path.join(self.tmp, tag)
        if config == "native":
            return argv
        vg = self.vg_options
        if config == "none":
            return [self.valgrind, "--tool=none"] + vg + argv
        if config.split()[0] == "memcheck":  # "memcheck --option ...": with options
            return [self.valgrind, "--tool=memcheck"] + vg + config.split()[1:] + argv
        if config == "massif":
            return ([self.valgrind, "--tool=massif", "--massif-out-file=" + out + ".massif"]
                    + vg + argv)
        if config == "dhat":
            return ([self.valgrind, "--tool=dhat", "--dhat-out-file=" + out + ".dhat"]
                    + vg + argv)
        if config.split()[0] == "memgrow":  # "memgrow --option ...": memgrow with options
            return ([self.memgrow_vg, "--tool=memgrow", "--json-file=" + out + ".json"]
                    + vg + config.split()[1:] + argv)
        if config.split()[0] == "before":  # "before memgrow ...": the --before build
            return ([self.before_vg, "--tool=memgrow", "--json-file=" + out + ".json"]
                    + vg + config.split()[2:] + argv)
        if config == "heaptrack":
            return [self.heaptrack, "-o", out + ".heaptrack"] + argv
        if config.split()[0] == "memray":  # argv: the interpreter and its arguments
            return ([argv[0], "-m", "memray", "run"] + config.split()[1:]
                    + ["-q", "-f", "-o", out + ".memray"] + argv[1:])
        raise ValueError(config)

    def find_memray(self, python):
        """memray for this interpreter: Debian sid's python3-memray, built
        for sid's CPython 3.14, unpacked by scripts/fetch-memray.sh
        (MEMGROW_MEMRAY names another such folder). Sets self.memray_env
        (PYTHONPATH and LD_LIBRARY_PATH to add) or a reason it is missing."""
        root = os.environ.get("MEMGROW_MEMRAY") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "memgrow", "memray-sid")
        self.memray_env = {"PYTHONPATH": os.path.join(root, "usr", "lib", "python3", "dist-packages"),
                           "LD_LIBRARY_PATH": os.path.join(root, "usr", "lib", "x86_64-linux-gnu")}
        if not os.path.isdir(self.memray_env["PYTHONPATH"]):
            self.missing["memray"] = "memray not unpacked in %s (scripts/fetch-memray.sh)" % root
            return
        ok, out = probe([python, "-c", "import memray"], self.with_memray(base_env()))
        if not ok:
            self.missing["memray"] = ("memray in %s does not load on %s (Debian's is built for "
                                      "sid's CPython 3.14: --python 3.14)" % (root, python))

    def with_memray(self, env):
        return dict(env, **self.memray_env)


# The growth hunt: memgrow without the addressability checks.
HUNT = "memgrow --addressability=no"
CONFIGS = ["native", "none", "memcheck", "memcheck --undef-value-errors=no", "massif", "dhat",
           "memgrow", HUNT, "heaptrack", "memray"]


def base_env():
    env = dict(os.environ)
    env.pop("PYTHONMALLOC", None)
    env.pop("LD_PRELOAD", None)
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def with_before(tools, rows_spec):
    """Each memgrow row followed by the same row of the --before build, if
    one was given."""
    if not tools.before_vg:
        return rows_spec
    out = []
    for label, config, group, argv, env in rows_spec:
        out.append((label, config, group, argv, env))
        if config.split()[0] == "memgrow":
            out.append(("before " + label, "before " + config, group, argv, env))
    return out


def run_workload(runner, tools, title, rows_spec, repeat):
    """rows_spec: list of (label, config, group, argv, env). `group` names the
    baseline family: ×native and ×none compare with the native and none rows
    of the same group (e.g. the same PYTHONMALLOC). The rows run in
    interleaved rounds (each round runs every row once), so that a change in
    the machine's load falls on every row alike."""
    results, live = [], []
    log("== %s" % title)
    for label, config, group, argv, env in rows_spec:
        tool = config.split()[0]
        row = {"label": label, "config": config, "group": group}
        results.append(row)
        mine = config[len("before "):] if tool == "before" else config
        if mine in tools.skip or tool in tools.skip:
            row["skipped"] = "left out (--skip)"
            continue
        if tool in tools.missing:
            row["skipped"] = tools.missing[tool]
            log("  %-30s skipped: %s" % (label, tools.missing[tool]))
            continue
        tag = "%s-%s" % (title.split()[0].lower(), label.replace(" ", "_").replace("=", "-"))
        row.update(tag=tag, runs=[])
        live.append((row, tools.wrap(config, tag, argv), env))
    for i in range(repeat):
        for row, argv, env in live:
            if row.get("failed"):
                continue
            try:
                row["runs"].append(runner.run_one(row["label"], argv, env,
                                                  "round %d/%d" % (i + 1, repeat)))
            except Failure:
                row["failed"] = True
    for row, argv, env in live:
        runs = row.pop("runs")
        if not row.get("failed"):
            row.update(summary(row["label"], argv, runs))
    return results


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def print_unmeasured(r):
    """Prints a table row for a skipped or failed run; True if it was one."""
    if "skipped" in r:
        print("%-30s %s" % (r["label"], "skipped: " + r["skipped"]))
        return True
    if r.get("failed"):
        print("%-30s %s" % (r["label"], "FAILED (see the error below)"))
        return True
    return False


def print_table(title, results, repeat):
    def find(config, group):
        for r in results:
            if r["config"] == config and r.get("secs") is not None and (group is None or r["group"] == group):
                return r
        return None

    memcheck = find("memcheck", None)
    print()
    print("%s  (medians of %d interleaved round%s: wall time, CPU time = user + system, peak RSS)" % (
        title, repeat, "" if repeat == 1 else "s"))
    head = "%-34s %8s %8s %8s %8s %10s %14s %12s" % (
        "config", "seconds", "CPU s", "xnative", "xnone", "xmemcheck", "peak RSS MiB", "RSS xnative")
    print(head)
    print("-" * len(head))
    for r in results:
        if print_unmeasured(r):
            continue
        nat = find("native", r["group"])
        non = find("none", r["group"])
        print("%-34s %8.2f %8.2f %8s %8s %10s %14.1f %12s" % (
            r["label"], r["median"], r["cpu_median"],
            fmt(ratio(r["median"], nat and nat["median"]), ".1f"),
            fmt(ratio(r["median"], non and non["median"]), ".2f"),
            fmt(ratio(r["median"], memcheck and memcheck["median"]), ".2f"),
            r["rss_kib"] / 1024.0,
            fmt(ratio(r["rss_kib"], nat and nat["rss_kib"]), ".1f")))


# The speed targets, as (memgrow configuration, peer, limit or None for a
# ratio shown without one), issue 36: the default run (the checks on)
# against memcheck, the growth hunt (--addressability=no) against massif,
# memray --native (Python: the peer that records what memgrow records,
# Python and native frames) and none (Valgrind's floor).
# memcheck --undef-value-errors=no is the fair peer for the checks alone.
TARGETS = {
    "C": [("memgrow", "memcheck", 0.40), ("memgrow", "memcheck --undef-value-errors=no", None),
          (HUNT, "massif", 0.55), (HUNT, "none", None)],
    "Python": [("memgrow", "memcheck", 0.40),
               ("memgrow", "memcheck --undef-value-errors=no", None),
               (HUNT, "memray --native", 1.0), (HUNT, "none", 1.4), (HUNT, "massif", None),
               (HUNT, "memray", None), (HUNT, HUNT + " --python-free-lists=no", 1.05)],
    "Start-up": [(HUNT, "massif", 1.05), (HUNT, "none", None), ("memgrow", "memcheck", None)],
    # Issue 35: a forked child's page checks cost at most 15%.
    "Fork": [(HUNT, HUNT + " --fork-pages=no", 1.15), ("memgrow", "memgrow --fork-pages=no", 1.15)],
    "NoFork": [(HUNT, HUNT + " --fork-pages=no", None)],
}


def targets(title, results, label=None):
    """memgrow's time over its peers': the ratio of the CPU-time medians
    (the target's verdict: on a machine shared with other work the wall time
    moves by a factor of 2 between rounds, the CPU time by a tenth), with
    the wall medians' and the best runs' wall ratios beside it."""
    by = {r["config"]: r for r in results if r.get("secs") is not None}
    targets_of, title = title, label or title
    lines = []
    pairs = [(mine, peer, limit) for mine, peer, limit in TARGETS[targets_of]]
    pairs += [("before " + mine, ("before " + peer) if peer.startswith("memgrow") else peer, limit)
              for mine, peer, limit in TARGETS[targets_of] if "before " + mine in by]
    for mine, peer, limit in pairs:
        m, p = by.get(mine), by.get(peer)
        name = "%s / %s" % (mine, peer)
        if m is None or p is None:
            lines.append("  %-8s %-50s n/a (a run is missing)" % (title, name))
            continue
        median, cpu, best = m["median"] / p["median"], m["cpu_median"] / p["cpu_median"], m["secs"] / p["secs"]
        verdict = "no target" if limit is None else "target <= %.2f: %s" % (
            limit, "met" if cpu <= limit else "MISSED")
        lines.append("  %-8s %-50s = %5.2f CPU (wall %5.2f, best %5.2f)  (%.2f s / %.2f s CPU; %s)" % (
            title, name, cpu, median, best, m["cpu_median"], p["cpu_median"], verdict))
    return lines


def site_v1(d, row):
    """The class and frames of a format-2 site row (docs/output-format.md):
    what this script reads of a site."""
    frames, node, stacks = [], row[1], d.get("stacks", [])
    relative = d.get("revision", 1) >= 2  # callers as distances back, class codes
    while node is not None and node >= 0:
        f = d["frames"][stacks[2 * node]]
        frames.append({"function": f[0], "file": f[1], "line": f[2]})
        back = stacks[2 * node + 1]
        node = (node - back if back else -1) if relative else back
    cls = ("stable", "plateau", "growing", "leaked")[row[2]] if relative else row[2]
    return {"class": cls, "frames": frames}


def memgrow_report(tmp, tag):
    """Summary of a memgrow JSON report: bucket count, sites per class."""
    path = os.path.join(tmp, tag + ".json")
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        return None, "cannot read memgrow report %s: %s" % (path, e)
    if d.get("memgrow") == 2:
        d = dict(d, sites=[site_v1(d, row) for row in d.get("sites", [])])
    classes = {}
    for s in d.get("sites", []):
        classes[s.get("class")] = classes.get(s.get("class"), 0) + 1
    info = {"buckets": len(d.get("buckets", [])), "sites": len(d.get("sites", [])),
            "classes": classes, "bytes": os.path.getsize(path), "raw": d}
    return info, None


def report_line(tmp, title, results, growing_fn):
    """What memgrow's JSON report of this workload says, in one line; with
    growing_fn, also the class of the site allocating in that function."""
    mg = next((r for r in results if r["config"] == "memgrow" and r.get("tag")), None)
    if not mg:
        return []
    info, err = memgrow_report(tmp, mg["tag"])
    if err:
        return ["  %-8s memgrow report: %s" % (title, err)]
    line = "  %-8s memgrow report: %d sites %s, %d buckets" % (
        title, info["sites"], ", ".join("%d %s" % (v, k) for k, v in sorted(info["classes"].items())),
        info["buckets"])
    if growing_fn:
        cls = [s.get("class") for s in info["raw"].get("sites", [])
               if any(f.get("function") == growing_fn for f in s.get("frames", []))]
        line += "; the %s site is %s" % (growing_fn, "/".join(cls) if cls else "not reported")
    return [line]


LEAK_KINDS = ("definite", "indirect", "possible", "reachable")
MEMCHECK_KINDS = {"definitely lost": "definite", "indirectly lost": "indirect",
                  "possibly lost": "possible", "still reachable": "reachable"}


def memcheck_leak_summary(path):
    """memcheck's LEAK SUMMARY in a run's log: {kind: (bytes, blocks)}, or
    (None, why)."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError as e:
        return None, "cannot read %s: %s" % (path, e)
    if "All heap blocks were freed -- no leaks are possible" in text:
        return {k: (0, 0) for k in LEAK_KINDS}, None
    tail = text[text.rfind("LEAK SUMMARY:"):] if "LEAK SUMMARY:" in text else ""
    found = {}
    for m in re.finditer(r"(definitely lost|indirectly lost|possibly lost|still reachable):"
                         r"\s+([\d,]+) bytes in ([\d,]+) blocks", tail):
        found[MEMCHECK_KINDS[m.group(1)]] = (int(m.group(2).replace(",", "")),
                                             int(m.group(3).replace(",", "")))
    if set(found) != set(LEAK_KINDS):
        return None, "no complete LEAK SUMMARY in memcheck's output (%s)" % path
    return found, None


def memgrow_leak_check(tmp, tag, log_path):
    """The `leak_check` object of memgrow's JSON report of the last run with
    this tag: (leak_check, None) or (None, why). The report name has %p (a run
    never finds an older run's file); the run's log names the file."""
    path = None
    try:
        with open(log_path, "rb") as f:
            for line in f.read().decode("utf-8", "replace").splitlines():
                m = re.search(r"memgrow: JSON report written to (\S+)", line)
                if m:
                    path = m.group(1)
    except OSError:
        pass
    if not path:
        found = sorted(glob.glob(os.path.join(tmp, tag + ".*.json")), key=os.path.getmtime)
        path = found[-1] if found else os.path.join(tmp, tag + ".*.json")
    try:
        with open(path) as f:
            lc = json.load(f).get("leak_check")
    except (OSError, ValueError) as e:
        return None, "cannot read memgrow report %s: %s" % (path, e)
    if not isinstance(lc, dict):
        return None, "memgrow report %s has no leak_check" % path
    return lc, None


def leak_heap_expected(log_path):
    """The totals leak_heap announced ("leak_heap: expect ..."), or None."""
    try:
        with open(log_path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    m = re.search(r"expect definite (\d+) bytes in (\d+) blocks, indirect (\d+) bytes in (\d+) blocks", text)
    if not m:
        return None
    return {"definite": (int(m.group(1)), int(m.group(2))),
            "indirect": (int(m.group(3)), int(m.group(4)))}


def run_scan(runner, tools, exe, n, env, repeat):
    """leak_heap under memgrow and memcheck, each with --leak-check=full and
    --leak-check=no (plus native, for reference). Returns the rows."""
    argv = [exe, str(n), str(SCAN_BLOCK_SIZE)]
    rows = []
    log("== leak scan: leak_heap %d x %d bytes" % (n, SCAN_BLOCK_SIZE))
    spec = [("native", "native", None)]
    for tool in ("memgrow", "memcheck"):
        for mode in ("full", "no"):
            spec.append(("%s --leak-check=%s" % (tool, mode), tool, mode))
    # The scan when teardown begins (exit()), on by default: its cost is
    # the difference to a run without it.
    spec.append(("memgrow --teardown-scan=no", "memgrow", "full-noteardown"))
    for label, tool, mode in spec:
        row = {"label": label, "tool": tool, "mode": mode}
        rows.append(row)
        if tool in tools.missing:
            row["skipped"] = tools.missing[tool]
            log("  %-30s skipped: %s" % (label, row["skipped"]))
            continue
        tag = "scan-%s-%s" % (tool, mode)
        if tool == "native":
            cmd = argv
        elif tool == "memgrow":
            options = (["--leak-check=full", "--teardown-scan=no"] if mode == "full-noteardown"
                       else ["--leak-check=" + mode])
            cmd = [tools.memgrow_vg, "--tool=memgrow"] + options + [
                "--json-file=" + os.path.join(runner.tmp, tag + ".%p.json")] + argv
        else:
            cmd = [tools.valgrind, "--tool=memcheck", "--leak-check=" + mode] + argv
        try:
            r = runner.measure(label, cmd, env, repeat)
        except Failure:
            row["failed"] = True
            continue
        row.update(r, tag=tag)
    return rows


def print_scan(rows, n, repeat, tmp, failures):
    by = {(r["tool"], r["mode"]): r for r in rows}

    def secs(tool, mode):
        r = by.get((tool, mode))
        return r.get("median") if r else None

    print()
    print("Leak scan: leak_heap %d blocks x %d bytes (%.2f GiB, 1%% lost)  "
          "(wall time: median of %d run%s; peak RSS: median)" % (
              n, SCAN_BLOCK_SIZE, n * SCAN_BLOCK_SIZE / 2.0 ** 30, repeat, "" if repeat == 1 else "s"))
    head = "%-30s %9s %14s %12s" % ("config", "seconds", "peak RSS MiB", "scan s")
    print(head)
    print("-" * len(head))
    scan = {}
    for tool in ("memgrow", "memcheck"):
        # memgrow's default scans twice (at exit and when exit() began): one
        # scan against memcheck's one is the run without the teardown scan.
        full = secs(tool, "full-noteardown" if tool == "memgrow" else "full")
        no = secs(tool, "no")
        scan[tool] = full - no if full is not None and no is not None else None
    for r in rows:
        if print_unmeasured(r):
            continue
        print(("%-30s %9.2f %14.1f %12s" % (
            r["label"], r["median"], r["rss_kib"] / 1024.0,
            fmt(scan.get(r["tool"]), ".2f") if r["mode"] == ("full-noteardown" if r["tool"] == "memgrow" else "full") else "")).rstrip())
    print()
    print("Scan time (seconds with --leak-check=full minus seconds with --leak-check=no; "
          "memgrow: with --teardown-scan=no):")
    for tool in ("memgrow", "memcheck"):
        print("  %-8s %7s s" % (tool, fmt(scan[tool], ".2f")))
    full, no_teardown = secs("memgrow", "full"), secs("memgrow", "full-noteardown")
    if full is not None and no_teardown is not None:
        print("  memgrow's teardown scan (default minus --teardown-scan=no): %.2f s" % (
            full - no_teardown))
    rr = ratio(scan["memgrow"], scan["memcheck"])
    if rr is None:
        print("  memgrow scan / memcheck scan  n/a (a run is missing)")
    else:
        print("  memgrow scan / memcheck scan = %.2f   (%.2f s / %.2f s)" % (
            rr, scan["memgrow"], scan["memcheck"]))

    # What each tool found, from its last --leak-check=full run.
    print()
    print("Leak totals (memgrow: JSON leak_check; memcheck: LEAK SUMMARY; last run of each):")
    mg_row, mc_row = by.get(("memgrow", "full")), by.get(("memcheck", "full"))
    mg = mc = mg_scanned = None
    if mg_row and mg_row.get("log"):
        lc, err = memgrow_leak_check(tmp, mg_row["tag"], mg_row["log"])
        if err:
            print("  FAILED: " + err)
            failures.append("scan: " + err)
        else:
            mg = {k: (lc.get(k, {}).get("bytes"), lc.get(k, {}).get("blocks")) for k in LEAK_KINDS}
            mg_scanned = lc.get("scanned_bytes")
    if mc_row and mc_row.get("log"):
        mc, err = memcheck_leak_summary(mc_row["log"])
        if err:
            print("  FAILED: " + err)
            failures.append("scan: " + err)
    expected = leak_heap_expected((mg_row or mc_row or {}).get("log") or "")
    if mg is None or mc is None:
        print("  n/a (a --leak-check=full run is missing)")
        return
    print("  %-10s %16s %10s %16s %10s" % ("kind", "memgrow bytes", "blocks", "memcheck bytes", "blocks"))
    for k in LEAK_KINDS:
        checked = k in ("definite", "indirect")
        same = mg[k] == mc[k]
        verdict = ("agree" if same else "FAILED: differ") if checked else (
            "agree (not checked)" if same else "differ (not checked)")
        print("  %-10s %16s %10s %16s %10s  %s" % (
            k, "{:,}".format(mg[k][0]), "{:,}".format(mg[k][1]),
            "{:,}".format(mc[k][0]), "{:,}".format(mc[k][1]), verdict))
        if checked and not same:
            failures.append("scan: %s lost differs: memgrow %s bytes in %s blocks, memcheck %s bytes in %s blocks" % (
                k, mg[k][0], mg[k][1], mc[k][0], mc[k][1]))
    if expected:
        off = [k for k in ("definite", "indirect") if mg[k] != expected[k] or mc[k] != expected[k]]
        print("  leak_heap expects definite %s bytes in %d blocks, indirect %s bytes in %d blocks: %s" % (
            "{:,}".format(expected["definite"][0]), expected["definite"][1],
            "{:,}".format(expected["indirect"][0]), expected["indirect"][1],
            "both tools match" if not off else "a tool differs on " + ", ".join(off)))
    if mg_scanned is not None:
        heap = sum(mg[k][0] for k in LEAK_KINDS)
        print("  memgrow scanned_bytes: %s (%.2f x the live heap of %s bytes)" % (
            "{:,}".format(mg_scanned), mg_scanned / float(heap) if heap else 0.0, "{:,}".format(heap)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 repeat and smaller sizes")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="memgrow build directory with vg-in-place [%(default)s]")
    ap.add_argument("--repeat", type=int, default=None, help="runs per configuration [3; 1 with --quick]")
    ap.add_argument("--only", action="append", choices=["c", "python", "fork", "startup", "length", "scan"],
                    help="run only these sections (repeatable)")
    ap.add_argument("--length", action="store_true", help="run only the run-length section")
    ap.add_argument("--python", default=None,
                    help="Python interpreter to measure: a path, or a name of the tests' "
                         "interpreters (3.13, 3.14, 3.15, debian) [this one]")
    ap.add_argument("--before", metavar="DIR",
                    help="another memgrow build (DIR/vg-in-place) whose memgrow rows run beside "
                         "this one's, in the same rounds: a change's before and after")
    ap.add_argument("--skip", action="append", default=[], metavar="CONFIG",
                    help="leave out a configuration: a tool (dhat) or a row's configuration "
                         "('memcheck --undef-value-errors=no') (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()

    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 3)
    if repeat < 1:
        ap.error("--repeat must be at least 1")
    q = 1 if args.quick else 0
    sections = set(args.only or [])
    if args.length:
        sections.add("length")
    if not sections:
        sections = {"c", "python", "fork", "startup", "length", "scan"}

    tmp = tempfile.mkdtemp(prefix="memgrow-bench-")
    t_start = time.perf_counter()
    try:
        return run(args, repeat, q, sections, tmp, t_start)
    finally:
        if args.keep:
            log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def run(args, repeat, q, sections, tmp, t_start):
    build = os.path.abspath(args.build)
    tools = Tools(build, tmp, args.before and os.path.abspath(args.before))
    tools.skip = set(args.skip)
    env = base_env()

    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        log("error: no C compiler (cc) found")
        return 2
    exe = os.path.join(tmp, "malloc_heavy")
    subprocess.check_call([cc, "-O2", "-g", "-o", exe, os.path.join(HERE, "malloc_heavy.c")])
    leak_exe = os.path.join(tmp, "leak_heap")
    if "scan" in sections:
        subprocess.check_call([cc, "-O2", "-g", "-o", leak_exe, os.path.join(HERE, "leak_heap.c")])
    helper = os.path.join(tmp, "rusage_run")
    subprocess.check_call([cc, "-O2", "-o", helper, os.path.join(HERE, "rusage_run.c")])
    runner = Runner(tmp, helper)
    if tools.memgrow_broken and not tools.memgrow_vg:
        runner.failures.append(tools.memgrow_broken)
    python = find_python(args.python)
    script = os.path.join(HERE, "python_loop.py")
    tools.vg_options = glibc_debuginfo(python, tmp)
    tools.find_memray(python)

    print("memgrow benchmark: %d CPU core%s, repeat %d%s" % (
        os.cpu_count() or 0, "" if os.cpu_count() == 1 else "s", repeat, ", quick sizes" if q else ""))
    print("memgrow: %s" % (tools.memgrow_where if tools.memgrow_vg else tools.missing["memgrow"]))
    print("valgrind: %s   heaptrack: %s   python: %s   cc: %s" % (
        tools.valgrind or "not installed", tools.heaptrack or "not installed", python, cc))
    if tools.vg_options:
        print("valgrind options for the interpreter's own glibc: %s" % " ".join(tools.vg_options))
    for config in CONFIGS:
        if config in tools.missing:
            print("skipping %s: %s" % (config, tools.missing[config]))
    sys.stdout.flush()

    checks = []
    tables = []
    if "c" in sections:
        n = C_ITERS[q]
        title = "C workload: malloc_heavy %d (grow)" % n
        spec = [(c, c, "c", [exe, str(n), "grow"], env) for c in CONFIGS]
        res = run_workload(runner, tools, title, with_before(tools, spec), repeat)
        tables.append((title, res))
        checks += targets("C", res)
        checks += report_line(tmp, "C", res, "list_push")

    if "python" in sections:
        n = PY_ITERS[q]
        title = "Python workload: python_loop.py %d (grow)" % n
        env_mal = dict(env, PYTHONMALLOC="malloc")
        argv = [python, script, str(n), "grow"]
        spec = [
            ("native", "native", "pymalloc", argv, env),
            ("native PYTHONMALLOC=malloc", "native", "malloc", argv, env_mal),
            ("none", "none", "pymalloc", argv, env),
            ("none PYTHONMALLOC=malloc", "none", "malloc", argv, env_mal),
        ] + [("%s PYTHONMALLOC=malloc" % c, c, "malloc", argv,
              tools.with_memray(env_mal) if c.startswith("memray") else env_mal)
             for c in ("memray", "memray --native", "memcheck", "memcheck --undef-value-errors=no",
                       "massif", "dhat", HUNT + " --python=no", HUNT + " --python-free-lists=no",
                       HUNT, "memgrow", "heaptrack")]
        res = run_workload(runner, tools, title, with_before(tools, spec), repeat)
        tables.append((title, res))
        checks += targets("Python", res)
        checks += report_line(tmp, "Python", res, None)

    if "fork" in sections:
        # A forked child's page checks (--fork-pages): the workloads' "fork"
        # mode runs nine tenths of the iterations in a forked child.
        for name, argv, env_w in (
                ("C", [exe, str(C_ITERS[q]), "grow", "fork"], env),
                ("Python", [python, script, str(PY_ITERS[q]), "grow", "fork"],
                 dict(env, PYTHONMALLOC="malloc"))):
            title = "Forked child: %s" % " ".join(os.path.basename(a) for a in argv[-4:])
            spec = [(c, c, "fork", argv, env_w)
                    for c in ("native", "none", HUNT + " --fork-pages=no", HUNT,
                              "memgrow --fork-pages=no", "memgrow")]
            res = run_workload(runner, tools, title, with_before(tools, spec), repeat)
            tables.append((title, res))
            checks += targets("Fork", res, "%s fork" % name)
        # A process that never forks instruments nothing: the flag's tests only.
        title = "Never forks: malloc_heavy %d grow" % C_ITERS[q]
        spec = [(c, c, "c", [exe, str(C_ITERS[q]), "grow"], env)
                for c in (HUNT + " --fork-pages=no", HUNT)]
        res = run_workload(runner, tools, title, with_before(tools, spec), repeat)
        tables.append((title, res))
        checks += targets("NoFork", res, "no fork")

    if "startup" in sections:
        title = "Start-up: python -c pass"
        argv = [python, "-c", "pass"]
        spec = [(c, c, "startup", argv, env)
                for c in ("native", "none", "memcheck", "massif", HUNT, "memgrow")]
        res = run_workload(runner, tools, title, with_before(tools, spec), repeat)
        tables.append((title, res))
        checks += targets("Start-up", res)

    length = None
    if "length" in sections:
        n = LENGTH_ITERS[q]
        length = []
        log("== run length: memgrow on malloc_heavy N and 10xN (flat)")
        if "memgrow" in tools.missing:
            length = tools.missing["memgrow"]
        else:
            for k in (n, 10 * n):
                tag = "length-%d" % k
                try:
                    r = runner.measure("memgrow flat %d" % k,
                                       tools.wrap("memgrow", tag, [exe, str(k), "flat"]), env, 1)
                except Failure:
                    length.append({"iters": k, "failed": True})
                    continue
                info, err = memgrow_report(tmp, tag)
                r.update(iters=k, info=info, err=err)
                try:
                    nat = runner.measure("native flat %d" % k, [exe, str(k), "flat"], env, 1)
                    r["native_rss_kib"] = nat["rss_kib"]
                except Failure:
                    r["native_rss_kib"] = None
                length.append(r)

    scan = None
    if "scan" in sections:
        scan = run_scan(runner, tools, leak_exe, SCAN_BLOCKS[q], env, repeat)

    # ---- report ----
    for title, res in tables:
        print_table(title, res, repeat)
    if checks:
        print()
        print("Targets (memgrow time / peer time, medians):")
        for l in checks:
            print(l)
    if length is not None:
        print()
        print("Run length: memgrow on malloc_heavy N and 10xN iterations, flat mode (bounded live set)")
        if isinstance(length, str):
            print("  skipped: " + length)
        else:
            print("  %-10s %9s %14s %18s %8s %11s" % (
                "iterations", "seconds", "peak RSS MiB", "native RSS MiB", "buckets", "JSON bytes"))
            for r in length:
                if r.get("failed"):
                    print("  %-10d FAILED (see the error below)" % r["iters"])
                    continue
                info = r.get("info") or {}
                print("  %-10d %9.2f %14.1f %18s %8s %11s" % (
                    r["iters"], r["secs"], r["rss_kib"] / 1024.0,
                    fmt(r["native_rss_kib"] and r["native_rss_kib"] / 1024.0, ".1f"),
                    info.get("buckets", "-"), info.get("bytes", "-")))
                if r.get("err"):
                    print("    " + r["err"])
            ok = [r for r in length if not r.get("failed")]
            if len(ok) == 2:
                rr = ok[1]["rss_kib"] / ok[0]["rss_kib"]
                print("  peak RSS ratio 10xN / N = %.3f   (target: flat, about 1.0)" % rr)
    if scan is not None:
        print_scan(scan, SCAN_BLOCKS[q], repeat, tmp, runner.failures)
    print()
    print("total benchmark time: %.0f s" % (time.perf_counter() - t_start))
    if runner.failures:
        print()
        print("FAILED RUNS:")
        for f in runner.failures:
            print(f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
