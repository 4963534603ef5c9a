# SPDX-License-Identifier: GPL-2.0-or-later
"""A dict that grows and a deque(maxlen=6000) a half full: the deque's line
is a plateau by the bounded-holder rule, with or without the exit's leak
report (--leak-check=no) and the teardown scan (--teardown-scan=no)."""
import collections

STATS = {}
RECENT = collections.deque(maxlen=6000)


def handle(i):
    STATS[i] = "x" * 50 + str(i)
    RECENT.append(bytearray(40))  # BASE_RECENT


for i in range(3000):
    handle(i)
