# SPDX-License-Identifier: GPL-2.0-or-later
"""A dict that gains a key to the very end of the run, its last resize in
the run's last third: the resize's peak (the old and the new table live
together) and the drop after it must not make the line a plateau.
argv[1]: the keys."""
import sys

N = int(sys.argv[1])
SEEN = {}
for i in range(N):
    SEEN[i + 10**9] = None  # DICT_GROW
print(len(SEEN))
