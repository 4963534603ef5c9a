# SPDX-License-Identifier: GPL-2.0-or-later
"""A generator-heavy loop: each step runs a generator that yields temporary
tuples, summed by a generator expression; every fourth step keeps a tuple
(revived from the free list the temporaries went to). The generators' lines
are stable, the keeping line growing."""
kept = []


def pairs(n):
    for k in range(n):
        yield (k, k * 2)  # FL_YIELD: temporary tuples


total = 0
for i in range(20000):
    total = sum(a + b for a, b in pairs(5))  # FL_GEN_SUM: temporaries
    if i % 4 == 0:
        kept.append((i + 1, i + 2, i + 3))  # FL_GEN_KEEP
print(total, len(kept))
