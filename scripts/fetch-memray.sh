#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Unpacks Debian sid's memray (python3-memray, built for sid's CPython 3.14)
# with the Python packages its command line imports and the C++ runtime and
# unwinder its extension links against, into
# ${XDG_CACHE_HOME:-~/.cache}/memgrow/memray-sid (scripts/fetch-debian.sh:
# apt with a private configuration, nothing installed system-wide), for
# bench/run.py's memray rows (bench/README.md). It runs on the CPython 3.14
# of scripts/fetch-python.sh with PYTHONPATH set to the unpacked
# dist-packages and LD_LIBRARY_PATH to the unpacked libraries; the other
# libraries it needs (libdebuginfod, liblzma) are the machine's.
#
#   scripts/fetch-memray.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dest=${XDG_CACHE_HOME:-$HOME/.cache}/memgrow/memray-sid
"$here/fetch-debian.sh" sid "$dest" python3-memray python3-rich python3-jinja2 python3-textual \
    python3-markdown-it python3-mdit-py-plugins python3-linkify-it python3-uc-micro python3-pygments \
    python3-markupsafe python3-mdurl python3-platformdirs python3-typing-extensions \
    libstdc++6 libgcc-s1 libunwind8 liblz4-1
echo "memgrow: memray for bench/run.py --python 3.14: $dest"
