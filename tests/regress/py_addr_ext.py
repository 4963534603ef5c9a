# SPDX-License-Identifier: GPL-2.0-or-later
"""Calls addr_ext.c's bugs (the shared object is argv[1])."""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])


def total(n):
    return lib.off_by_one(n)  # PY_CALL_OFF_BY_ONE


def stale():
    return lib.after_free()  # PY_CALL_AFTER_FREE


total(24)
stale()
