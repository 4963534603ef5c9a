# SPDX-License-Identifier: GPL-2.0-or-later
"""A steady request loop: each request allocates buffers and lists of
random sizes and drops them. Nothing grows."""
import random

random.seed(1)


def handle(i):
    body = bytearray(random.randint(100, 5000))
    parts = [str(j) * random.randint(1, 8) for j in range(random.randint(1, 40))]
    headers = {f"h{k}": k for k in range(random.randint(1, 10))}
    return len(body) + len(parts) + len(headers)


total = 0
for i in range(5000):
    total += handle(i)
print(total > 0)
