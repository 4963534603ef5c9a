"""python_loop.py: an allocation-heavy Python loop for the memgrow benchmark.

    python3 python_loop.py [ITERATIONS [grow|flat]]

Each iteration builds short-lived objects (a small dict, a list of ints,
a formatted string, a tuple, a bytes join), keeps some of them in a bounded
ring of RING slots, and, in "grow" mode (the default), adds one entry to a
module-level dict (a cache that is never cleared) every GROW_EVERY
iterations: the slowly growing site. "flat" disables the growing dict.

The growing dict is module-level on purpose: it is still live when
Py_FinalizeEx() begins, the point where memgrow classifies a Python process,
as a real leaking cache would be. (Were it a local of main(), it would be
freed when main() returns, just before finalisation.)

Run with PYTHONMALLOC=malloc to make every object its own heap block (what
memcheck, massif, dhat, heaptrack and memgrow then attribute to call
stacks); with the default allocator small objects live in pymalloc arenas.
Standard library only.
"""

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
    if mode not in ("grow", "flat"):
        sys.stderr.write("usage: python_loop.py [ITERATIONS [grow|flat]]\n")
        return 64
    grow = mode == "grow"

    ring = [None] * RING
    growing = CACHE
    total = 0
    for i in range(iters):
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
