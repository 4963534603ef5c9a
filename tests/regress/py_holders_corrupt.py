# SPDX-License-Identifier: GPL-2.0-or-later
"""Holders read client memory that may be garbage (docs/holders.md): a
growing list of records whose holder chain has a corrupted object on it (a
type pointer overwritten with a wild address, a dict whose keys table
pointer and sizes are garbage, a str whose length is huge), a self-cycle,
and a dict of a million keys. The program leaves with os._exit (the
interpreter would trip on its own corruption), so the holders are read at
exit's teardown from exactly these objects: memgrow must name what it can,
never crash nor hang."""
import ctypes
import os
import sys

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000


class Box:
    pass


BIG = {i: i for i in range(N)}  # BIG_DICT
KEPT = []
for i in range(3000):
    b = Box()
    b.payload = bytearray(64)  # CORRUPT_PAYLOAD
    KEPT.append(b)
CYCLE = []
CYCLE.append(CYCLE)
BAD_DICT = {"k%d" % i: bytearray(32) for i in range(500)}  # BAD_DICT_VALUE
BAD_STR = "x" * 100

word = ctypes.sizeof(ctypes.c_void_p)
# An instance's type pointer to a wild address.
ctypes.c_void_p.from_address(id(KEPT[10]) + word).value = 0xDEAD0000BEEF
# A dict's keys pointer to garbage, its size too large.
ctypes.c_void_p.from_address(id(BAD_DICT) + 4 * word).value = 0x10
ctypes.c_ssize_t.from_address(id(BAD_DICT) + 2 * word).value = 1 << 60
# A str's length far past its bytes.
ctypes.c_ssize_t.from_address(id(BAD_STR) + 2 * word).value = 1 << 50
print("corrupted", flush=True)
os._exit(0)
