# SPDX-License-Identifier: GPL-2.0-or-later
"""Objects an extension's static registry also keeps (py_registry_ext.c):
those a module global holds too are held by the global, the others by the
registry. argv: the extension's folder, the requests."""
import sys

sys.path.insert(0, sys.argv[1])
import registry_ext  # noqa: E402

KEPT = []


def handle(i):
    record = bytearray(200)  # BOTH_HERE
    KEPT.append(record)
    registry_ext.remember(record)
    registry_ext.remember(bytearray(300))  # NATIVE_ONLY_HERE


for i in range(int(sys.argv[2])):
    handle(i)
print("registry", len(KEPT))
