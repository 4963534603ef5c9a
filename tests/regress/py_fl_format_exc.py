# SPDX-License-Identifier: GPL-2.0-or-later
"""traceback.format_exc() strings in a bounded deque beside a list of stored
sys.exc_info() tuples (issue 17): the tuples traceback.py makes under the
format line are temporaries and revived for the stored exc_info tuples.
The format line is a plateau (the strings), the store line growing."""
import collections
import sys
import traceback

recent = collections.deque(maxlen=1500)
errors = []


def parse(i):
    raise ValueError("bad request %d" % i)  # FL_RAISE


for i in range(6000):
    try:
        parse(i)
    except ValueError:
        recent.append(traceback.format_exc())  # FL_FORMAT
        if i % 2 == 0:
            errors.append(sys.exc_info())  # FL_STORE
print(len(recent), len(errors))
