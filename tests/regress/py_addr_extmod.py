# SPDX-License-Identifier: GPL-2.0-or-later
"""Calls py_addr_extmod.c's bugs (the module's directory is argv[1])."""
import sys

sys.path.insert(0, sys.argv[1])
import addr_extmod  # noqa: E402


def total(n):
    return addr_extmod.off_by_one(n)  # PY_EXTMOD_OFF_BY_ONE


def stale():
    return addr_extmod.after_free()  # PY_EXTMOD_AFTER_FREE


total(24)  # PY_EXTMOD_MAIN
stale()
