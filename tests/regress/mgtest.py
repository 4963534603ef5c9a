# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs programs under memgrow (from the build tree) and reads what it wrote.

The regression tests import this. MG_BUILD_DIR (set by `make check`) is the
build directory holding vg-in-place and the test programs.
"""
import functools
import json
import os
import queue
import sys
import subprocess
import tempfile
import threading
import unittest

BUILD = os.environ.get("MG_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SRC = os.environ.get("MG_SRC_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
# MG_VALGRIND: the launcher of a memgrow built against another Valgrind
# (tests/versions/run.sh), with the programs and memgrow-report of BUILD.
VALGRIND = os.environ.get("MG_VALGRIND") or os.path.join(BUILD, "vg-in-place")
VGDB = os.environ.get("MG_VGDB") or "/usr/bin/vgdb"
REPORT = os.path.join(BUILD, "memgrow-report")


def valgrind_version():
    """The Valgrind release VALGRIND runs, as a tuple: (3, 27, 1)."""
    out = subprocess.run([VALGRIND, "--version"], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    return tuple(int(x) for x in out.strip().removeprefix("valgrind-").split(".")[:3])


def program(name):
    return os.path.join(BUILD, "tests", "regress", name)


class Run:
    """One run of memgrow: exit code, log text and the parsed report(s)."""

    def __init__(self, rc, log, reports):
        self.rc = rc
        self.log = log
        self.reports = reports

    @property
    def report(self):
        assert len(self.reports) == 1, f"expected one report, got {len(self.reports)}:\n{self.log}"
        return self.reports[0]


# The tests check the classes and counts of every site, small stable ones
# included: their runs list them all unless a test's own --json-sites says
# otherwise (a later option wins). test_report_size.py checks what the
# default lists and folds.
COMPLETE = ("--json-sites=all",)


def run(argv, options=(), env=None, timeout=300, json_name="report.%p.json"):
    """Runs argv under memgrow in a fresh directory; returns a Run. An env
    value of None removes that variable."""
    with tempfile.TemporaryDirectory(prefix="memgrow-test-") as tmp:
        cmd = [VALGRIND, "--tool=memgrow", f"--json-file={os.path.join(tmp, json_name)}",
               *COMPLETE, *options, *argv]
        full_env = dict(os.environ)
        full_env.update(env or {})
        full_env = {k: v for k, v in full_env.items() if v is not None}
        p = subprocess.run(cmd, cwd=tmp, env=full_env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout, text=True,
                           errors="replace")
        reports = []
        for name in sorted(os.listdir(tmp)):
            if name.endswith(".json"):
                reports.append(load_report(os.path.join(tmp, name)))
        return Run(p.returncode, p.stdout, reports)


def build_extension(python, source, name, out_dir):
    """Builds tests/regress/<source> as the extension module `name` for
    `python`, against that interpreter's own headers, into out_dir."""
    paths = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                            "['include']); print(sysconfig.get_config_var('EXT_SUFFIX'))"],
                           capture_output=True, text=True, check=True).stdout.split()
    include, suffix = paths[0], paths[1]
    # Debian's pyconfig.h includes <x86_64-linux-gnu/pythonX.Y/pyconfig.h>
    # from the include folder's parent (not /usr/include for an unpacked one).
    subprocess.run(["cc", "-shared", "-fPIC", "-g", "-O0", f"-I{include}",
                    f"-I{os.path.dirname(include)}", "-o",
                    os.path.join(out_dir, name + suffix),
                    os.path.join(SRC, "tests", "regress", source)], check=True)


def _dense(pairs, n, changes):
    """A format-2 sparse series (pairs [bucket, value, ...]) made dense: a
    level holds from its bucket on when `changes`, else only there."""
    out, value, at = [], 0, dict(zip(pairs[::2], pairs[1::2]))
    for i in range(n):
        if i in at:
            value = at[i]
            out.append(value)
        else:
            out.append(value if changes else 0)
    return out


