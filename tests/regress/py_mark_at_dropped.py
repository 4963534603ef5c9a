# SPDX-License-Identifier: GPL-2.0-or-later
"""A service loop run with --mark-at=__main__:handle that drops the hook
(sys.setprofile(None), as a profiler or test harness of its own would) after
100 of its 3,000 calls; handle() keeps a line every fourth call, to the end
(argv[1]: calls)."""
import sys

kept = []


def handle(i):
    if i % 4 == 0:
        kept.append("x" * 200 + str(i))  # KEPT_TO_THE_END
    return len(kept)


for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3000):
    handle(i)
    if i == 99:
        sys.setprofile(None)
print(len(kept))
