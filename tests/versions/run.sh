#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One Valgrind release besides the machine's own (docs/valgrind-versions.md):
# builds memgrow against it and runs the native suites and a Python smoke
# test under it, with the test programs and memgrow-report of the main build.
#
#   tests/versions/run.sh VERSION SUITE   (from make check: MG_BUILD_DIR, MG_SRC_DIR)
#
# The Valgrind is Debian SUITE's, which scripts/install-deps.sh unpacks with
# scripts/fetch-valgrind.sh into the cache; without it the test fails.
set -eu
version=$1 suite=$2
vg=${XDG_CACHE_HOME:-$HOME/.cache}/memgrow/valgrind-$version
if [ ! -x "$vg/usr/bin/valgrind" ]; then
    echo "no Valgrind $version in $vg: run scripts/fetch-valgrind.sh $suite $vg" >&2
    exit 1
fi
build=$MG_BUILD_DIR/valgrind-$version
mkdir -p "$build"
cd "$build"
# Configured once per release the cache holds (sid moves on).
have=$(sed -n 's/^VALGRIND_VERSION = //p' Makefile 2>/dev/null || true)
if [ "$have" != "$("$vg/usr/bin/valgrind" --version | sed 's/^valgrind-//')" ]; then
    "$MG_SRC_DIR/configure" -q --with-valgrind="$vg/usr" >configure.out 2>&1 ||
        { cat configure.out; exit 1; }
fi
# Only what depends on the Valgrind: the tool, its preload and launcher.
make -s vg-in-place
MG_VALGRIND=$build/vg-in-place MG_VGDB=$vg/usr/bin/vgdb
export MG_VALGRIND MG_VGDB
"$MG_VALGRIND" --version
status=0
# Growth classes, leak totals against this release's memcheck (at exit and
# on demand: MEMGROW_LEAK_CHECK, vgdb and memcheck.h's requests, programs
# that follow memcheck's own leak tests), errors, the records behind the
# report, memcheck's checks of this release, the client arena's bookkeeping
# (its layout is the core's) and RLIMIT_AS; then Python frames read under it.
for suite in test_classes test_leaks \
    "test_leak_check LeakCheckOnDemand LeakCheckOverVgdb MemcheckMonitorArguments MemcheckLeakRequests MemcheckBlockList ErrorExitcode LeakCheckModes Parsers" \
    test_memcheck_leaks test_errors test_alloc_checks test_records test_limits \
    "test_python PythonModule.test_dash_m_warm_up_ends_when_the_module_runs"; do
    # shellcheck disable=SC2086
    set -- $suite
    echo "=== $* under Valgrind $version"
    name=$1
    shift
    python3 "$MG_SRC_DIR/tests/regress/$name.py" "$@" || status=1
done
exit $status
