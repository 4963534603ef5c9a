# SPDX-License-Identifier: GPL-2.0-or-later
"""The last 5000 records in a collections.deque(maxlen=5000): it fills in the
first eighth of the loop, then every new record pushes out the oldest. The
records' line is a plateau. Each payload is a string of its own: a record
made only of dicts, lists and small ints is rebuilt from CPython's free
lists once the deque is full (3.14+), allocating nothing."""
import collections

recent = collections.deque(maxlen=5000)


def record(i):
    return {"id": i, "payload": "r" * (400 + i % 2), "tags": [i, i + 1]}  # DEQUE_RECORD


for i in range(40000):
    recent.append(record(i))
print(len(recent))
