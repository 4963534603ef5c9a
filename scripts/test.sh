#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what is missing, builds memgrow and runs the whole test suite
# (unit tests of the shared core, then the tool on real programs). This is
# what CI runs (.ci/run).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
cd "${MEMGROW_BUILD:-$top/build}"
if ! make -j"$(nproc)" check; then
    # A failed test's own log, last: CI keeps only the output's tail.
    for log in tests/*/*.log; do
        grep -q '^:test-result: \(FAIL\|ERROR\)' "${log%.log}.trs" 2>/dev/null &&
            { echo "=== $log"; tail -c 6000 "$log"; }
    done
    exit 1
fi
