# SPDX-License-Identifier: GPL-2.0-or-later
"""A service loop that knows nothing of memgrow: handle() keeps 200 bytes of
every request, Worker.work keeps nothing. Run with --mark-at=__main__:handle
(argv[1]: requests)."""
import sys

kept = []


def handle(i):
    payload = [i] * 8  # a temporary per request
    kept.append(bytes(200))  # KEEP_PER_REQUEST
    return len(payload)


class Worker:
    def work(self, i):
        return str(i) * 2


worker = Worker()
for i in range(int(sys.argv[1])):
    handle(i)
    worker.work(i)
print(len(kept))
