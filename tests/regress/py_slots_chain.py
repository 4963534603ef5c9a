# SPDX-License-Identifier: GPL-2.0-or-later
"""A linked list of __slots__ nodes whose head is a module global: the
nodes are held by the global, named by its variable (`__main__.CHAIN`), not
by the module. argv[1]: the nodes."""
import sys


class Node:
    __slots__ = ("next", "payload")

    def __init__(self, nxt, i):
        self.next = nxt
        self.payload = [i]  # CHAIN_PAYLOAD


CHAIN = None
for i in range(int(sys.argv[1])):
    CHAIN = Node(CHAIN, i)  # CHAIN_NODE
print("ok")
