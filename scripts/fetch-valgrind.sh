#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Unpacks the Valgrind of another Debian suite, with its glibc, into DEST so
# that memgrow can be built against it and tested under it
# (`configure --with-valgrind=DEST/usr`):
#
#   scripts/fetch-valgrind.sh SUITE DEST      (trixie: 3.24, sid: 3.27)
#
# Debian's usr/bin/valgrind wrapper runs usr/bin/valgrind.bin, which then
# looks for its tools in /usr; it is replaced by one that points the launcher
# at DEST's tools (VALGRIND_LIB, unless set, as the build tree's launcher
# does). The launcher runs on this machine's glibc (it needs 2.34): run
# through another ld.so, it would pass that ld.so to traced children as
# VALGRIND_LAUNCHER. vgdb needs a newer glibc and runs through the unpacked
# one's ld.so.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 SUITE DEST" >&2; exit 2; }
suite=$1 dest=$2
"$(dirname "$0")/fetch-debian.sh" "$suite" "$dest" valgrind libc6
bin=$dest/usr/bin
[ -f "$bin/vgdb.bin" ] || mv "$bin/vgdb" "$bin/vgdb.bin"
cat >"$bin/valgrind" <<'EOF'
#!/bin/sh
# Written by memgrow's scripts/fetch-valgrind.sh: this unpacked Valgrind.
usr=$(cd "$(dirname "$0")/.." && pwd)
VALGRIND_LIB=${VALGRIND_LIB:-$usr/libexec/valgrind} exec "$usr/bin/valgrind.bin" "$@"
EOF
cat >"$bin/vgdb" <<'EOF'
#!/bin/sh
# Written by memgrow's scripts/fetch-valgrind.sh: vgdb on its own glibc.
usr=$(cd "$(dirname "$0")/.." && pwd)
exec "$usr/lib64/ld-linux-x86-64.so.2" --library-path "$usr/lib/x86_64-linux-gnu" \
    "$usr/bin/vgdb.bin" "$@"
EOF
chmod +x "$bin/valgrind" "$bin/vgdb"
