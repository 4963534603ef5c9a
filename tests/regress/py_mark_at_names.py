# SPDX-License-Identifier: GPL-2.0-or-later
"""--mark-at with a non-ASCII Python name: hände() keeps 100 bytes a call
(argv[1]: calls)."""
import sys

kept = []


def hände(i):
    kept.append(bytes(100))  # KEEP_PER_CALL
    return i


for i in range(int(sys.argv[1])):
    hände(i)
print(len(kept))
