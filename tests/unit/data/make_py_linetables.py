# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes py-linetables.json: real CPython location tables (co_linetable)
with the line of every code unit as co_lines() gives it, for the unit test
of core/py_linetable.hpp. Run with the Python whose tables to capture:
    python3 tests/unit/data/make_py_linetables.py > tests/unit/data/py-linetables.json
"""
import json
import sys

# Shapes that exercise every entry form: short and one-line forms, negative
# deltas (loops jump back), no-location entries (cleanup code), long forms
# with multi-chunk varints (lines far apart, a function deep in a file).
SOURCE = '''
def simple(a, b):
    c = a + b
    return [c] * 3

def loops(n):
    total = 0
    for i in range(n):
        if i % 3:
            total += i
        else:
            total -= 1
    while total > 10:
        total //= 2
    return total

def handler(x):
    try:
        return 1 / x
    except ZeroDivisionError as e:
        return str(e)
    finally:
        x = None

def gen(n):
    for i in range(n):
        yield {
            "i": i,
            "sq": i * i,
        }
''' + "\n" * 4000 + '''
def far_away(items):
    out = {k: v for k, v in items
           if v}
    return sorted(out,
                  key=lambda k: (
                      len(k),
                      k))
'''


def codes(code):
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_linetable"):
            yield from codes(const)


def main():
    cases = []
    for code in codes(compile(SOURCE, "linetables.py", "exec")):
        lines = [-1] * (len(code.co_code) // 2)
        for start, end, line in code.co_lines():
            for unit in range(start // 2, end // 2):
                lines[unit] = -1 if line is None else line
        cases.append({"name": code.co_qualname, "first_line": code.co_firstlineno,
                      "table": list(code.co_linetable), "lines": lines})
    json.dump({"python": sys.version.split()[0], "cases": cases}, sys.stdout, indent=None)
    print()


main()
