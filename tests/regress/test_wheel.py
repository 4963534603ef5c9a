# SPDX-License-Identifier: GPL-2.0-or-later
"""memgrow's wheel as a user installs it (docs/install.md, issue 46):
scripts/build-wheel.sh builds it from this build; then, as a non-root user in
a mount namespace where the system's Valgrind (and the compilers) are hidden,
tests/regress/wheel_user.sh makes a fresh venv of Debian 12's python3.11 and
of sid's 3.14, `pip install`s the wheel offline and runs `memgrow run` on a
Python script and on a C program, `memgrow report show` and `html`, and the
pytest plugin. MEMGROW_VALGRIND picks another Valgrind."""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import BUILD, SRC, TestCase, _cache, expand, source_line  # noqa: E402

USER = os.path.join(SRC, "tests", "regress", "wheel_user.sh")
GROWS = source_line("examples/leaky_service.py", "# grows: never evicted")
GROWS_C = source_line("examples/leaky_service.c", "/* grows: clients are never evicted */")
KEPT = source_line("tests/regress/py_pytest_sample.py", "KEPT_HERE")
SID_PIP = _cache("pip-sid", "usr", "share", "python-wheels")
SID_PYTEST = _cache("pip-sid", "usr", "lib", "python3", "dist-packages")
# Hidden in the namespace: Valgrind as Debian installs it, and the compilers.
HIDDEN_DIRS = ("/usr/libexec/valgrind",)
HIDDEN_FILES = ("/usr/bin/valgrind", "/usr/bin/valgrind.bin", "/usr/bin/vgdb", "/usr/bin/cc",
                "/usr/bin/gcc", "/usr/bin/g++", "/usr/bin/c++", "/usr/bin/make")


def version():
    with open(os.path.join(BUILD, "Makefile")) as f:
        return re.search(r"^PACKAGE_VERSION = (\S+)$", f.read(), re.M).group(1)


def _closed_ancestor(path):
    """The outermost folder above path that others cannot enter (/root), or None."""
    parts = os.path.abspath(path).split(os.sep)
    for i in range(2, len(parts)):
        folder = os.sep.join(parts[:i])
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder
    return None


def as_user_without_valgrind(argv, cwd):
    """argv, run in cwd as a non-root user in a mount namespace that hides
    the system's Valgrind and compilers: as root, `unshare -m` and setpriv
    to nobody; otherwise a user namespace of its own, then a nested one that
    maps the user back. A home folder that others cannot enter (/root) is
    replaced by an open one holding only memgrow's cache (sid's interpreters
    and pip)."""
    hide = [f'mount --bind "$empty" {d}' for d in HIDDEN_DIRS if os.path.isdir(d)]
    hide += [f"mount --bind /dev/null {f}" for f in HIDDEN_FILES if os.path.exists(f)]
    cache, closed = _cache(), _closed_ancestor(_cache())
    if closed:
        hide += [f'keep=$(mktemp -d); mount --bind {cache} "$keep"',
                 f"mount -t tmpfs -o mode=755 tmpfs {closed}",
                 f'mkdir -p {cache}; mount --bind "$keep" {cache}']
    env = ["env", "-i", f"HOME={cwd}", "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"]
    if os.geteuid() == 0:
        outer = ["unshare", "-m"]
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    else:
        outer = ["unshare", "-Urm"]
        drop = ["unshare", "-U", f"--map-user={os.getuid()}", f"--map-group={os.getgid()}"]
    script = f'set -e; empty=$(mktemp -d); {"; ".join(hide)}; cd "$1"; shift; exec "$@"'
    return subprocess.run([*outer, "sh", "-c", script, "sh", cwd, *drop, *env, *argv],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=1500)


