"""Makes 20,000 small objects (each a malloc block of its own under
PYTHONMALLOC=malloc, a slot in a pymalloc arena otherwise), then prints the
allocator the interpreter uses and the PYTHONMALLOC its children inherit."""
import os

import _testcapi

objects = [str(i) for i in range(20000)]
print("allocator", _testcapi.pymem_getallocatorsname())
print("environment", os.environ.get("PYTHONMALLOC"))
