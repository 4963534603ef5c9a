# SPDX-License-Identifier: GPL-2.0-or-later
"""Every request builds a reference cycle (a node and its parent point at
each other) and drops it: the cyclic garbage collector frees them, so
nothing grows."""
import gc


class Node:
    def __init__(self, parent=None):
        self.parent = parent
        self.children = []
        self.data = bytearray(500)  # CYCLE_DATA


def handle(i):
    root = Node()
    child = Node(root)  # CYCLE_CHILD
    root.children.append(child)


for i in range(20000):
    handle(i)
print(gc.collect() >= 0)
