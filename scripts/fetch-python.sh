#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Unpacks the CPython interpreters the Python tests run besides the
# machine's own 3.11: Debian sid's 3.13, 3.14 and 3.15 (static libpython,
# stripped, as Debian builds them) with their headers (the tests build an
# extension module against each) and sid's glibc, each into
# ${XDG_CACHE_HOME:-~/.cache}/memgrow/pythonX.Y (scripts/fetch-debian.sh:
# apt with a private configuration, nothing installed system-wide).
#
# Each interpreter is then made to start by itself: its program interpreter
# becomes that glibc's ld.so and its RPATH that glibc's directory
# (patchelf), so that it, and any child process it starts (subprocess,
# multiprocessing's spawn), runs with the glibc it was built for.
#
# CPython 3.12 is no longer in Debian's archive: a runtime unpacked there by
# an earlier version of this script (or MEMGROW_PYTHON312 naming such a
# folder) is made to start by itself too; without one the tests say that
# 3.12 is not tested. Sid's libc6-dbg goes into glibc-dbg-sid beside them,
# for memcheck in bench/run.py. Sid's pip wheel and pytest go into pip-sid.
#
#   scripts/fetch-python.sh [VERSION...]   (default: 3.13 3.14 3.15)
#   scripts/fetch-python.sh --torch        sid's CPython 3.14 with its PyTorch
#
# --torch unpacks python3-torch (CPU) and what apt resolves it to need, less
# what `import torch` never loads (LLVM, ROCm, the test libraries; 1.1 GB
# in all, 0.6 without them), into ${XDG_CACHE_HOME:-~/.cache}/memgrow/torch3.14:
# for the benchmarks and checks of PyTorch's import (bench/), not the tests.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/memgrow
command -v patchelf >/dev/null || { echo "memgrow: patchelf is needed (apt-get install patchelf)" >&2; exit 1; }

# Points the interpreter in ROOT/usr/bin at ROOT's own glibc; checks it runs.
runnable() {
    root=$1 version=$2
    exe=$root/usr/bin/python$version lib=$root/usr/lib/x86_64-linux-gnu
    if [ ! -x "$exe" ] || [ ! -x "$lib/ld-linux-x86-64.so.2" ]; then
        echo "memgrow: no python$version or ld.so in $root" >&2
        return 1
    fi
    # DT_RPATH (not RUNPATH): it also applies to what extension modules
    # load (_ssl's libssl).
    if [ "$(patchelf --print-interpreter "$exe")" != "$lib/ld-linux-x86-64.so.2" ] ||
        [ "$(patchelf --print-rpath "$exe")" != "$lib" ]; then
        patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$lib" "$exe"
    fi
    got=$(env -u PYTHONHOME -u PYTHONPATH "$exe" -S -c 'import sys; print("%d.%d" % sys.version_info[:2])') ||
        got=none
    if [ "$got" != "$version" ]; then
        echo "memgrow: $exe does not run as CPython $version" >&2
        return 1
    fi
}

status=0
if [ "${1:-}" = --torch ]; then
    sid_apt=$cache/apt/sid
    "$here/fetch-debian.sh" sid --index
    empty=$(mktemp)
    # What apt would install on an empty system: alternatives resolved its way.
    # shellcheck disable=SC2046
    packages=$(apt-get -s -o Dir::Etc::SourceList="$sid_apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$sid_apt/lists" -o Dir::Cache="$sid_apt" -o Dir::State::status="$empty" \
        -o Debug::NoLocking=1 -o APT::Install-Recommends=0 install python3-torch |
        sed -n 's/^Inst \([^ ]*\).*/\1/p' |
        grep -Ev '^(libllvm|libclang|libamd|libhsa|libtorch-test|systemd|libsystemd|python3-networkx|python3-sympy)')
    rm -f "$empty"
    root=$cache/torch3.14 lib=$cache/torch3.14/usr/lib/x86_64-linux-gnu
    # shellcheck disable=SC2086
    "$here/fetch-debian.sh" sid "$root" $packages libpython3.14-dev && runnable "$root" 3.14 || exit 1
    # Not installed, so no ld.so.conf and no alternatives: the interpreter's
    # DT_RPATH names the root's library folders (the BLAS and LAPACK the
    # alternatives would pick), and torch's extension searches them too (its
    # RUNPATH would hide the interpreter's RPATH from what it loads).
    patchelf --force-rpath --set-rpath "$lib:$lib/blas:$lib/lapack:$root/usr/lib" "$root/usr/bin/python3.14"
    for ext in "$root"/usr/lib/python3/dist-packages/torch/_C.*.so; do
        patchelf --force-rpath --set-rpath "\$ORIGIN/lib:$lib:$lib/blas:$lib/lapack:$root/usr/lib" "$ext"
    done
    env -u PYTHONHOME -u PYTHONPATH "$root/usr/bin/python3.14" -c 'import torch; print("memgrow: torch", torch.__version__, "for CPython 3.14:", "'"$root/usr/bin/python3.14"'")'
    exit
fi
[ $# -gt 0 ] || set -- 3.13 3.14 3.15
for v in "$@"; do
    dest=$cache/python$v
    if "$here/fetch-debian.sh" sid "$dest" libc6 "python$v-minimal" "libpython$v-minimal" \
        "libpython$v-stdlib" "libpython$v" "libpython$v-dev" libssl3t64 && runnable "$dest" "$v"; then
        echo "memgrow: CPython $v for the tests: $dest/usr/bin/python$v"
    else
        echo "memgrow: no CPython $v for the tests: its Python tests will fail" >&2
        status=1
    fi
done

# pip and pytest for sid's interpreters, which Debian packages apart from
# them: test_wheel.py installs memgrow's wheel into a fresh 3.14 venv with
# this pip (Debian 12's 23.0 does not run on 3.12 and later) and runs this
# pytest there (on PYTHONPATH).
if "$here/fetch-debian.sh" sid "$cache/pip-sid" python3-pip-whl python3-pytest python3-pluggy \
    python3-iniconfig python3-packaging python3-pygments; then
    echo "memgrow: sid's pip wheel and pytest for the wheel's test: $cache/pip-sid"
else
    echo "memgrow: no pip or pytest of sid's: test_wheel.py fails on 3.14" >&2
    status=1
fi

# The symbols of sid's glibc, which Debian strips: memcheck cannot start
# on these interpreters without those of their ld.so (bench/run.py
# --python 3.15 hands them to every Valgrind tool). Their own folder, so
# that the interpreters' folders stay as the tests use them.
if "$here/fetch-debian.sh" sid "$cache/glibc-dbg-sid" libc6-dbg; then
    echo "memgrow: sid's glibc symbols for bench/run.py: $cache/glibc-dbg-sid"
else
    echo "memgrow: no symbols of sid's glibc: bench/run.py --python 3.15 runs no memcheck" >&2
fi

old=${MEMGROW_PYTHON312:-$cache/python3.12}
if [ -d "$old" ]; then
    if runnable "$old" 3.12; then
        echo "memgrow: CPython 3.12 for the tests: $old/usr/bin/python3.12"
    else
        status=1
    fi
elif [ -x "$old" ]; then
    echo "memgrow: CPython 3.12 for the tests: $old"
else
    echo "memgrow: no CPython 3.12 (not in Debian's archive; MEMGROW_PYTHON312 may name one): the tests say 3.12 is not tested"
fi
exit $status