class Wheel(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-wheel-")
        os.chmod(cls.tmp, 0o755)
        dist = os.path.join(cls.tmp, "dist")
        p = subprocess.run(["sh", os.path.join(SRC, "scripts", "build-wheel.sh")],
                           env=dict(os.environ, MEMGROW_BUILD=BUILD, MEMGROW_DIST=dist),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=900)
        assert p.returncode == 0, p.stdout
        (name,) = os.listdir(dist)
        cls.wheel = os.path.join(dist, name)
        cls.build_log = p.stdout

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_contents(self):
        name = os.path.basename(self.wheel)
        m = re.fullmatch(r"memgrow-(.+)-py3-none-manylinux_2_(\d+)_x86_64\.whl", name)
        self.assertTrue(m, name)
        self.assertEqual(m.group(1), version())
        self.assertLess(os.path.getsize(self.wheel), 30e6)
        with zipfile.ZipFile(self.wheel) as z:
            # The tag is the glibc Valgrind's launcher needs (2.34 for
            # Debian 12's): memgrow-report and the rest need no newer one.
            launcher = z.extract("memgrow/_valgrind/bin/valgrind", self.tmp)
            symbols = subprocess.run(["objdump", "-T", launcher], stdout=subprocess.PIPE,
                                     text=True, check=True).stdout
            needs = max(int(v) for v in re.findall(r"GLIBC_2\.(\d+)", symbols))
            self.assertEqual(int(m.group(2)), needs, name)
            names = set(z.namelist())
            info = f"memgrow-{version()}.dist-info"
            for f in ("memgrow/cli.py", "memgrow/pytest.py", "memgrow/libmemgrow-client.so",
                      "memgrow/_valgrind/bin/valgrind", "memgrow/_valgrind/bin/memgrow-report",
                      "memgrow/_valgrind/lib/valgrind/memgrow-amd64-linux",
                      "memgrow/_valgrind/lib/valgrind/vgpreload_core-amd64-linux.so",
                      "memgrow/_valgrind/lib/valgrind/default.supp",
                      "memgrow/_valgrind/lib/valgrind/memgrow-python/memgrow/__init__.py",
                      f"{info}/licenses/COPYING", f"{info}/licenses/valgrind.copyright",
                      f"{info}/licenses/libfmt-dev.copyright", f"{info}/RECORD"):
                self.assertIn(f, names)
            entry = z.read(f"{info}/entry_points.txt").decode()
            self.assertIn("memgrow = memgrow.cli:main", entry)
            self.assertIn("[pytest11]\nmemgrow = memgrow.pytest_entry", entry)
            self.assertIn("License: GPL-2.0-or-later", z.read(f"{info}/METADATA").decode())
            mode = z.getinfo("memgrow/_valgrind/bin/valgrind").external_attr >> 16
            self.assertTrue(mode & stat.S_IXUSR)

    def user(self, python, pip, pythonpath=None):
        """wheel_user.sh with python in a fresh folder; {step: (rc, log)}."""
        work = tempfile.mkdtemp(dir=self.tmp)
        os.chmod(work, 0o777)
        shutil.copy(os.path.join(SRC, "examples", "leaky_service.py"), work)
        shutil.copy(os.path.join(BUILD, "examples", "leaky_service"), work)
        shutil.copy(os.path.join(SRC, "tests", "regress", "py_pytest_sample.py"),
                    os.path.join(work, "sample.py"))
        argv = ["sh", USER, python, self.wheel, pip]
        if pythonpath:
            argv = ["env", f"PYTHONPATH={pythonpath}", *argv]
        p = as_user_without_valgrind(argv, work)
        self.assertEqual(p.returncode, 0, p.stdout)
        steps = {}
        for f in os.listdir(work):
            if f.endswith(".rc"):
                step = f[:-3]
                with open(os.path.join(work, f)) as rc, \
                        open(os.path.join(work, step + ".log"), errors="replace") as log:
                    steps[step] = (int(rc.read()), log.read())
        with open(os.path.join(work, "uid.log")) as f:
            self.assertNotEqual(f.read().strip(), "0")
        return work, steps

    def check(self, work, steps):
        def ok(step, rc=0):
            self.assertEqual(steps[step][0], rc, f"{step}:\n{steps[step][1]}")
            return steps[step][1]

        self.assertNotEqual(steps["system_valgrind"][0], 0, steps["system_valgrind"][1])
        ok("venv")
        ok("install")
        self.assertRegex(ok("version"), rf"^memgrow {re.escape(version())} \(valgrind-3\.\d+\.\d+, "
                                        r"bundled\)$")
        # The Python script: its growing line in the log and the report.
        log = ok("python")
        self.assertRegex(log, rf"GROWING \d+ of \d+: stats_for \(leaky_service\.py:{GROWS}\)")
        with open(os.path.join(work, "python.json")) as f:
            report = expand(json.load(f))
        self.assertTrue(report["command"][0].endswith("/venv/bin/python"), report["command"])
        self.assertEqual(report["memgrow_version"], version())
        self.assertClass(report, "growing", file="leaky_service.py", line=GROWS)
        self.assertIn(f"leaky_service.py:{GROWS}", ok("show"))
        ok("html")
        with open(os.path.join(work, "page.html")) as f:
            self.assertIn("<html", f.read(200).lower())
        # -c code: the venv's interpreter, which imports the package the tool
        # puts on its path (the wheel's copy beside the tool).
        self.assertRegex(ok("code"), r"(?m)^running True \S*/memgrow/_valgrind/lib/valgrind/"
                                     r"memgrow-python/memgrow/__init__.py \S*/venv$")
        # The C program.
        self.assertRegex(ok("native"), rf"GROWING \d+ of \d+: stats_for \(leaky_service\.c:{GROWS_C}\)")
        # The pytest plugin: under memgrow (-p memgrow.pytest), natively by its
        # entry point (--memgrow-repeat alone), and not at all unasked.
        for step, meter in (("pytest", "memgrow's exact live heap"), ("pytest_entry", "tracemalloc")):
            out = ok(step, rc=1)
            self.assertIn(f"memgrow: kept memory measured by {meter}", out)
            self.assertEqual(re.findall(r"^FAILED \S*::(\w+)", out, re.M),
                             ["test_keeps_a_list_growing"], out)
            self.assertRegex(out, rf"kept memory in every repetition after the first: .*; most at "
                                  rf".*sample\.py:{KEPT}")
        out = ok("pytest_plain")
        self.assertNotIn("memgrow:", out)
        self.assertNotIn("PytestUnknownMarkWarning", out)  # memgrow_limit is known
        self.assertIn("3 passed", out)

    def test_debian_python311(self):
        work, steps = self.user("/usr/bin/python3.11", "ensurepip")
        self.check(work, steps)
        # MEMGROW_VALGRIND: that launcher, with the tool installed into it
        # (here the build tree's), and not the bundled one.
        fake = os.path.join(work, "my-valgrind")
        with open(fake, "w") as f:
            f.write(f'#!/bin/sh\necho "my-valgrind $*" >&2\nexec {BUILD}/vg-in-place "$@"\n')
        os.chmod(fake, 0o755)
        memgrow = os.path.join(work, "venv", "bin", "memgrow")
        # (A native program without --: recognised as ELF.)
        p = subprocess.run([memgrow, "run", "--json-file=mine.json", "./leaky_service"], cwd=work,
                           env=dict(os.environ, MEMGROW_VALGRIND=fake), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("my-valgrind --tool=memgrow --json-file=mine.json ./leaky_service", p.stdout)
        self.assertTrue(os.path.exists(os.path.join(work, "mine.json")))
        # Usage errors: exit 2, with what was wrong.
        for argv, said in ((["run", "--top=3"], "no script, -m module, -c code or -- program"),
                           (["run", "-m"], "-m needs an argument"),
                           (["run", "--"], "no program after --"),
                           (["frob"], "unknown command 'frob'")):
            p = subprocess.run([memgrow, *argv], cwd=work, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn(said, p.stdout)

    def test_sid_python314(self):
        pips = sorted(f for f in os.listdir(SID_PIP) if f.startswith("pip-"))
        self.assertTrue(pips, f"no pip wheel in {SID_PIP}: scripts/fetch-python.sh")
        self.check(*self.user(_cache("python3.14", "usr", "bin", "python3.14"),
                              os.path.join(SID_PIP, pips[-1]), pythonpath=SID_PYTEST))


if __name__ == "__main__":
    unittest.main()
