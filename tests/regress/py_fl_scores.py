# SPDX-License-Identifier: GPL-2.0-or-later
"""Per-request scores in a temporary list of floats beside a bounded deque
of records that hold other lists (issue 17): the records' lists are mostly
revived from the free list the score lists went to. The scores line is
stable, the record line a plateau."""
import collections

recent = collections.deque(maxlen=4000)


def handle(i):
    ids = list(range(i % 7, i % 7 + 12))  # FL_IDS: temporary
    scores = [t * 0.001 for t in ids]  # FL_SCORES: temporaries only
    best = ids[scores.index(max(scores))]
    recent.append({"id": i, "tags": [best, i, "r" * (300 + i % 2)]})  # FL_RECORD


for i in range(30000):
    handle(i)
print(len(recent))
