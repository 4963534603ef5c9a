# SPDX-License-Identifier: GPL-2.0-or-later
"""Memory revived from CPython's free lists and NumPy's caches is charged to
the line that revives it (docs/python.md, "Free lists and caches"): on every
interpreter, each line that only makes temporaries is stable and each line
that keeps objects grows or holds, classified by Python line through the
report's python_sites."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import SRC, describe, python_interpreters, run, source_line  # noqa: E402

MALLOC = {"PYTHONMALLOC": "malloc"}
# Each script: {marker: what its line may be}. "temp": stable, or holding no
# more than a free list's worth (FREE_LIST_BYTES, below); else the class it
# must have, and growing is forbidden for "plateau" and "held".
EXPECT = {
    "py_fl_lru.py": {"FL_TEMP": "temp", "FL_KEEP": "growing", "FL_BOUNDED_CALL": "held"},
    "py_fl_scores.py": {"FL_IDS": "temp", "FL_SCORES": "temp", "FL_RECORD": "plateau"},
    "py_fl_format_exc.py": {"FL_FORMAT": "plateau", "FL_STORE": "growing"},
    "py_fl_dict_float.py": {"FL_DICT_TEMP": "temp", "FL_FLOAT_TEMP": "temp",
                            "FL_DICT_KEEP": "growing", "FL_FLOAT_KEEP": "growing"},
    "py_fl_generators.py": {"FL_YIELD": "temp", "FL_GEN_SUM": "temp", "FL_GEN_KEEP": "growing"},
    # Issue 34's seed pattern with token ids (on 3.14+ the ids are revived
    # from the int free list the counting line's lookups feed).
    "py_fl_token_ids.py": {"FL_TOKEN_IDS": "plateau", "FL_TOKEN_COUNT": "growing",
                           "FL_TOKEN_SCORES": "temp", "FL_TOKEN_RECORD": "plateau"},
    # Every free list Python code reaches, per type (docs/python.md lists
    # which version keeps which).
    "py_fl_types.py": {f"{kind}_{t}": want for t in (
        "FLOAT", "INT", "TUPLE", "LIST", "DICT", "SLICE", "LIST_ITER", "TUPLE_ITER", "RANGE",
        "RANGE_ITER", "METHOD", "CFUNCTION", "CMETHOD", "CONTEXT", "ASYNC_GEN_ASEND", "COMPLEX")
        for kind, want in (("T", "temp"), ("K", "growing"))},
}
NUMPY = {"NP_TEMP": "temp", "NP_RECENT": "plateau", "NP_KEEP": "growing"}
# What is on a free list when the run ends stays charged to the line that
# revived it last: a line of temporaries can hold that much as a plateau
# (3.15's float test: 354 floats, 8.5 KB). docs/python.md, "Free lists and
# caches".
FREE_LIST_BYTES = 16384
# CPython 3.11's type attribute cache (4,096 entries, per interpreter) keeps
# a reference to the name of each lookup it caches, in the slot
# (type's version tag ^ (address of the name >> 3)) % 4096, and 3.11's
# match_class looks __match_args__ up with a str made afresh at every call
# (PyObject_GetAttrString). traceback.format_exc() runs `case ast.Expr(expr):`
# in _extract_caret_anchors_from_line_segment once per call, so the cache
# keeps up to 2,048 of those 63-byte strings alive under that line (two
# lookups each, the metatype's and the class's): a fresh one frees the one
# before it at the same address modulo 32 KiB. How many are live at the end,
# and whether the count still rises then, depends only on which addresses
# the allocator hands out (the freed-block queue's size changes it: 998 to
# 2,048 blocks). The interpreter's bounded cache, not the line's strings:
# left out of the line's classes, within the cache's size (docs/python.md,
# "Interpreter caches keyed by address").
ADDRESS_KEYED = {"_extract_caret_anchors_from_line_segment": 4096}


def script(name):
    return os.path.join(SRC, "tests", "regress", name)


def classes_by_line(report, name, held=None):
    """{line: {classes}} of the Python sites whose innermost frame in the
    script is at that line; `held` gets {line: live bytes of its plateaus}."""
    out = {}
    for ps in report["python_sites"]:
        bound = ADDRESS_KEYED.get(ps["frames"][0]["function"]) if ps["frames"] else None
        if bound is not None and ps["live_blocks"] <= bound:
            continue
        for f in ps["frames"]:
            if os.path.basename(f["file"] or "") == name:
                out.setdefault(f["line"], set()).add(ps["class"])
                if held is not None and ps["class"] == "plateau":
                    held[f["line"]] = held.get(f["line"], 0) + ps["live_bytes"]
                break
    return out


class FreeLists(unittest.TestCase):
    def check(self, name, expect, report):
        held = {}
        by_line = classes_by_line(report, name, held)
        text = f"{name}: {by_line} {held}\n{describe(report)[:20000]}"
        for marker, want in expect.items():
            line = source_line(os.path.join("tests", "regress", name), marker)
            classes = by_line.get(line, set())
            if want == "temp":
                self.assertLessEqual(classes, {"stable", "plateau"}, f"{marker}\n{text}")
                self.assertLessEqual(held.get(line, 0), FREE_LIST_BYTES, f"{marker}\n{text}")
            elif want == "held":
                self.assertNotIn("growing", classes, f"{marker}\n{text}")
            else:
                self.assertIn(want, classes, f"{marker}\n{text}")
                if want == "plateau":
                    self.assertNotIn("growing", classes, f"{marker}\n{text}")

    def test_free_list_patterns(self):
        for interp, py in python_interpreters().items():
            for name, expect in EXPECT.items():
                with self.subTest(interpreter=interp, script=name):
                    # The growth hunt: which line keeps what does not depend on
                    # the addressability checks, which double the time.
                    r = run([*py.argv, script(name)], env=MALLOC, options=["--addressability=no"])
                    self.assertEqual(r.rc, 0, r.log)
                    self.check(name, expect, r.report)

    def test_numpy_caches(self):
        # Debian's python3-numpy (1.24) on Debian's static 3.11.
        exe = "/usr/bin/python3"
        ok = os.path.exists(exe) and run_native([exe, "-c", "import numpy"])
        if not ok:
            print("memgrow tests: no NumPy for /usr/bin/python3 (python3-numpy): "
                  "the NumPy cache test did not run", file=sys.stderr)
            self.fail("python3-numpy is missing (scripts/install-deps.sh installs it)")
        r = run([os.path.realpath(exe), script("py_fl_numpy.py")], env=MALLOC,
                options=["--json-stable-min-bytes=65536"])
        self.assertEqual(r.rc, 0, r.log)
        self.check("py_fl_numpy.py", NUMPY, r.report)

    def test_off_charges_the_first_malloc(self):
        # The control: without re-charging, the temporaries' dict line keeps
        # the dicts the keeping line revived.
        name = "py_fl_dict_float.py"
        r = run([sys.executable, script(name)], env=MALLOC, options=["--python-free-lists=no"])
        self.assertEqual(r.rc, 0, r.log)
        line = source_line(os.path.join("tests", "regress", name), "FL_DICT_TEMP")
        self.assertIn("growing", classes_by_line(r.report, name).get(line, set()))


def run_native(argv):
    import subprocess
    return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


if __name__ == "__main__":
    unittest.main()
