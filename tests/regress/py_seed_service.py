# SPDX-License-Identifier: GPL-2.0-or-later
"""The seed pattern of docs/python.md: a service keeps its last 2,000
request records (each holding the request's token list) in a bounded deque,
and statistics of token bigrams in a dict that is never pruned. The dict's
lines grow (its keys, its table resizing in a staircase); the deque's lines
are a plateau; nothing else in this file grows or holds."""
import collections
import random

random.seed(7)
recent = collections.deque(maxlen=2000)
bigrams = {}


def tokenize():
    return ["tok%d" % random.randint(0, 5000) for _ in range(8)]  # TOKENS


def handle():
    tokens = tokenize()
    recent.append({"tokens": tokens, "n": len(tokens)})  # RECORD
    for a, b in zip(tokens, tokens[1:]):
        key = a + " " + b  # BIGRAM_KEY
        bigrams[key] = bigrams.get(key, 0) + 1  # BIGRAM_COUNT


for _ in range(20000):
    handle()
print(len(recent), len(bigrams))
