# SPDX-License-Identifier: GPL-2.0-or-later
"""A service that calls a leaky C extension once per request (argv[1]: the
directory of the built leaky_ext module; argv[2]: requests)."""
import sys

sys.path.insert(0, sys.argv[1])
import leaky_ext  # noqa: E402

kept = []
for i in range(int(sys.argv[2])):
    leaky_ext.lose_malloc()  # EXT_MALLOC
    leaky_ext.lose_reference()  # EXT_REF
    scratch = [i] * 16  # a temporary per request
print(len(kept))
