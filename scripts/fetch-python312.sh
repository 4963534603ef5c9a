#!/bin/sh
# Unpacks a CPython 3.12 runtime for the tests of Python attribution on 3.12
# (Debian 12 has only 3.11): Ubuntu 24.04's python3.12 3.12.3 with its own
# glibc, from archive.ubuntu.com, checked against pinned SHA-256 sums, into
# ${XDG_CACHE_HOME:-~/.cache}/memgrow/python3.12 (MEMGROW_PYTHON312 overrides).
# The interpreter runs through that glibc's ld.so; tests/regress/mgtest.py
# knows the command line. Nothing is installed system-wide.
set -eu
dest=${MEMGROW_PYTHON312:-${XDG_CACHE_HOME:-$HOME/.cache}/memgrow/python3.12}
[ -x "$dest/usr/bin/python3.12" ] && exit 0
pool=http://archive.ubuntu.com/ubuntu/pool/main
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while read -r sum path; do
    file=$(basename "$path")
    if ! (command -v curl >/dev/null && curl -fsSL -o "$tmp/$file" "$pool/$path" ||
          wget -q -O "$tmp/$file" "$pool/$path"); then
        echo "memgrow: cannot download $pool/$path: no CPython 3.12 for the tests" >&2
        exit 1
    fi
    echo "$sum  $tmp/$file" | sha256sum -c --quiet - || exit 1
    dpkg-deb -x "$tmp/$file" "$tmp/root"
done <<'DEBS'
af36c7ac770770fe3d3c10e85d6bc538e76e57570ba7db7d397fb9f654783ef3 g/glibc/libc6_2.39-0ubuntu8_amd64.deb
28ddd9458eee6592895865de205ee8bd173fc4107e3efd9be214ecb4dbb2b151 p/python3.12/libpython3.12-minimal_3.12.3-1_amd64.deb
d5428fb7fc16f2b930d6df489bdb69a94f72adb7ed21541c9e76f2d5c2a444e1 p/python3.12/libpython3.12-stdlib_3.12.3-1_amd64.deb
af9ce0b1da62af10ae8984d27638a7f6901cb20a2893fbedb72dc52fa53c87bc p/python3.12/python3.12-minimal_3.12.3-1_amd64.deb
DEBS
mkdir -p "$(dirname "$dest")"
rm -rf "$dest"
mv "$tmp/root" "$dest"
echo "memgrow: CPython 3.12 for the tests in $dest"
