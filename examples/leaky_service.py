# SPDX-License-Identifier: GPL-2.0-or-later
"""A toy request-serving loop in Python with three kinds of memory behaviour,
to see what memgrow reports (the twin of leaky_service.c):
- per-client statistics that are never evicted (grows without bound),
- a cache of recent responses capped at 2048 entries (fills, then holds),
- per-request scratch buffers dropped at the end of each request (stable).

    memgrow run examples/leaky_service.py
"""
import collections
import sys

import memgrow

STATS_BY_CLIENT = {}  # every client ever seen
RESPONSE_CACHE = collections.deque(maxlen=2048)  # the oldest is evicted


def stats_for(client):
    stats = STATS_BY_CLIENT.get(client)
    if stats is None:
        stats = STATS_BY_CLIENT[client] = [f"client-{client}", 0]  # grows: never evicted
    return stats


def handle(request):
    scratch = bytearray(2048)  # dropped below: stable
    scratch[:32] = f"response to request {request}".encode().ljust(32)
    stats_for(request // 4)[1] += 1  # a new client every 4 requests
    RESPONSE_CACHE.append(bytes(scratch[:32]))  # bounded: 2048 entries at most


def main():
    requests = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    for r in range(requests):
        handle(r)
        memgrow.mark("request")  # growth per request (a no-op natively)
    print(f"served {requests} requests")


if __name__ == "__main__":
    main()
