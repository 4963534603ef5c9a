# SPDX-License-Identifier: GPL-2.0-or-later
"""The dict and float free lists: a temporary dict and temporary floats per
step, beside lists that keep a dict and a float every third step (revived
from the temporaries' free lists). The temporaries' lines are stable, the
keeping lines growing. The keeping lists are made whole at the start, so
that the keeping lines hold only what they keep (no list resizes)."""
N = 45000
kept_dicts = [None] * (N // 3)
kept_floats = [None] * (N // 3)


def step(i):
    tmp = {"a": i, "b": i + 1}  # FL_DICT_TEMP: temporary
    x = i * 0.5 + 1.5  # FL_FLOAT_TEMP: temporaries
    return tmp["a"] + int(x * 2.0)


total = 0
for i in range(N):
    total += step(i)
    if i % 3 == 0:
        kept_dicts[i // 3] = {"i": i}  # FL_DICT_KEEP
        kept_floats[i // 3] = i * 0.25  # FL_FLOAT_KEEP
print(total, len(kept_dicts), len(kept_floats))
