# SPDX-License-Identifier: GPL-2.0-or-later
"""Growth spread thin (docs/holders.md): each of 10,000 code objects made by
compile() keeps one small bytearray in a global list. No single line grows
enough to be a finding of its own (each compiled snippet is a Python site of
its own), but the list that keeps them all grows in a straight line: the
holder's finding must show it."""
import sys

N = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
KEPT = []

for i in range(N):
    code = compile("KEPT.append(bytearray(%d))" % (40 + i % 8), "<snippet %d>" % i, "exec")
    exec(code)  # SNIPPET
print(len(KEPT))
