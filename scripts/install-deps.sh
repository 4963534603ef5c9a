#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian packages memgrow needs to build and test, if missing.
# Run as root (or with sudo) on Debian 12.
set -eu
packages="build-essential autoconf automake pkg-config valgrind python3 libboost-test-dev nlohmann-json3-dev libcli11-dev libfmt-dev chromium clang libclang-rt-14-dev python3-jsonschema python3-torch python3-pytest python3-dev python3-venv python3-numpy patchelf systemtap-sdt-dev protobuf-compiler libprotobuf-dev golang-github-google-pprof-dev golang-go"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "memgrow: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# memgrow-report's HTML page bundles npm's d3-flame-graph at build time, and
# the tests read speedscope's schema and drive chromium with playwright-core:
# report/web/package.json pins them, npm ci installs them from its lock into
# report/web/node_modules (nodejs's npm, from Debian or nodejs.org).
if [ ! -f "$(dirname "$0")/../report/web/node_modules/.package-lock.json" ] ||
    [ "$(dirname "$0")/../report/web/package-lock.json" -nt "$(dirname "$0")/../report/web/node_modules/.package-lock.json" ]; then
    command -v npm >/dev/null || { echo "memgrow: error: npm is needed for report/web (nodejs)" >&2; exit 1; }
    (cd "$(dirname "$0")/../report/web" && npm ci --silent --no-audit --no-fund)
fi

# CPython 3.13, 3.14 and 3.15 for the Python tests (Debian 12 has only
# 3.11): Debian sid's, unpacked into a cache outside the tree. Without them
# the Python tests fail, and so does this script (at its end).
python_status=0
"$(dirname "$0")/fetch-python.sh" || python_status=1

# Debian 13's and sid's Valgrind (3.24, 3.27) with their glibc, which the tests
# build memgrow against and run it under (tests/versions/run.sh), unpacked
# from Debian's archive into a cache outside the tree.
for v in 3.24:trixie 3.27:sid; do
    "$(dirname "$0")/fetch-valgrind.sh" "${v#*:}" "${XDG_CACHE_HOME:-$HOME/.cache}/memgrow/valgrind-${v%:*}" ||
        echo "memgrow: warning: no Valgrind ${v%:*}: its tests will fail" >&2
done

# The official SARIF 2.1.0 JSON schema, which tests/regress/test_report_formats.py
# validates `memgrow-report sarif` against: not kept in this repository; taken
# from the npm package @microsoft/jest-sarif (lib/schemas/sarif-2.1.0-rtm.5.json)
# into a cache outside the tree (MEMGROW_SARIF_SCHEMA overrides the path), when
# npm is installed (nodejs's npm, from Debian or nodejs.org).
schema=${MEMGROW_SARIF_SCHEMA:-${XDG_CACHE_HOME:-$HOME/.cache}/memgrow/sarif-schema-2.1.0.json}
if [ ! -s "$schema" ] && command -v npm >/dev/null; then
    tmp=$(mktemp -d)
    if (cd "$tmp" && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null 2>&1 &&
        tar xzf microsoft-jest-sarif-*.tgz package/lib/schemas/sarif-2.1.0-rtm.5.json); then
        mkdir -p "$(dirname "$schema")"
        cp "$tmp/package/lib/schemas/sarif-2.1.0-rtm.5.json" "$schema"
        echo "memgrow: SARIF schema in $schema"
    else
        echo "memgrow: could not fetch the SARIF schema (npm); its test will be skipped" >&2
    fi
    rm -rf "$tmp"
fi

# The CUDA tests (docs/cuda.md) build against a CUDA 13 toolkit, which Debian
# does not package (NVIDIA's repository or the nvidia-*-cu13 wheels provide
# it); configure looks in /usr/local/cuda unless given --with-cuda=DIR.
if [ ! -f /usr/local/cuda/include/cuda.h ]; then
    echo "memgrow: no CUDA toolkit in /usr/local/cuda: the CUDA tests will fail unless configure is given --with-cuda=DIR" >&2
fi

[ "$python_status" = 0 ] ||
    { echo "memgrow: error: the test interpreters (scripts/fetch-python.sh) are missing" >&2; exit 1; }
