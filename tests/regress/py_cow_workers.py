# SPDX-License-Identifier: GPL-2.0-or-later
"""A dataset of small dicts read by two workers started the way argv[1]
names (fork, spawn, forkserver, or os.fork directly), each reading half of
it: a read changes each dict's reference count, so a forked worker copies
the pages its half spans. Further arguments: "collect" gives each record a
list (the garbage collector tracks it) and has each worker run a full
collection after its reads; "freeze" calls gc.freeze() before the workers
start (docs/pages.md says what that changes)."""
import gc
import multiprocessing
import multiprocessing.forkserver
import os
import sys

RECORDS = 50_000
DATA = []
COLLECT = "collect" in sys.argv[2:]


def load():
    DATA.extend([{"id": i, "tags": [] if COLLECT else "r"} for i in range(RECORDS)])  # DATASET_HERE


def work(half):
    lo, hi = half * len(DATA) // 2, (half + 1) * len(DATA) // 2
    seen = [rec for rec in DATA[lo:hi]]  # READ_HERE
    if COLLECT:
        gc.collect()  # COLLECT_HERE
    print("worker", half, "pid", os.getpid(), "read", len(seen), flush=True)


if __name__ == "__main__":
    how = sys.argv[1]
    load()
    if "freeze" in sys.argv[2:]:
        gc.freeze()
    if how == "os.fork":
        for half in range(2):
            pid = os.fork()
            if pid == 0:
                work(half)
                os._exit(0)
            os.waitpid(pid, 0)
    else:
        ctx = multiprocessing.get_context(how)
        for half in range(2):
            p = ctx.Process(target=work, args=(half,))
            p.start()
            p.join()
            assert p.exitcode == 0, p.exitcode
        if how == "forkserver":  # its report written before ours (it would outlive us)
            multiprocessing.forkserver._forkserver._stop()
    print("done", how)
