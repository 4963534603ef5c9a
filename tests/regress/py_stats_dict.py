# SPDX-License-Identifier: GPL-2.0-or-later
"""A request loop that keeps statistics per user in a dict that is never
pruned: every new user adds an entry. The entry's line grows."""
import random

random.seed(2)
stats = {}


def handle(i):
    user = "user-%d" % i  # a new user for every request
    body = bytearray(random.randint(200, 3000))  # temporary: freed on return
    entry = stats.get(user)
    if entry is None:
        stats[user] = {"count": 0, "bytes": 0, "last": [0] * 8}  # STATS_INSERT
        entry = stats[user]
    entry["count"] += 1
    entry["bytes"] += len(body)


for i in range(30000):
    handle(i)
print(len(stats))
