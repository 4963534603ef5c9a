# SPDX-License-Identifier: GPL-2.0-or-later
"""Allocations from known lines, for the Python attribution tests.

Each case allocates one bytearray of a size no other code uses (the block is
size + 1 bytes) on the line marked `# GOLDEN <case>`, and keeps it alive.
test_python_frames.py finds each block's site in the report and checks its
Python frames. With GOLDEN_TRACEMALLOC=1 the script prints, for each case,
the line tracemalloc gives the same object, as a cross-check.
"""
import asyncio
import json
import os
import sqlite3
import sys
import threading

KEEP = {}
SIZES = {
    "plain": 100_001, "method": 100_002, "lambda": 100_003, "listcomp": 100_004,
    "generator": 100_005, "async": 100_006, "recursion": 100_007, "thread": 100_008,
}


def plain():
    KEEP["plain"] = bytearray(SIZES["plain"])  # GOLDEN plain


class Service:
    def handle(self):
        KEEP["method"] = bytearray(SIZES["method"])  # GOLDEN method


make = lambda: bytearray(SIZES["lambda"])  # GOLDEN lambda


def listcomp():
    KEEP["listcomp"] = [bytearray(SIZES["listcomp"]) for _ in range(1)][0]  # GOLDEN listcomp


def generator():
    yield bytearray(SIZES["generator"])  # GOLDEN generator


async def coroutine():
    await asyncio.sleep(0)
    KEEP["async"] = bytearray(SIZES["async"])  # GOLDEN async


def recurse(n):
    if n == 0:
        KEEP["recursion"] = bytearray(SIZES["recursion"])  # GOLDEN recursion
    else:
        recurse(n - 1)  # GOLDEN recursion-caller


def worker(conn):
    KEEP["thread"] = bytearray(SIZES["thread"])  # GOLDEN thread
    # sqlite3 releases the GIL while it runs: its allocations still belong
    # to this thread's Python frames.
    conn.execute("create table t (x blob)")
    conn.executemany("insert into t values (?)", [(b"x" * 3000,)] * 200)  # GOLDEN sqlite
    conn.commit()


def main():
    plain()
    Service().handle()  # GOLDEN method-caller
    KEEP["lambda"] = make()
    listcomp()
    KEEP["generator"] = next(generator())
    asyncio.run(coroutine())
    recurse(40)
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    t = threading.Thread(target=worker, args=(conn,))
    t.start()
    t.join()
    # A C extension: the encoder's output string, built in _json.
    KEEP["json"] = json.dumps({"k%d" % i: "v" * 50 for i in range(3000)})  # GOLDEN json
    if os.environ.get("GOLDEN_TRACEMALLOC"):
        report_tracemalloc()
    print("golden", len(KEEP))


def report_tracemalloc():
    import tracemalloc
    for name in SIZES:
        tb = tracemalloc.get_object_traceback(KEEP[name])
        frame = tb[-1] if tb else None  # oldest first: the allocating frame is last
        print("tracemalloc %s %s:%s" % (name, os.path.basename(frame.filename) if frame else "-",
                                        frame.lineno if frame else 0))


if __name__ == "__main__":
    if os.environ.get("GOLDEN_TRACEMALLOC"):
        import tracemalloc
        tracemalloc.start(25)
    main()
    sys.stdout.flush()