# A folded group's counts, in the order of a format-2 row (docs/output-format.md).
FOLDED_COUNTS = ("sites", "live_bytes", "live_blocks", "peak_bytes", "allocated_bytes",
                 "allocated_blocks", "at_exit_bytes", "at_exit_blocks")


def expand(doc):
    """A format-2 report in the format-1 layout (docs/output-format.md), as
    `memgrow-report expand` writes it: written apart from the C++ one, so
    that the tests check the tool's format 2 against the documented
    layout. A format-1 report comes back as it is."""
    if doc.get("memgrow") != 2:
        return doc
    frames = [{"function": f[0], "file": f[1], "line": f[2], "object": f[3],
               "python": f[4] is None, "ip": f[4]} for f in doc.get("frames", [])]
    revision = doc.get("revision", 1)
    stacks = list(doc.get("stacks", []))
    if revision >= 2:  # callers as distances back (0: none), made indices
        for i in range(1, len(stacks), 2):
            back = stacks[i]
            stacks[i] = i // 2 - back if back else -1
    classes = ("stable", "plateau", "growing", "leaked")
    n = len(doc.get("buckets", []))
    scan = "leak_check" in doc
    zero = {"definite": 0, "indirect": 0, "possible": 0}
    quiet = {"class": "stable", "rule": "none", "rate": 0, "rate_per_bucket": 0,
             "rate_per_mark": None, "confidence": 0, "trend_z": 0, "began_at": None,
             "stopped_at": None, "marks_used": 0, "marks_adding": 0,
             "released_at_end": False, "staircase_steps": 0, "next_step_at": None}

    def frames_of(node):
        out = []
        while node is not None and node >= 0:
            out.append(frames[stacks[2 * node]])
            node = stacks[2 * node + 1]
        return out

    def site(row, python, next_id):
        extra = dict(row[12])
        s = {"id": next_id + row[0] if revision >= 2 else row[0],
             "space": extra.get("space", "host")}
        if "device" in extra:
            s["device"] = extra["device"]
        s["class"] = classes[row[2]] if revision >= 2 else row[2]
        if revision >= 2 and "leak" in extra:  # [lost bytes x3, lost blocks x3, reachable, through]
            leak = extra.pop("leak")
            extra["lost"] = dict(zip(("definite", "indirect", "possible"), leak[:3]))
            if not python:
                extra["lost_blocks"] = dict(zip(("definite", "indirect", "possible"), leak[3:6]))
                extra["reachable_bytes"], extra["indirect_through"] = leak[6], leak[7]
        if revision >= 2 and python and "sites" in extra:  # steps from the one before
            ids, at = [], 0
            for step in extra["sites"]:
                at += step
                ids.append(at)
            extra["sites"] = ids
        for i, key in enumerate(("live_bytes", "live_blocks", "peak_bytes", "allocated_bytes",
                                 "allocated_blocks", "at_exit_bytes", "at_exit_blocks")):
            s[key] = row[3 + i]
        s["suppressed"] = extra.get("suppressed", False)
        if "suppression" in extra:
            s["suppression"] = extra["suppression"]
        if scan:
            s["lost"] = extra.get("lost", dict(zero))
            if not python:
                s["lost_blocks"] = extra.get("lost_blocks", dict(zero))
                s["reachable_bytes"] = extra.get("reachable_bytes", 0)
                s["indirect_through"] = extra.get("indirect_through", 0)
                s["lost_suppressed"] = extra.get("lost_suppressed", False)
        s["growth"] = extra.get("growth", doc.get("quiet_growth", quiet))
        s["series"] = _dense(row[10], n, True)
        if not python:
            alloc = _dense(row[11], n, False)
            s["allocated_series"] = alloc
            s["freed_series"] = [(s["series"][i - 1] if i else 0) + alloc[i] - s["series"][i]
                                 for i in range(n)]
        if "mark_series" in extra:
            s["mark_series"] = _dense(extra["mark_series"], doc.get("mark_buckets", 0), True)
        elif doc.get("mark_buckets"):  # left out: no change, all zero
            s["mark_series"] = [0] * doc["mark_buckets"]
        s["frames"] = frames_of(row[1])
        if python:
            s["sites"] = extra.get("sites", [])
            s["omitted_sites"] = extra.get("omitted_sites", 0)
        # What format 2 does not reshape (lost_by_teardown, ...) is as it is.
        for key, value in extra.items():
            s.setdefault(key, value)
        return s

    out = {}
    for key, value in doc.items():
        if key == "fork":  # writers' stacks inlined as frames
            value = dict(value, writers=[{"frames": frames_of(w["stack"]), "bytes": w["bytes"]}
                                         for w in value["writers"]])
        if key in ("frames", "stacks", "site_count", "python_site_count", "quiet_growth",
                   "mark_buckets", "revision", "folded_count"):
            continue
        if key == "memgrow":
            value = 1
        elif key in ("sites", "python_sites"):
            rows, next_id = [], 0
            for row in value:
                rows.append(site(row, key == "python_sites", next_id))
                next_id = rows[-1]["id"] + 1
            value = rows
        elif key == "folded":  # [stack, python_site, sites, live_bytes, ...]
            value = [{"python_site": row[1], **dict(zip(FOLDED_COUNTS, row[2:])),
                      "frames": frames_of(row[0])} for row in value]
        out[key] = value
    return out


