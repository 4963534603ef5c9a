# SPDX-License-Identifier: GPL-2.0-or-later
"""who_holds through vgdb (docs/holders.md): a service fills an unbounded
dict, two bounded deques (one of them full, of bytearrays) and a list local
to the function that serves, says so, and waits for its stop file in that
function."""
import collections
import os
import sys
import time

STATS = {}
RECENT = collections.deque(maxlen=5000)
RING = collections.deque(maxlen=50)


def serve(stop):
    batch = []
    for i in range(1000):
        STATS["k%d" % i] = [i] * 4  # LIVE_STATS
        RECENT.append(("r%d" % i, i))  # LIVE_RECENT
        batch.append(["b%d" % i])  # LIVE_BATCH
        RING.append(bytearray(64))  # LIVE_RING
    print("ready", flush=True)
    while not os.path.exists(stop):
        time.sleep(0.05)
    return len(batch)


serve(sys.argv[1])
