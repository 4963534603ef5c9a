# SPDX-License-Identifier: GPL-2.0-or-later
"""A token service (issue 45 §6): per-token statistics in a module dict that
is never pruned (growing), the last requests in a bounded deque (a plateau),
and per-request temporaries (stable; on 3.14+ the floats come from and go
back to the float free list)."""
import collections
import math
import random
import sys

random.seed(3)
TOKEN_STATS = {}  # per-token statistics, never pruned: grows
RECENT = collections.deque(maxlen=500)  # the last requests: bounded


def tokenize(text):
    return [hash(w) % 50000 for w in text.split()]


def embed(input_ids):
    scores = [t * 0.001 for t in input_ids]  # TEMPORARIES: stable
    norm = math.sqrt(sum(s * s for s in scores))
    return [s / (norm or 1.0) for s in scores]


def record(input_ids, vec):
    for t in input_ids:
        key = "tok-%d" % t
        st = TOKEN_STATS.get(key)
        if st is None:
            st = TOKEN_STATS[key] = [0, 0.0]
        st[0] += 1
    RECENT.append((tuple(input_ids), sum(vec)))


def handle(i):
    words = " ".join("w%d" % random.randint(0, 10**6) for _ in range(8))
    ids = tokenize(words)
    vec = embed(ids)
    record(ids, vec)
    return len(vec)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    total = 0
    for i in range(n):
        total += handle(i)
    print("served", n, total, len(TOKEN_STATS))


main()
