# SPDX-License-Identifier: GPL-2.0-or-later
"""The `memgrow` command (and `python -m memgrow`): runs Python code or a
native program under memgrow, and reads reports (docs/install.md).

    memgrow run [memgrow options] script.py [args]
    memgrow run [memgrow options] -m module [args]
    memgrow run [memgrow options] -c code [args]
    memgrow run [memgrow options] -- ./program [args]
    memgrow report show memgrow.out.4242.json     (memgrow-report's commands)
    memgrow vgdb --pid=PID report now.json        (Valgrind's vgdb)
    memgrow --version

Python code runs on this interpreter (a virtual environment's own python,
so that its packages are there). The Valgrind is the one the wheel bundles,
beside this file; MEMGROW_VALGRIND=/usr/bin/valgrind takes that launcher and
the memgrow installed into it instead. Without a bundled one (memgrow built
and installed from source) it is `valgrind` on PATH.
"""
import os
import shutil
import subprocess
import sys

from ._version import VERSION

# The wheel's Valgrind: launcher, vgdb and memgrow-report in bin/, the tool
# directory (VALGRIND_LIB) in lib/valgrind/ (scripts/build-wheel.sh).
BUNDLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_valgrind")
USAGE = """usage: memgrow run [memgrow options] (script.py | -m module | -c code | -- program) [args]
       memgrow report COMMAND ...      (memgrow-report: show, diff, html, ...; --help)
       memgrow vgdb ...                (Valgrind's vgdb: vgdb --pid=PID report now.json)
       memgrow --version
memgrow options are valgrind --tool=memgrow's (`memgrow run --help` lists them).
MEMGROW_VALGRIND=/path/to/valgrind uses that Valgrind (with memgrow installed into it)
instead of the bundled one."""


class UsageError(Exception):
    pass


def _bundled(name):
    path = os.path.join(BUNDLE, "bin", name)
    return path if os.access(path, os.X_OK) else None


def valgrind():
    """(launcher, environment) of the Valgrind to run."""
    env = dict(os.environ)
    chosen = env.get("MEMGROW_VALGRIND")
    if chosen:
        return chosen, env
    launcher = _bundled("valgrind")
    if launcher:
        # The launcher finds its core files, its preloads and the tool here,
        # whatever a system Valgrind or the environment says.
        env["VALGRIND_LIB"] = os.path.join(BUNDLE, "lib", "valgrind")
        return launcher, env
    found = shutil.which("valgrind")
    if not found:
        raise UsageError("memgrow: no Valgrind: this memgrow has none bundled and there is no "
                         "valgrind on PATH (MEMGROW_VALGRIND=/path/to/valgrind names one)")
    return found, env


def tool(name):
    """A bundled program (memgrow-report, vgdb), else the one on PATH."""
    path = _bundled(name) or shutil.which(name)
    if not path:
        raise UsageError(f"memgrow: no {name}: not bundled here and not on PATH")
    return path


def run_command(args):
    """valgrind's argv for `memgrow run ARGS`: the options up to the program,
    then the program: this interpreter with a script, -m or -c, or after --
    any program."""
    options = []
    for i, arg in enumerate(args):
        if arg == "--":
            program = args[i + 1:]
            if not program:
                raise UsageError("memgrow run: no program after --")
            return options, program
        if arg in ("-m", "-c"):
            if i + 1 >= len(args):
                raise UsageError(f"memgrow run: {arg} needs an argument")
            return options, [sys.executable, *args[i:]]
        if arg.startswith("-"):
            options.append(arg)
            continue
        # A native program may be named without --: an ELF file runs as
        # itself, anything else is a Python script.
        try:
            with open(arg, "rb") as f:
                native = f.read(4) == b"\x7fELF"
        except OSError:
            native = False
        return options, (args[i:] if native else [sys.executable, *args[i:]])
    if any(o in ("--help", "-h", "--help-debug", "--version") for o in options):
        return options, []
    raise UsageError("memgrow run: no script, -m module, -c code or -- program\n" + USAGE)


def _exec(argv, env=None):
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(argv[0], argv, env if env is not None else os.environ)
    except OSError as e:
        raise UsageError(f"memgrow: cannot run {argv[0]}: {e.strerror}")


def _valgrind_version(launcher, env):
    try:
        out = subprocess.run([launcher, "--tool=memgrow", "--version"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    return out or "unknown"


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if not args or args[0] in ("-h", "--help", "help"):
            print(USAGE)
            return 0 if args else 2
        command, rest = args[0], args[1:]
        if command in ("--version", "-V", "version"):
            launcher, env = valgrind()
            where = "bundled" if launcher == _bundled("valgrind") else launcher
            print(f"memgrow {VERSION} ({_valgrind_version(launcher, env)}, {where})")
            return 0
        if command == "run":
            options, program = run_command(rest)
            launcher, env = valgrind()
            _exec([launcher, "--tool=memgrow", *options, *program], env)
        if command == "report":
            _exec([tool("memgrow-report"), *rest])
        if command == "vgdb":
            _exec([tool("vgdb"), *rest])
        raise UsageError(f"memgrow: unknown command {command!r}\n{USAGE}")
    except UsageError as e:
        print(e, file=sys.stderr)
        return 2


def report_main():
    """The `memgrow-report` console script."""
    return main(["report", *sys.argv[1:]])
