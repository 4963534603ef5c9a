# SPDX-License-Identifier: GPL-2.0-or-later
"""A NumPy service (issue 17): a line that makes only temporary arrays, a
bounded deque of results, a list that keeps one small array in three.
NumPy keeps freed small data buffers and dimension arrays in its own caches
and hands them out again without malloc: the kept arrays' buffers are
mostly revived from the temporaries'. The temporaries' line is stable, the
deque's line a plateau, the keeping line growing."""
import collections

import numpy as np

recent = collections.deque(maxlen=1500)
kept = []


def handle(i):
    x = np.arange(8, dtype=np.float64) * (i % 5) + 1.0  # NP_TEMP: temporaries only
    recent.append(np.full(4, i % 9, dtype=np.int64))  # NP_RECENT
    if i % 3 == 0:
        kept.append(np.full(3, i, dtype=np.int32))  # NP_KEEP
    return float(x.sum())


total = 0.0
for i in range(12000):
    total += handle(i)
print(len(recent), len(kept), total)
