# SPDX-License-Identifier: GPL-2.0-or-later
"""Buffers that only grow, each rebuilt longer every turn (issue 43, B11).
Under the bytes-allocated clock each step copies the whole buffer, so the
clock grows as the square of the turns while the buffers grow linearly; at
every rebuild the old copy and the new one are live together. The four
buffers sit in a deque with a bound (64 items) that bounds their count, not
their bytes."""
import collections

RECENT = collections.deque(maxlen=64)
LOG = [b'']
for i in range(4):
    RECENT.append(b'')
for i in range(1, 3001):
    RECENT.append(RECENT.popleft() + b'x' * 100)  # REBUILT_FOUR: 4 items, each 100 B longer a turn
    LOG[0] = LOG[0] + b'y' * 30  # REBUILT_ONE: one buffer, 30 B longer a turn
