# SPDX-License-Identifier: GPL-2.0-or-later
"""Report format 2 (docs/output-format.md) end to end: the tool writes it by
default for C, C++, Python and CUDA-stand-in programs; every memgrow-report
command reads it; `expand` gives back exactly the format-1 report the tool
writes with --json-format=1 (and what mgtest's own reading of the documented
layout gives); a format-1 baseline against a format-2 run still gates a new
leak; a broken format-2 file exits 2 with one line naming it.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import VALGRIND, program  # noqa: E402

report = mgtest.memgrow_report
CUDA_DIR = os.path.join(mgtest.BUILD, "tests", "cuda")

# name: (argv, environment); each runs twice, in format 2 and in format 1.
PROGRAMS = {
    "c": ([program("gains_leak_new")], {}),
    "cxx": ([program("vector_staircase")], {}),
    "marks": ([program("mark_leak")], {}),  # mark series and a per-mark quiet evidence
    "python": ([os.path.realpath(sys.executable),
                os.path.join(mgtest.SRC, "tests", "regress", "py_seed_service.py")], {}),
    "cuda": ([os.path.join(CUDA_DIR, "classes")],
             {"LD_LIBRARY_PATH": os.path.join(CUDA_DIR, "standin")}),
}


def without_process(doc):
    """The report less what differs between two runs of one program: the
    pid, the resident bytes (the kernel's, sampled by time), and the holders:
    the scan is conservative, and an integer that happens to equal a block's
    address holds it in one run and not in the next (ld.so's relocate_time,
    a count of TSC cycles, is one)."""
    out = {k: v for k, v in doc.items() if k not in ("pid", "ppid", "holders")}
    if "pages" in out:
        out["pages"] = {k: out["pages"][k] for k in ("heap", "mapped")}
    for key in ("sites", "python_sites"):
        if key in out:
            out[key] = [{k: v for k, v in s.items() if k != "held_by"} for s in out[key]]
    return out


def without_holders(text):
    """`show`'s text less its holders' lines (run-dependent, as above)."""
    return "\n".join(line for line in text.splitlines()
                     if not re.search(r"HOLDER|held by:| bytes held: ", line))


def first_difference(a, b, path="$"):
    """The path of the first place where two JSON documents differ, or None:
    a failing assertEqual on two reports of 200 MB would diff their
    pretty-printed texts for an hour."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} against {type(b).__name__}"
    if isinstance(a, dict):
        if set(a) != set(b):
            return f"{path}: keys {sorted(set(a) ^ set(b))[:20]} in one only"
        for k in a:
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {str(a)[:200]!r} against {str(b)[:200]!r}"


class ReportV2(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-v2-test-")
        cls.files = {}
        for name, (argv, env) in PROGRAMS.items():
            for fmt in (2, 1):
                out = os.path.join(cls.tmp, f"{name}.v{fmt}.json")
                p = subprocess.run([VALGRIND, "--tool=memgrow", *mgtest.COMPLETE,
                                    "--leak-check=full",
                                    f"--json-file={out}",
                                    *([] if fmt == 2 else ["--json-format=1"]), *argv],
                                   cwd=cls.tmp, env={**os.environ, **env},
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   timeout=600)
                assert os.path.exists(out), (name, fmt, p.stdout[-3000:])
                cls.files[name, fmt] = out

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, p, rc=0):
        self.assertEqual(p.returncode, rc, f"stdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr}")

    def load(self, path):
        with open(path) as f:
            return json.load(f)

    def assertSameReport(self, a, b):
        self.assertIsNone(first_difference(a, b))

    def test_the_default_is_format_2_with_shared_stacks(self):
        for name in PROGRAMS:
            with self.subTest(name=name):
                doc = self.load(self.files[name, 2])
                self.assertEqual(doc["memgrow"], 2)
                self.assertGreater(len(doc["sites"]), 0)
                self.assertTrue(all(isinstance(s, list) for s in doc["sites"]))
                nodes = len(doc["stacks"]) // 2
                # The stacks share callers: no more nodes than the frames
                # the sites hold inline in format 1 (fewer where they share).
                v1 = self.load(self.files[name, 1])
                inline = sum(len(s["frames"]) for s in v1["sites"])
                self.assertLessEqual(nodes, inline)
                if name == "python":
                    self.assertLess(nodes, inline / 2)
                # Each native frame is listed once (Python frames of two code
                # objects may read alike).
                native = [json.dumps(f) for f in doc["frames"] if f[4] is not None]
                self.assertEqual(len(set(native)), len(native))
                self.assertLess(os.path.getsize(self.files[name, 2]),
                                os.path.getsize(self.files[name, 1]))

    def test_marked_rows_leave_out_the_quiet_evidence(self):
        doc = self.load(self.files["marks", 2])
        self.assertGreater(doc["mark_buckets"], 0)
        self.assertGreater(doc["quiet_growth"]["marks_used"], 0)
        ids = [s["id"] for s in mgtest.expand(doc)["sites"]]
        quiet = [i for i, row in zip(ids, doc["sites"]) if "growth" not in row[12]]
        self.assertTrue(quiet)
        v1 = {s["id"]: s for s in self.load(self.files["marks", 1])["sites"]}
        for i in quiet:
            self.assertEqual(v1[i]["growth"], doc["quiet_growth"])
            self.assertEqual(len(v1[i]["mark_series"]), doc["mark_buckets"])

    def test_python_sites_are_in_format_2(self):
        doc = self.load(self.files["python", 2])
        self.assertGreater(len(doc["python_sites"]), 0)
        expanded = mgtest.expand(doc)
        self.assertTrue(all(f["python"] for s in expanded["python_sites"] for f in s["frames"]))

    def test_expand_gives_the_format_1_report(self):
        for name in PROGRAMS:
            with self.subTest(name=name):
                out = os.path.join(self.tmp, f"{name}.expanded.json")
                self.check(report("expand", self.files[name, 2], "-o", out))
                expanded = self.load(out)
                v1 = self.load(self.files[name, 1])
                self.assertEqual(expanded["memgrow"], 1)
                self.assertEqual(list(expanded), list(v1))  # the same fields, in order
                self.assertSameReport(without_process(expanded), without_process(v1))
                # Both runs find the same growing holders.
                self.assertEqual(
                    sorted(h["path"] for h in expanded.get("holders", []) if h["class"] == "growing"),
                    sorted(h["path"] for h in v1.get("holders", []) if h["class"] == "growing"))
                # The tests' own reading of the documented layout agrees (the
                # same run: holders included).
                self.assertSameReport(mgtest.expand(self.load(self.files[name, 2])), expanded)
                # Standard output, and a format-1 report comes out as it is.
                p = report("expand", self.files[name, 1])
                self.check(p)
                self.assertSameReport(json.loads(p.stdout), v1)

    def test_every_command_reads_format_2(self):
        for name in PROGRAMS:
            v2, v1 = self.files[name, 2], self.files[name, 1]
            with self.subTest(name=name):
                show2, show1 = report("show", v2), report("show", v1)
                self.check(show2)
                self.check(show1)
                self.assertEqual(
                    without_holders(re.sub(r"pid \d+", "pid", show2.stdout.replace(v2, "F"))),
                    without_holders(re.sub(r"pid \d+", "pid", show1.stdout.replace(v1, "F"))))
                d = report("diff", v1, v2)
                self.check(d)
                self.assertIn("new sites: 0", d.stdout)
                for command, ext in (("html", "html"), ("sarif", "sarif"), ("junit", "xml")):
                    out = os.path.join(self.tmp, f"{name}.{ext}")
                    self.check(report(command, v2, "-o", out))
                    self.assertGreater(os.path.getsize(out), 0)
                merged = os.path.join(self.tmp, f"{name}.merged.json")
                self.check(report("merge", v2, "-o", merged))
                m = self.load(merged)
                self.assertEqual(m["memgrow"], 1)
                self.assertEqual(len(m["sites"]), len(self.load(v1)["sites"]))

    def test_a_format_1_baseline_gates_a_new_leak_in_format_2(self):
        base = os.path.join(self.tmp, "base.v1.json")
        p = subprocess.run([VALGRIND, "--tool=memgrow", *mgtest.COMPLETE,
                            "-q", f"--json-file={base}",
                            "--json-format=1", program("gains_leak_base")],
                           cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=300)
        self.assertEqual(self.load(base)["memgrow"], 1, p.stdout)
        d = report("diff", base, self.files["c", 2])
        self.check(d, 1)
        self.assertIn("result: FAIL", d.stdout)
        self.assertIn("gains_leak.c", d.stdout)
        # And the run against itself passes.
        self.check(report("diff", self.files["c", 1], self.files["c", 2]), 0)

    def test_revision_2_encoding(self):
        """Revision 2 (docs/output-format.md): callers as distances back, ids
        as gaps, class codes, "leak" arrays, sub-site steps."""
        for name in PROGRAMS:
            with self.subTest(name=name):
                doc = self.load(self.files[name, 2])
                self.assertEqual(doc["revision"], 2)
                v1 = self.load(self.files[name, 1])
                # Every site is listed (no --json-stable-min-bytes): each id
                # follows the one before, a gap of 0.
                self.assertEqual([row[0] for row in doc["sites"]], [0] * len(doc["sites"]))
                self.assertEqual([s["id"] for s in v1["sites"]], list(range(len(v1["sites"]))))
                codes = ("stable", "plateau", "growing", "leaked")
                self.assertEqual([codes[row[2]] for row in doc["sites"]],
                                 [s["class"] for s in v1["sites"]])
                # A caller is 1 to i nodes back from node i, or 0 (none).
                backs = doc["stacks"][1::2]
                self.assertTrue(all(0 <= b <= i for i, b in enumerate(backs)))
                self.assertIn(0, backs)
                if name == "python":
                    # The caller is the node just before for most nodes.
                    self.assertGreater(backs.count(1), len(backs) / 2)
                    steps = [x for row in doc["python_sites"] for x in row[12].get("sites", [])]
                    self.assertTrue(all(x >= 0 for x in steps))
                    self.assertEqual([row[0] for row in doc["python_sites"]],
                                     [0] * len(doc["python_sites"]))
                # "leak" holds what format 1 spells out as lost, lost_blocks, ...
                by_id = {s["id"]: s for s in v1["sites"]}
                leaks = [(i, row[12]["leak"]) for i, row in enumerate(doc["sites"])
                         if "leak" in row[12]]
                if name == "c":  # gains_leak: a leak and reachable blocks
                    self.assertTrue(leaks)
                for i, leak in leaks:
                    s = by_id[i]
                    self.assertEqual(leak, [s["lost"]["definite"], s["lost"]["indirect"],
                                            s["lost"]["possible"], s["lost_blocks"]["definite"],
                                            s["lost_blocks"]["indirect"],
                                            s["lost_blocks"]["possible"], s["reachable_bytes"],
                                            s["indirect_through"]])
                    self.assertNotIn("lost", doc["sites"][i][12])

    def test_relative_callers_decode_to_the_format_1_stacks(self):
        # Walked by hand from the distances: each site's frames are format 1's.
        doc = self.load(self.files["python", 2])
        v1 = self.load(self.files["python", 1])
        stacks = doc["stacks"]
        for row, s in zip(doc["sites"], v1["sites"]):
            functions, node = [], row[1]
            while node is not None:
                functions.append(doc["frames"][stacks[2 * node]][0])
                back = stacks[2 * node + 1]
                node = node - back if back else None
            self.assertEqual(functions, [f["function"] for f in s["frames"]])

    def test_revision_1_still_loads(self):
        """A report in the first encoding of format 2 (no "revision"): the
        tool's own before revision 2 (tests/unit/data), and this run's
        report written back in that encoding, expand to what revision 2
        expands to."""
        fixture = os.path.join(mgtest.SRC, "tests", "unit", "data",
                               "report-format2-revision1.json")
        old = self.load(fixture)
        self.assertNotIn("revision", old)
        self.assertIsInstance(old["sites"][0][2], str)
        p = report("show", fixture)
        self.check(p)
        self.assertIn("gains_leak.c", p.stdout)
        out = os.path.join(self.tmp, "fixture.expanded.json")
        self.check(report("expand", fixture, "-o", out))
        expanded = self.load(out)
        self.assertEqual(expanded, mgtest.expand(old))
        self.assertEqual([s["class"] for s in expanded["sites"]],
                         ["stable", "growing", "plateau", "stable", "leaked"])
        self.assertEqual(expanded["sites"][4]["lost"]["definite"], 3200)
        for name in PROGRAMS:
            with self.subTest(name=name):
                new = self.files[name, 2]
                older = os.path.join(self.tmp, f"{name}.revision1.json")
                with open(older, "w") as f:
                    json.dump(as_revision_1(self.load(new)), f)
                a, b = (os.path.join(self.tmp, f"{name}.r{r}.expanded.json") for r in (1, 2))
                self.check(report("expand", older, "-o", a))
                self.check(report("expand", new, "-o", b))
                with open(a) as fa, open(b) as fb:
                    self.assertEqual(fa.read(), fb.read())
                show1, show2 = report("show", older), report("show", new)
                self.check(show1)
                self.assertEqual(show1.stdout.replace(older, "F"), show2.stdout.replace(new, "F"))

    def test_expand_streams_and_a_hand_made_order_expands_too(self):
        # The rows before the tables they need: expanded as a whole tree.
        doc = self.load(self.files["python", 2])
        moved = {k: v for k, v in doc.items() if k not in ("frames", "stacks")}
        moved.update(frames=doc["frames"], stacks=doc["stacks"])
        path = os.path.join(self.tmp, "moved.json")
        with open(path, "w") as f:
            json.dump(moved, f)
        a, b = (os.path.join(self.tmp, f"order{i}.json") for i in (1, 2))
        self.check(report("expand", path, "-o", a))
        self.check(report("expand", self.files["python", 2], "-o", b))
        ea, eb = self.load(a), self.load(b)
        self.assertEqual(ea["sites"], eb["sites"])
        self.assertEqual(ea["python_sites"], eb["python_sites"])

    def test_broken_format_2_exits_2_naming_the_file(self):
        doc = self.load(self.files["c", 2])
        n = len(doc["stacks"]) // 2
        cases = {
            "cycle": lambda d: d["stacks"].__setitem__(1, n + 5),  # before the first node
            "forward": lambda d: d["stacks"].__setitem__(3, -1),  # a caller after its callee
            "class": lambda d: d["sites"][0].__setitem__(2, 4),
            "class-name": lambda d: d["sites"][0].__setitem__(2, "stable"),
            "id-gap": lambda d: d["sites"][1].__setitem__(0, -1),
            "leak": lambda d: [r[12].__setitem__("leak", [1, 2]) for r in d["sites"]],
            "revision": lambda d: d.__setitem__("revision", 3),
            "node": lambda d: d["sites"][0].__setitem__(1, 10**6),
            "row": lambda d: d["sites"][0].pop(),
            "series": lambda d: d["sites"][0].__setitem__(10, [999, 1]),
            "frame": lambda d: d["frames"].__setitem__(0, "main"),
            "truncated": None,
        }
        for name, change in cases.items():
            path = os.path.join(self.tmp, f"bad-{name}.json")
            with open(path, "w") as f:
                if change is None:
                    f.write(json.dumps(doc)[:-100])
                else:
                    bad = json.loads(json.dumps(doc))
                    change(bad)
                    json.dump(bad, f)
            for command in ("show", "expand"):
                with self.subTest(name=name, command=command):
                    p = report(command, path)
                    self.check(p, 2)
                    self.assertIn(path, p.stderr)
                    self.assertEqual(p.stderr.count("\n"), 1, p.stderr)


def as_revision_1(doc):
    """A revision-2 report written in format 2's first encoding, as the tool
    wrote it before revision 2 (docs/output-format.md): absolute callers (-1
    for none), ids, class names, lost objects, sub-site ids."""
    old = json.loads(json.dumps(doc))
    del old["revision"]
    stacks = old["stacks"]
    for i in range(1, len(stacks), 2):
        stacks[i] = i // 2 - stacks[i] if stacks[i] else -1
    kinds = ("definite", "indirect", "possible")
    for key in ("sites", "python_sites"):
        next_id = 0
        for row in old.get(key, []):
            row[0] += next_id
            next_id = row[0] + 1
            row[2] = ("stable", "plateau", "growing", "leaked")[row[2]]
            extra = row[12]
            rest = {}
            if "leak" in extra:
                leak = extra.pop("leak")
                rest["lost"] = dict(zip(kinds, leak[:3]))
                if key == "sites":
                    rest.update(lost_blocks=dict(zip(kinds, leak[3:6])), reachable_bytes=leak[6],
                                indirect_through=leak[7],
                                lost_suppressed=extra.pop("lost_suppressed", False))
            if key == "python_sites" and "sites" in extra:
                ids, at = [], 0
                for step in extra["sites"]:
                    at += step
                    ids.append(at)
                extra["sites"] = ids
            row[12] = {**rest, **extra}
    return old


if __name__ == "__main__":
    unittest.main()
