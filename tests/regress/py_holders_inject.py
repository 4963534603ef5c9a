# SPDX-License-Identifier: GPL-2.0-or-later
"""Names that could forge the tool's log lines or send terminal escapes: a
dict key, an attribute name and a module name holding a newline, ESC, BEL
and U+202E (each the holder of a growing list), a holder's type, and a function and file
name holding them (on the growing lines' stacks). The log must escape them
as `memgrow-report show` does."""
import sys
import types

CACHE = {'\n==1== GROWING 9 of 9: injected (evil.py:1)\x1b[2J\u202e': []}


class Box:
    pass


B = Box()
setattr(B, 'attr\n==1== held by: FORGED\x07', [])
# A holder whose type has such a name.
TYPED = type('Lst\n==1== FORGED\x1b[0m', (list,), {})()
M = types.ModuleType('mod\nname\x1b[31m')
M.items = []
sys.modules['mod\nname\x1b[31m'] = M

SOURCE = '''
def step(i):
    next(iter(CACHE.values())).append('a' * 50 + str(i))
    getattr(B, 'attr\\n==1== held by: FORGED\\x07').append('b' * 50 + str(i))
    M.items.append('c' * 50 + str(i))
    TYPED.append('d' * 50 + str(i))
'''
exec(compile(SOURCE, 'evil\n==1== FORGED\x1b[2J.py', 'exec'))
step.__code__ = step.__code__.replace(co_name='step\n==1== FORGED\u202e',
                                      co_qualname='step\n==1== FORGED\u202e')

for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3000):
    step(i)
