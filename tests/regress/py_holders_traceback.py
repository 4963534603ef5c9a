# SPDX-License-Identifier: GPL-2.0-or-later
"""traceback.format_exc() into a deque(maxlen=50) (issue 33): the formatted
strings are bounded by the deque, but the lines traceback.py reads and
formats are cached by the interpreter's own structures (linecache's dict of
source lines, per file). Whatever grows under traceback.py must name what
keeps it, and be classed by it."""
import collections
import sys
import traceback

N = int(sys.argv[1]) if len(sys.argv) > 1 else 6000
RECENT = collections.deque(maxlen=50)


def parse(i):
    raise ValueError("bad request %d" % (i % 7))  # TB_RAISE


for i in range(N):
    try:
        parse(i)
    except ValueError:
        RECENT.append(traceback.format_exc())  # TB_FORMAT
print(len(RECENT))
