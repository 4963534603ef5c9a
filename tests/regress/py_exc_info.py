# SPDX-License-Identifier: GPL-2.0-or-later
"""Failed requests keep sys.exc_info() in a list: each traceback pins its
frames and their locals (a buffer per request), so memory grows."""
import sys

errors = []


def parse(i):
    buffer = bytearray(1000 + i % 50)  # EXC_BUFFER: pinned by the traceback
    raise ValueError("bad request %d" % i)


def handle(i):
    try:
        parse(i)
    except ValueError:
        errors.append(sys.exc_info())  # EXC_STORE


for i in range(15000):
    handle(i)
print(len(errors))
