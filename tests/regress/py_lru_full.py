# SPDX-License-Identifier: GPL-2.0-or-later
"""A full functools.lru_cache(maxsize=32) over ever-new keys whose values
grow: its links are recycled, and the values are held by one holder, the
wrapper; the bound on the number of values bounds no bytes, as they grow."""
import functools


@functools.lru_cache(maxsize=32)
def render(n):
    return "r" * (n * 50)  # LRU_FULL_VALUE


for i in range(1, 3001):
    render(i)
