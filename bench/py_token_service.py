# SPDX-License-Identifier: GPL-2.0-or-later
"""A token-statistics service of about 60 lines, the workload of issue 19's
page and `show` targets (bench/report_pages.py runs it under memgrow):

- the last 2,000 request records (each with its token list) in a bounded
  deque: a plateau;
- statistics of token bigrams and per-user counters in dicts never pruned:
  growing;
- per-request temporaries (scores, a normalised copy, a summary string):
  stable.

    python3 bench/py_token_service.py [REQUESTS]   (default 6000)
"""
import collections
import random
import sys

random.seed(11)
recent = collections.deque(maxlen=2000)
bigrams = {}
users = collections.defaultdict(int)


def tokenize(n):
    return ["tok%d" % random.randint(0, 5000) for _ in range(n)]


def score(tokens):
    scores = [len(t) * 0.001 for t in tokens]  # a temporary per request
    return sum(scores) / max(1, len(scores))


def normalise(tokens):
    return [t.upper() for t in tokens if not t.endswith("0")]


def record(user, tokens):
    recent.append({"user": user, "tokens": tokens, "n": len(tokens)})


def count(tokens):
    for a, b in zip(tokens, tokens[1:]):
        key = a + " " + b
        bigrams[key] = bigrams.get(key, 0) + 1


def handle(i):
    user = "user%d" % (i % 700)
    tokens = tokenize(6 + i % 5)
    summary = "%s:%.3f:%d" % (user, score(tokens), len(normalise(tokens)))
    record(user, tokens)
    count(tokens)
    users[user] += len(summary)


def main():
    requests = int(sys.argv[1]) if len(sys.argv) > 1 else 6000
    for i in range(requests):
        handle(i)
    print(len(recent), len(bigrams), len(users))


main()
