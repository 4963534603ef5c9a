# SPDX-License-Identifier: GPL-2.0-or-later
"""Grows a global list of buffers, then clears it in an atexit handler: the
handler runs inside Py_FinalizeEx, after teardown began, so the growth must
still be reported."""
import atexit

kept = []


def grow(n):
    for i in range(n):
        kept.append(bytearray(4000 + i % 7))  # GROW_HERE


atexit.register(kept.clear)
grow(3000)
