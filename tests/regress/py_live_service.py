# SPDX-License-Identifier: GPL-2.0-or-later
"""A request loop for the live-report tests: a statistics dict that is never
pruned (grows), a bounded deque of recent records (plateau), a mark per
request. argv: requests, then a file to wait for halfway (after printing
"half"), or "forever" to serve until killed."""
import collections
import os
import sys
import time

import memgrow

stats = {}
recent = collections.deque(maxlen=1000)


def handle(i):
    body = bytearray(20000)  # the request's body: temporary, and most of the clock
    key = "token-%d" % i
    stats[key] = [i, i * 2, i * 3]  # STATS_INSERT
    recent.append({"id": i, "size": len(body), "text": "r" * 200})  # RECENT_APPEND
    memgrow.mark("request")


requests = int(sys.argv[1])
wait_for = sys.argv[2] if len(sys.argv) > 2 else None
i = 0
while True:
    handle(i)
    i += 1
    if wait_for == "forever":
        if i % 200 == 0:
            time.sleep(0.05)  # let wall time pass between requests
        continue
    if i == requests // 2 and wait_for:
        print("half", flush=True)
        while not os.path.exists(wait_for):
            time.sleep(0.05)
    if i == requests:
        break
print("done", len(stats), len(recent), flush=True)
