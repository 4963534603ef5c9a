# SPDX-License-Identifier: GPL-2.0-or-later
"""Two functools.lru_cache functions fed new keys in one loop (issue 17):
one bounded (maxsize=128), one unbounded. The bounded one builds a list of
temporaries; the unbounded one keeps a list per key, and most of those
lists are revived from CPython's free list, where the bounded one's
temporaries went. The temporaries' line is stable, the kept lists' line
growing, the bounded cache (its links, made at the call) a plateau."""
import functools


@functools.lru_cache(maxsize=128)
def bounded(n):
    words = [str(n + k) for k in range(6)]  # FL_TEMP: temporaries only
    return len(",".join(words))


@functools.lru_cache(maxsize=None)
def unbounded(n):
    return [n, n + 1, n + 2]  # FL_KEEP: kept for ever


total = 0
for i in range(16000):
    total += bounded(i)  # FL_BOUNDED_CALL
    total += len(unbounded(i))  # FL_UNBOUNDED_CALL
print(total)
