#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Configures and builds memgrow out of tree in build/ (or $MEMGROW_BUILD).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${MEMGROW_BUILD:-$top/build}
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] || autoreconf -fi
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" -q
make -j"$(nproc)"
