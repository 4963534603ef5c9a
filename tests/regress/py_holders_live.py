"""who_holds through vgdb (docs/holders.md): a service fills an unbounded
dict and a bounded deque, says so, and waits for its stop file."""
import collections
import os
import sys
import time

STATS = {}
RECENT = collections.deque(maxlen=5000)
for i in range(1000):
    STATS["k%d" % i] = [i] * 4  # LIVE_STATS
    RECENT.append(("r%d" % i, i))  # LIVE_RECENT
print("ready", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
