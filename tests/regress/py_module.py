# SPDX-License-Identifier: GPL-2.0-or-later
"""Uses the memgrow module the way a service would: a mark per request, a
leak scan mid-run, a report written on demand (to argv[1]). Natively every
call is a no-op and the script still runs."""
import ctypes
import sys

import memgrow

REQUESTS = 100
kept = []


def handle(i):
    kept.append(bytearray(1000))  # GROWS_PER_MARK


for i in range(REQUESTS):
    handle(i)
    memgrow.mark("request")

# Blocks whose only pointers are dropped: definitely lost.
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
for _ in range(8):
    libc.malloc(4096)
print(f"lost {memgrow.leak_check()}", flush=True)
print(f"written {memgrow.report(sys.argv[1])}", flush=True)
print(f"running {memgrow.running()}", flush=True)
