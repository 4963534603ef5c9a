# SPDX-License-Identifier: GPL-2.0-or-later
"""Holders (docs/holders.md): a service whose memory is kept by structures
of every kind. Bounded ones a third full (a deque with maxlen, an lru_cache
with maxsize, and functools' pure-Python lru_cache, which serves where its C
accelerator is missing), one that fills (a queue.Queue with maxsize), unbounded ones
that only gain (a module dict, an instance attribute's list, a class
attribute's dict, a dict in a closure). Each line's memory must be named by
its holder, and classed by it: bounded holders make plateaus."""
import collections
import functools
import importlib.util
import queue
import sys

# functools run again without its C accelerator: its Python lru_cache.
_spec = importlib.util.find_spec("functools")
_accelerator = sys.modules.pop("_functools")
sys.modules["_functools"] = None
pyfunctools = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pyfunctools)
sys.modules["_functools"] = _accelerator

N = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
RECENT = collections.deque(maxlen=3 * N)  # a third full at the end
TOKEN_STATS = {}
JOBS = queue.Queue(maxsize=N // 10)  # fills early, then each put drops one


class RequestLog:
    def __init__(self):
        self._recent = []


class Cache:
    entries = {}


LOG = RequestLog()


def make_counter():
    seen = {}

    def count(key):
        seen[key] = ("c%d" % len(seen)) * 2  # CLOSURE_VALUE
        return len(seen)

    return count


COUNT = make_counter()


@functools.lru_cache(maxsize=3 * N)
def tokenize(text):
    return [w.upper() for w in text.split()]  # CACHED_TOKENS


@pyfunctools.lru_cache(maxsize=3 * N)
def split_words(text):
    return text.split()  # PY_CACHED_WORDS


def handle(i):
    text = "w%d x%d" % (i, i % 97)
    tokens = tokenize(text)
    split_words(text)
    RECENT.append([len(t) * 1000 + i for t in tokens])  # RECORD_IDS
    TOKEN_STATS["key%d" % i] = i  # STAT_KEY
    LOG._recent.append("r%d" % i)  # INSTANCE_ITEM
    Cache.entries[i] = "e%d" % i  # CLASS_ITEM
    COUNT(i)
    if JOBS.full():
        JOBS.get_nowait()
    JOBS.put("job%d" % i)  # QUEUE_ITEM


for i in range(N):
    handle(i)
print(len(RECENT), len(TOKEN_STATS), JOBS.qsize())
