#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds dist/memgrow-VERSION-py3-none-manylinux_2_NN_x86_64.whl from the
# build in build/ (or $MEMGROW_BUILD): `pip install` it and `memgrow run`
# works with no Valgrind and no build tools on the machine (docs/install.md).
# `make wheel` runs it. The wheel holds:
#   memgrow/                 the Python package (marks, leak_check, report, the
#                            pytest plugin, the `memgrow` command) and its
#                            client-request library
#   memgrow/_valgrind/bin/   the Valgrind launcher memgrow was built against,
#                            its vgdb, and memgrow-report with its C++ runtime
#                            and libraries inside (memgrow-report-static)
#   memgrow/_valgrind/lib/valgrind/
#                            the tool directory the launcher is pointed at
#                            (VALGRIND_LIB): Valgrind's core preload, default
#                            suppressions, gdbserver files, and memgrow's tool,
#                            preload, suppressions and Python package
#   memgrow-VERSION.dist-info/ with COPYING and LICENSES/ (what it bundles)
# The manylinux tag is the newest glibc symbol version any of its programs
# and libraries needs (objdump -T), so pip installs it only where it runs.
# Only the standard library of python3 writes the zip: no network, no
# setuptools or wheel package.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${MEMGROW_BUILD:-$top/build}" && pwd)
dist=${MEMGROW_DIST:-$top/dist}
mk() { sed -n "s/^$1 = //p" "$build/Makefile" | head -n 1; }
version=$(mk PACKAGE_VERSION)
launcher=$(mk VALGRIND)
vglib=$(mk SYSTEM_TOOLDIR)
if [ -z "$version" ] || [ -z "$launcher" ] || [ ! -d "$vglib" ]; then
    echo "build-wheel: $build is not a configured memgrow build (scripts/build.sh)" >&2
    exit 2
fi
make -C "$build" -s all memgrow-report-static python/memgrow/_version.py
# Debian's /usr/bin/valgrind and vgdb are shell wrappers around .bin programs.
[ -x "$launcher.bin" ] && launcher=$launcher.bin
vgdb=$(dirname "$launcher")/vgdb
[ -x "$vgdb.bin" ] && vgdb=$vgdb.bin

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pkg=$stage/memgrow
vg=$pkg/_valgrind
lib=$vg/lib/valgrind
mkdir -p "$vg/bin" "$lib/memgrow-python"
# The package as the build tree's launcher has it (make install's layout).
for f in "$build"/.in_place/memgrow-python/memgrow/*; do
    [ -d "$f" ] || cp -L "$f" "$pkg/"
done
cp "$launcher" "$vg/bin/valgrind"
cp "$vgdb" "$vg/bin/vgdb"
cp "$build/memgrow-report-static" "$vg/bin/memgrow-report"
cp "$build/memgrow-amd64-linux" "$build/vgpreload_memgrow-amd64-linux.so" \
    "$build/memgrow-default.supp" "$vglib/vgpreload_core-amd64-linux.so" "$vglib/default.supp" \
    "$vglib/getoff-amd64-linux" "$vglib"/64bit-*.xml "$vglib"/amd64-*.xml "$lib/"
# Under memgrow the tool puts its directory's memgrow-python on the client's
# PYTHONPATH (any interpreter the program starts imports memgrow): the same
# package again, as a wheel holds no links.
mkdir "$lib/memgrow-python/memgrow"
cp "$pkg"/*.py "$pkg/libmemgrow-client.so" "$lib/memgrow-python/memgrow/"
strip --strip-unneeded "$vg/bin/memgrow-report" "$pkg/libmemgrow-client.so" \
    "$lib/memgrow-python/memgrow/libmemgrow-client.so"

# The licences (docs/install.md, "Licences"): memgrow's, then the copyright
# files of what the programs bundle, as the packages they came from give them:
# Valgrind (the launcher, vgdb, the core linked into the tool, its preload and
# files); in memgrow-report, GCC's C++ runtime, fmt, protobuf, zlib,
# nlohmann-json, CLI11, pprof's profile.proto and the page's JavaScript (the
# npm modules of FLAME_LIB_JS; d3-array's build includes internmap).
lic=$stage/licenses
mkdir "$lic"
cp "$top/COPYING" "$lic/COPYING"
for p in valgrind libstdc++6 libfmt-dev libprotobuf-dev zlib1g nlohmann-json3-dev \
    libcli11-dev golang-github-google-pprof-dev; do
    cp "/usr/share/doc/$p/copyright" "$lic/$p.copyright"
done
for m in $(sed -n 's|.*(WEB_MODULES)/\([^/]*\)/dist/.*|\1|p' "$build/Makefile") internmap; do
    cp "$top/report/web/node_modules/$m/LICENSE" "$lic/npm-$m.LICENSE"
done

# The newest glibc symbol version needed: the manylinux_2_NN the wheel claims.
glibc=$(find "$pkg" -type f -exec sh -c 'head -c 4 "$1" | grep -q ELF && objdump -T "$1"' _ {} \; 2>/dev/null |
    sed -n 's/.*GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -t. -k1,1n -k2,2n -u | tail -n 1)
case $glibc in
2.*) ;;
*) echo "build-wheel: cannot tell the glibc version the programs need ('$glibc')" >&2; exit 1 ;;
esac
tag=py3-none-manylinux_$(echo "$glibc" | cut -d. -f1-2 | tr . _)_x86_64

python3 "$top/scripts/wheel_zip.py" --version "$version" --tag "$tag" --src "$top" \
    --stage "$stage" --out "$dist"
