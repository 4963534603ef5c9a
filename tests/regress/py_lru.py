# SPDX-License-Identifier: GPL-2.0-or-later
"""functools.lru_cache over ever-new keys (a new page every 30 requests):
bounded (maxsize=128) it fills in the first third of the run and is a
plateau, unbounded (maxsize=None) it grows. argv[1]: bounded|unbounded."""
import functools
import sys

maxsize = 128 if sys.argv[1] == "bounded" else None


@functools.lru_cache(maxsize=maxsize)
def render(key):
    return "<p>%s</p>" % key * 200  # LRU_RENDER


for i in range(12000):
    body = render("page-%d" % (i // 30)).encode()  # the response: temporary
print(render.cache_info().currsize)
