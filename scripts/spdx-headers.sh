#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Gives every source file of the repository (git's tracked C, C++, Python,
# shell and JavaScript files, and extensionless shell scripts) an SPDX line
# naming its licence, where it has none; files that have one are left alone,
# so a second run changes nothing (COPYING, docs/install.md "Licences"):
#   C:                /* SPDX-License-Identifier: GPL-2.0-or-later */
#   C++, JavaScript:  // SPDX-License-Identifier: GPL-2.0-or-later
#   Python, shell:    # SPDX-License-Identifier: GPL-2.0-or-later  (after a #! line)
# as the first line. include/memgrow.h is BSD-3-Clause, as Valgrind's own
# valgrind.h and memcheck.h are BSD-style: programs compile its macros in.
#
#   scripts/spdx-headers.sh           adds the lines
#   scripts/spdx-headers.sh --check   lists the files without one; exit 1 if any
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
check=no
[ "${1:-}" = --check ] && check=yes

licence() {
    case $1 in
    include/memgrow.h) echo BSD-3-Clause ;;
    *) echo GPL-2.0-or-later ;;
    esac
}

list=$(mktemp)
trap 'rm -f "$list"' EXIT
git ls-files | while IFS= read -r f; do
    [ -f "$f" ] || continue
    case $f in
    *.c | *.h) style=c ;;
    *.cpp | *.hpp | *.cu | *.js) style=cxx ;;
    *.py | *.sh) style=shell ;;
    *)
        case ${f##*/} in *.*) continue ;; esac
        head -n 1 "$f" | grep -q '^#!.*\(/sh\|/bash\|env sh\|env bash\)$' || continue
        style=shell
        ;;
    esac
    head -n 5 "$f" | grep -q 'SPDX-License-Identifier:' && continue
    echo "$f"
    [ $check = yes ] && continue
    id="SPDX-License-Identifier: $(licence "$f")"
    case $style in
    c) line="/* $id */" ;;
    cxx) line="// $id" ;;
    shell) line="# $id" ;;
    esac
    tmp=$f.spdx.$$
    if [ $style = shell ] && head -n 1 "$f" | grep -q '^#!'; then
        { head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } >"$tmp"
    else
        { echo "$line"; cat "$f"; } >"$tmp"
    fi
    chmod --reference="$f" "$tmp"
    mv "$tmp" "$f"
done >"$list"
if [ $check = yes ] && [ -s "$list" ]; then
    echo "spdx-headers: no SPDX-License-Identifier line in (scripts/spdx-headers.sh adds them):"
    cat "$list"
    exit 1
fi
[ $check = yes ] || echo "spdx-headers: $(wc -l <"$list") files given an SPDX line"
