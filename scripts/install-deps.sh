#!/bin/sh
# Installs the Debian packages memgrow needs to build and test, if missing.
# Run as root (or with sudo) on Debian 12.
set -eu
packages="build-essential autoconf automake pkg-config valgrind python3 libboost-test-dev nlohmann-json3-dev libcli11-dev libfmt-dev"
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
