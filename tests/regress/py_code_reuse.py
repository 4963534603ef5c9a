# SPDX-License-Identifier: GPL-2.0-or-later
"""Functions made and dropped one after another, each allocating a block of
its own size at the same instruction: a dropped function's code object is
freed, and the next one's often takes its address. memgrow remembers a
frame's token by (code object, instruction); each block must still name the
function that allocated it. Prints how many code objects reused an address
seen before."""
import sys

SOURCE = """
def {name}(n):
    pad = 0
    return bytearray(n)
"""

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
seen, reused, keep = set(), 0, []
for i in range(ROUNDS):
    ns = {}
    exec(compile(SOURCE.format(name="made_%d" % i), "made_%d.py" % i, "exec"), ns)
    fn = ns.pop("made_%d" % i)
    address = id(fn.__code__)
    reused += address in seen
    seen.add(address)
    keep.append(fn(50000 + 16 * i))
    del fn, ns
    # Push the freed code objects through memgrow's freed-block queue.
    junk = [bytes(2048) for _ in range(160)]
    del junk
print("code objects reused an address: %d of %d" % (reused, ROUNDS))
