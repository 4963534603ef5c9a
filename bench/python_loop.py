# SPDX-License-Identifier: GPL-2.0-or-later
"""python_loop.py: an allocation-heavy Python loop for the memgrow benchmark.

    python3 python_loop.py [ITERATIONS [grow|flat] [fork]]

Each iteration builds short-lived objects (a small dict, a list of ints,
a formatted string, a tuple, a bytes join), keeps some of them in a bounded
ring of RING slots, and, in "grow" mode (the default), adds one entry to a
module-level dict (a cache that is never cleared) every GROW_EVERY
iterations: the slowly growing site. "flat" disables the growing dict.
"fork" runs a tenth of the iterations in the process and the rest in a
forked child that inherits the ring and the dict (the parent waits): what
a forked child's store checks cost (memgrow's --fork-pages).

The growing dict is module-level on purpose: it is still live when
Py_FinalizeEx() begins, the point where memgrow classifies a Python process,
as a real leaking cache would be. (Were it a local of main(), it would be
freed when main() returns, just before finalisation.)

Run with PYTHONMALLOC=malloc to make every object its own heap block (what
memcheck, massif, dhat, heaptrack and memgrow then attribute to call
stacks); with the default allocator small objects live in pymalloc arenas.
Standard library only.
"""

import os
import sys

RING = 2048
GROW_EVERY = 16
CACHE = {}  # the growing dict


def make_record(i):
    # A small dict, a list and a string per call: three or more blocks.
    return {"id": i, "name": "item-%d" % i, "tags": [i, i + 1, i + 2]}


def churn(i):
    # Short-lived objects only: everything here is garbage on return.
    parts = [str(i * k) for k in range(4)]
    joined = ",".join(parts)
    t = tuple(parts)
    return len(joined) + len(t)


def main(argv):
    iters = int(argv[1]) if len(argv) > 1 else 200000
    mode = argv[2] if len(argv) > 2 else "grow"
    fork = argv[3:] == ["fork"]
    if mode not in ("grow", "flat") or argv[3:] not in ([], ["fork"]):
        sys.stderr.write("usage: python_loop.py [ITERATIONS [grow|flat] [fork]]\n")
        return 64
    grow = mode == "grow"

    ring = [None] * RING
    growing = CACHE
    total = 0
    for i in range(iters):
        if fork and i == iters // 10:
            sys.stdout.flush()
            pid = os.fork()
            if pid:
                return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        rec = make_record(i)
        total += churn(i)
        ring[i % RING] = rec
        if i % 5 == 0:
            ring[(i * 7) % RING] = ("k%d" % i).encode() * (1 + i % 7)
        if grow and i % GROW_EVERY == 0:
            growing["key-%d" % i] = [i] * 4
    print("python_loop: %d iterations, %s, growing dict %d entries, total %d"
          % (iters, mode, len(growing), total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
