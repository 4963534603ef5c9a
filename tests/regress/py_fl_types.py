# SPDX-License-Identifier: GPL-2.0-or-later
"""Every free list of CPython 3.11 to 3.15 that Python code reaches, one
type per pair of lines (docs/python.md, "Free lists and caches"): `temps`
makes temporaries of each type, whose blocks go to its free list, and every
third step a keeping line makes one more, revived from that free list, and
keeps it. The temporaries' lines are stable, the keeping lines growing. The
keeping lists are made whole at the start, so that the keeping lines hold
only what they keep."""
import contextvars

N = 9000
kept = {}


class Handler:
    def meth(self):
        return 1


obj = Handler()
lst = [1, 2, 3]
tup = (1, 2, 3)


async def agen():
    yield 1


gen = agen()


def temps(i):
    a = i * 0.5  # T_FLOAT
    b = i * 1000 + 7  # T_INT
    c = (i, a)  # T_TUPLE
    d = [i, a]  # T_LIST
    e = {"k": i}  # T_DICT
    f = slice(i, None)  # T_SLICE
    g = iter(lst)  # T_LIST_ITER
    h = iter(tup)  # T_TUPLE_ITER
    r = range(i)  # T_RANGE
    ri = iter(r)  # T_RANGE_ITER
    m = obj.meth  # T_METHOD
    cf = lst.append  # T_CFUNCTION
    cm = lst.__sizeof__  # T_CMETHOD
    ctx = contextvars.copy_context()  # T_CONTEXT
    ag = gen.asend(None)  # T_ASYNC_GEN_ASEND
    z = complex(i, 1.0)  # T_COMPLEX
    ag.close()  # (3.15 warns of an asend never awaited)
    return a, b, c, d, e, f, g, h, ri, m, cf, cm, ctx, ag, z


def keep(i, k):
    kept["float"][k] = i * 0.25  # K_FLOAT
    kept["int"][k] = i * 1000 + 9  # K_INT
    kept["tuple"][k] = (i, k)  # K_TUPLE
    kept["list"][k] = [i, k]  # K_LIST
    kept["dict"][k] = {"k": i}  # K_DICT
    kept["slice"][k] = slice(i, None)  # K_SLICE
    kept["list_iter"][k] = iter(lst)  # K_LIST_ITER
    kept["tuple_iter"][k] = iter(tup)  # K_TUPLE_ITER
    kept["range"][k] = range(i)  # K_RANGE
    kept["range_iter"][k] = iter(range(i))  # K_RANGE_ITER
    kept["method"][k] = obj.meth  # K_METHOD
    kept["cfunction"][k] = lst.append  # K_CFUNCTION
    kept["cmethod"][k] = lst.__sizeof__  # K_CMETHOD
    kept["context"][k] = contextvars.copy_context()  # K_CONTEXT
    kept["asend"][k] = gen.asend(None)  # K_ASYNC_GEN_ASEND
    kept["asend"][k].close()
    kept["complex"][k] = complex(i, 2.0)  # K_COMPLEX


for name in ("float", "int", "tuple", "list", "dict", "slice", "list_iter", "tuple_iter",
             "range", "range_iter", "method", "cfunction", "cmethod", "context", "asend",
             "complex"):
    kept[name] = [None] * (N // 3)
for i in range(N):
    temps(i)
    if i % 3 == 0:
        keep(i, i // 3)
print(sum(len(v) for v in kept.values()))
