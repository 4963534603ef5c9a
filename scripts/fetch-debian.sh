#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Unpacks Debian packages of another suite (trixie, sid, ...) into a folder,
# for the tests that need a newer CPython or Valgrind than this machine has.
#
#   scripts/fetch-debian.sh SUITE DEST PACKAGE...
#   scripts/fetch-debian.sh SUITE --index     (only refresh SUITE's index)
#
# Uses apt itself with a private configuration built from the machine's
# configured Debian source (its own sources list naming SUITE, its own
# Dir::State::Lists and cache under ~/.cache/memgrow/apt/SUITE): `apt-get
# update` checks the suite's signed Release file and `apt-get download` each
# package's hash against it. Nothing is installed system-wide; each package is
# `dpkg-deb -x`'d into DEST. DEST/.packages records what is there, so a second
# call with the same packages and versions does nothing.
set -eu
[ $# -ge 3 ] || [ "${2:-}" = --index ] || { echo "usage: $0 SUITE DEST PACKAGE... | SUITE --index" >&2; exit 2; }
suite=$1 dest=$2
shift 2
cache=${XDG_CACHE_HOME:-$HOME/.cache}/memgrow/apt/$suite
mkdir -p "$cache/lists/partial" "$cache/archives/partial"

# The machine's Debian mirror: the first deb.debian-style URI of its sources
# (deb822 or one-line format), never a host written here.
mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -v security | head -n1)
if [ -z "$mirror" ]; then
    mirror=$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v security | head -n1)
fi
[ -n "$mirror" ] || { echo "memgrow: no Debian source configured in /etc/apt" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb [signed-by=$keyring] $mirror $suite main" >"$cache/sources.list"

apt_opts="-o Dir::Etc::SourceList=$cache/sources.list -o Dir::Etc::SourceParts=/dev/null
 -o Dir::State::Lists=$cache/lists -o Dir::Cache=$cache -o Dir::Cache::archives=$cache/archives
 -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o APT::Get::List-Cleanup=0"

# One fetch per suite at a time (tests and scripts may run side by side).
exec 9>"$cache/lock"
flock 9

# Refresh the index once a day.
if [ -z "$(find "$cache/lists" -name '*Packages*' -mtime -1 2>/dev/null | head -n1)" ]; then
    # shellcheck disable=SC2086
    apt-get $apt_opts update -qq >/dev/null ||
        { echo "memgrow: apt-get update of Debian $suite failed" >&2; exit 1; }
fi

[ "$dest" != --index ] || exit 0

want=""
for p in "$@"; do
    # shellcheck disable=SC2086
    v=$(apt-cache $apt_opts show --no-all-versions "$p" 2>/dev/null | sed -n 's/^Version: //p' | head -n1)
    [ -n "$v" ] || { echo "memgrow: Debian $suite has no package $p" >&2; exit 1; }
    want="$want$p=$v
"
done
if [ -f "$dest/.packages" ] && [ "$(cat "$dest/.packages")" = "$(printf %s "$want")" ]; then
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046,SC2086
(cd "$cache/archives" && apt-get $apt_opts download -qq $(printf %s "$want") >/dev/null) ||
    { echo "memgrow: apt-get download from Debian $suite failed" >&2; exit 1; }
for p in "$@"; do
    # apt names the file with the epoch, its colon escaped (valgrind_1%3a3.24.0-3_amd64.deb).
    v=$(printf %s "$want" | sed -n "s/^$p=//p")
    deb="$cache/archives/${p}_$(printf %s "$v" | sed 's/:/%3a/')_"*.deb
    # shellcheck disable=SC2086
    dpkg-deb -x $deb "$tmp/root"
done
printf %s "$want" >"$tmp/root/.packages"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest"
mv "$tmp/root" "$dest"
echo "memgrow: Debian $suite's $* in $dest"
