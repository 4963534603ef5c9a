# SPDX-License-Identifier: GPL-2.0-or-later
"""CPython's own allocator (PYTHONMALLOC=pymalloc) maps its arenas with
mmap: a list of small tuples that grows each step takes a new arena now and
then, at the line that builds them (growing, in the "mapped" space)."""
import sys

keep = []


def step(i):
    keep.append([(i, j) for j in range(300)])  # GROW_HERE


for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 400):
    step(i)