def load_report(path):
    """A report file the tool wrote, in the format-1 layout the tests read."""
    with open(path) as f:
        return expand(json.load(f))


class Python:
    """A CPython to run tests with: its command line and minor version."""

    def __init__(self, argv, minor):
        self.argv, self.minor = argv, minor


def _cache(*parts):
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                        "memgrow", *parts)


def _python312():
    """A CPython 3.12, if there is one: MEMGROW_PYTHON312 (an interpreter,
    or a runtime unpacked in a folder) or the cache's; None, said on stderr,
    when there is none (Debian's archive no longer has 3.12)."""
    where = os.environ.get("MEMGROW_PYTHON312") or _cache("python3.12")
    exe = os.path.join(where, "usr", "bin", "python3.12") if os.path.isdir(where) else where
    if os.access(exe, os.X_OK):
        return exe
    print(f"memgrow tests: no CPython 3.12 ({exe} is missing; MEMGROW_PYTHON312 may name one): "
          "3.12 is not tested", file=sys.stderr)
    return None


@functools.lru_cache(maxsize=None)
def python_interpreters():
    """The interpreters the Python tests run, by name: the one running the
    tests (pyenv's 3.11, a shared libpython), Debian's static, stripped 3.11,
    Debian sid's 3.13, 3.14 and 3.15 (static, stripped; each starts through
    its own glibc's ld.so) that scripts/fetch-python.sh unpacks, and a 3.12
    where there is one. A missing 3.13 to 3.15 makes its tests fail, not
    skip."""
    out = {"running": Python([sys.executable], sys.version_info[1])}
    if os.path.exists("/usr/bin/python3"):
        out["debian"] = Python([os.path.realpath("/usr/bin/python3")], 11)
    exe312 = _python312()
    if exe312:
        out["3.12"] = Python([exe312], 12)
    for minor in (13, 14, 15):
        exe = _cache(f"python3.{minor}", "usr", "bin", f"python3.{minor}")
        if not os.access(exe, os.X_OK):
            print(f"memgrow tests: CPython 3.{minor} is missing ({exe}): run "
                  "scripts/fetch-python.sh; its tests fail", file=sys.stderr)
        out[f"3.{minor}"] = Python([exe], minor)
    return out


# The heavier Python tests run on these (when present) rather than on every
# interpreter, to keep `make check` short: the shared and the static 3.11
# and 3.14, the current release (docs/python.md lists which tests run where).
REPRESENTATIVE = ("running", "debian", "3.14")


def representative_interpreters():
    return {name: py for name, py in python_interpreters().items() if name in REPRESENTATIVE}


def python_executables(interpreters=None):
    """The executables of python_interpreters() (or of `interpreters`), by
    name (each starts by itself)."""
    return {name: py.argv[0] for name, py in (interpreters or python_interpreters()).items()}


