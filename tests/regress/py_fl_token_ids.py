# SPDX-License-Identifier: GPL-2.0-or-later
"""The seed pattern of issue 34 with token ids: a service keeps its last
2,000 request records, each holding the request's list of token ids, in a
bounded deque that fills early, counts tokens by id in a dict that is never
pruned, and makes a per-request list of scores that it drops. The ids are
ints made afresh per request (3.14+ keep ints on a free list, fed by the
counting line's lookups and by the draws random.randrange rejects, which
are often revived before the next malloc). The ids line and the record line
are a plateau, the counting line grows, the scores line is stable."""
import collections
import random

random.seed(34)
VOCAB = 4097  # just past a power of 2: randrange rejects half its draws
recent = collections.deque(maxlen=2000)
counts = {}


def handle(i):
    ids = [random.randrange(VOCAB) * 16 + i % 16 for _ in range(8)]  # FL_TOKEN_IDS
    for t in ids:
        counts[t + 0] = counts.get(t + 0, 0) + 1  # FL_TOKEN_COUNT
    scores = [counts[t] / (i + 1) for t in ids]  # FL_TOKEN_SCORES: temporaries only
    best = ids[scores.index(max(scores))]
    recent.append({"request": i, "ids": ids, "best": best})  # FL_TOKEN_RECORD


for i in range(20000):
    handle(i)
print(len(recent), len(counts))
