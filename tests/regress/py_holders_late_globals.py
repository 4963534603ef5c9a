# SPDX-License-Identifier: GPL-2.0-or-later
"""A service whose namespace gains a few values at their first use, each
from a line of its own (40 snippets, a small list each, into globals made
at start-up: the namespace does not resize), halfway through the run, while
its bounded deque of records fills: each snippet's line stays under a
site's thresholds, so the namespace that holds them all is no plateau
holder either; the deque is the one plateau holder, and the records it
reaches through each other are part of it."""
import collections

for k in range(40):
    globals()[f"late{k}"] = None
recent = collections.deque(maxlen=6000)
for i in range(4000):
    recent.append({"id": i, "payload": "r" * (200 + i % 2)})  # LATE_RECORD
    if i == 2000:
        for k in range(40):
            exec(compile(f"late{k} = [{k}] * 8", f"<late{k}>", "exec"), globals())
print(len(recent))