def bytearray_block(size, minor):
    """The heap block that holds a bytearray(size)'s bytes on CPython
    3.minor: the bytes and a NUL, in a bytes object from 3.15 (its 32-byte
    header first)."""
    return size + 1 if minor < 15 else size + 33


SERVICE_TIMEOUT = 120


class Service:
    """A program under memgrow (or another tool of the same launcher:
    memcheck, to compare with) with its gdbserver on, stepped through its
    phases by creating files (`go`, `stop` in tmp, which argv may name),
    read line by line and queried with vgdb."""

    def __init__(self, tmp, argv, options=(), tool="memgrow"):
        self.tmp = tmp
        self.prefix = os.path.join(tmp, "vgdb")
        self.go = os.path.join(tmp, "go")
        self.stop = os.path.join(tmp, "stop")
        self.log_path = os.path.join(tmp, "valgrind.log")
        self.json = os.path.join(tmp, "report.json")
        self.lines = queue.Queue()
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [VALGRIND, f"--tool={tool}", "--vgdb=yes", f"--vgdb-prefix={self.prefix}",
             *([f"--json-file={self.json}", *COMPLETE] if tool == "memgrow" else []), *options,
             *argv],
            cwd=tmp, stdout=subprocess.PIPE, stderr=self._log, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def log(self):
        self._log.flush()
        with open(self.log_path) as f:
            return f.read()

    def expect(self, text, timeout=SERVICE_TIMEOUT):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no {text!r} from the service in {timeout} s:\n{self.log()}")
        if line != text:
            raise AssertionError(f"the service printed {line!r}, not {text!r}:\n{self.log()}")

    def vgdb(self, *command):
        p = subprocess.run([VGDB, f"--vgdb-prefix={self.prefix}", f"--pid={self.proc.pid}",
                            *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60)
        if p.returncode != 0:
            raise AssertionError(f"vgdb {' '.join(command)}: exit {p.returncode}\n"
                                 f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}\nlog:\n{self.log()}")
        return p.stdout

    def touch(self, path):
        with open(path, "w"):
            pass

    def finish(self, path=None):
        """Creates `path` (default: the stop file) and waits for the end."""
        self.touch(path or self.stop)
        rc = self.proc.wait(timeout=SERVICE_TIMEOUT)
        self._reader.join(timeout=10)
        return rc

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        if self.proc.stdout:
            self.proc.stdout.close()
        self._log.close()


def memgrow_report(*args):
    """Runs the built memgrow-report; stdout and stderr apart."""
    return subprocess.run([REPORT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, errors="replace", timeout=60)


def frames_text(site):
    return " <- ".join(f"{f['function']}({f['file']}:{f['line']})" for f in site["frames"])


def sites_at(report, function=None, file=None, line=None):
    """Sites with a frame matching every given field."""
    out = []
    for s in report["sites"]:
        for f in s["frames"]:
            if function is not None and f["function"] != function:
                continue
            if file is not None and (f["file"] is None or os.path.basename(f["file"]) != file):
                continue
            if line is not None and f["line"] != line:
                continue
            out.append(s)
            break
    return out


def source_line(path, marker):
    """The 1-based line of `marker` in a source file (tests name lines by content)."""
    with open(os.path.join(SRC, path)) as f:
        for i, text in enumerate(f, 1):
            if marker in text:
                return i
    raise AssertionError(f"{marker!r} not in {path}")


def describe(report):
    return "\n".join(f"  {s['class']:8} live={s['live_bytes']:>9} {frames_text(s)}"
                     for s in report["sites"])


class TestCase(unittest.TestCase):
    def assertClass(self, report, cls, **where):
        sites = sites_at(report, **where)
        self.assertTrue(sites, f"no site at {where}:\n{describe(report)}")
        classes = {s["class"] for s in sites}
        self.assertIn(cls, classes, f"sites at {where}:\n{describe(report)}")
        return [s for s in sites if s["class"] == cls]

    def assertNoClass(self, report, cls):
        bad = [s for s in report["sites"] if s["class"] == cls]
        self.assertFalse(bad, f"unexpected {cls} sites:\n{describe(report)}")
