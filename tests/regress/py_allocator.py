# SPDX-License-Identifier: GPL-2.0-or-later
"""Makes 20,000 small objects (each a malloc block of its own under
PYTHONMALLOC=malloc, a slot in a pymalloc arena otherwise), then prints the
allocator the interpreter uses and the PYTHONMALLOC its children inherit."""
import os

try:
    from _testinternalcapi import pymem_getallocatorsname  # 3.13+
except ImportError:
    from _testcapi import pymem_getallocatorsname

objects = [str(i) for i in range(20000)]
print("allocator", pymem_getallocatorsname())
print("environment", os.environ.get("PYTHONMALLOC"))
