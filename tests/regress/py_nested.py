# SPDX-License-Identifier: GPL-2.0-or-later
"""Builds nested containers and keeps them in module globals, then leaves
with os._exit(0): interpreter finalization never runs, so the exit leak scan
sees every object alive, reachable from the interpreter's roots.

CPython's objects tracked by its cycle GC are pointed to past their GC header
(interior pointers for a leak scan) and dicts keep their values in arrays
pointed to from inside: without memgrow's cpython heuristic these are
"possibly lost"; with it they are reachable."""
import os


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y
        self.tags = [f"p{x}", f"q{y}"]


class Node:
    __slots__ = ("value", "children")

    def __init__(self, value):
        self.value = value
        self.children = []


def tree(depth, value=0):
    node = Node(value)
    if depth:
        node.children = [tree(depth - 1, value * 2 + k) for k in range(2)]
    return node


# dicts of lists of class instances with attributes
registry = {f"group{g}": [Point(g, i) for i in range(20)] for g in range(30)}
# tuples, sets, frozensets
pairs = tuple((i, str(i), (i, i + 1)) for i in range(300))
numbers = {i * 7 for i in range(500)}
frozen = frozenset(f"name{i}" for i in range(300))
by_frozen = {frozenset((i, i + 1)): {i, -i} for i in range(100)}
# nested lists
matrix = [[[i * j * k for k in range(4)] for j in range(8)] for i in range(16)]
forest = [tree(6, v) for v in range(8)]
mixed = [registry["group1"], pairs[:10], {"frozen": frozen, "matrix": matrix[:2]}]

print(len(registry), len(pairs), len(numbers), len(frozen), len(matrix), len(forest), flush=True)
os._exit(0)
