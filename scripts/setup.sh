#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what is missing, builds and installs memgrow, then runs it on a
# bundled example service whose memory grows.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
make -C "${MEMGROW_BUILD:-$top/build}" install >/dev/null
echo "memgrow: installed; running: valgrind --tool=memgrow examples/leaky_service"
out=$(mktemp -d)
valgrind --tool=memgrow --json-file="$out/leaky_service.json" \
    "${MEMGROW_BUILD:-$top/build}/examples/leaky_service"
echo "memgrow: the JSON report is $out/leaky_service.json"
