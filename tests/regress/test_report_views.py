# SPDX-License-Identifier: GPL-2.0-or-later
"""The views of issue 37 on a real report (gains_leak_base: a growing list, a
plateau cache), each checked by the tool that reads it:

- `memgrow-report speedscope`: valid against speedscope's own
  file-format-schema.json (npm's speedscope, report/web); its two profiles
  weigh each stack by live bytes and by bytes gained after the warm-up,
  computed here from the report's series.
- `memgrow-report pprof`: `go tool pprof -top` (Debian's golang) reads it and
  ranks the growing function first by growth_space; protoc decodes it against
  pprof's profile.proto with the three sample types.
- `memgrow-report html`: in headless Chromium (playwright-core driving
  Debian's chromium, tests/regress/flame_page.js), the verdict names the
  growing site and its holder; the flame graph draws the stacks, switches to
  live and leaked bytes (none leaked: said so), searches, zooms into the
  growing branch, each step within a second; the first screen's screenshot is
  kept ($MG_BUILD_DIR/tests/artifacts/views.png).
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import BUILD, SRC, memgrow_report, program, run, source_line  # noqa: E402

WEB = os.path.join(SRC, "report", "web", "node_modules")
PPROF_PROTO = "/usr/share/gocode/src/github.com/google/pprof/proto/profile.proto"
ARTIFACTS = os.path.join(BUILD, "tests", "artifacts")
GAINS = "tests/regress/gains_leak.c"
GROW = source_line(GAINS, "GROW_HERE")
RING = source_line(GAINS, "RING_HERE")


def gained(report, site):
    """Live bytes at teardown less those at the end of the warm-up's last bucket."""
    before = 0
    for end, level in zip((b["end"] for b in report["buckets"]), site["series"]):
        if end <= report["warmup_end"]:
            before = level
    return max(0, site["live_bytes"] - before)


class Views(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="memgrow-views-")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "g.json")
            r = subprocess.run([mgtest.VALGRIND, "--tool=memgrow", f"--json-file={path}",
                                program("gains_leak_base")], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=300)
            assert r.returncode == 0, r.stdout
            cls.json = os.path.join(cls.tmp, "g.json")
            shutil.copy(path, cls.json)
        cls.report = mgtest.load_report(cls.json)
        cls.remember = mgtest.sites_at(cls.report, function="remember")[0]
        cls.cache = mgtest.sites_at(cls.report, function="cache")[0]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def export(self, command, name):
        out = os.path.join(self.tmp, name)
        p = memgrow_report(command, self.json, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        return out

    def test_speedscope(self):
        import jsonschema
        with open(self.export("speedscope", "g.speedscope.json")) as f:
            doc = json.load(f)
        with open(os.path.join(WEB, "speedscope", "dist", "release",
                               "file-format-schema.json")) as f:
            jsonschema.validate(doc, json.load(f))
        frames = doc["shared"]["frames"]
        live, gain = doc["profiles"]
        self.assertEqual(live["name"], "live bytes at teardown")
        self.assertEqual(gain["name"], "bytes gained after the warm-up")
        sites = [s for s in self.report["sites"] if s["live_bytes"] or gained(self.report, s)]
        self.assertEqual(live["endValue"], sum(s["live_bytes"] for s in sites))
        self.assertEqual(gain["endValue"], sum(gained(self.report, s) for s in sites))

        def weight(profile, function):
            return sum(w for stack, w in zip(profile["samples"], profile["weights"])
                       if frames[stack[-1]]["name"] == function)
        self.assertEqual(weight(live, "remember"), self.remember["live_bytes"])
        g = gained(self.report, self.remember)
        self.assertGreater(g, 0)
        self.assertLess(g, self.remember["live_bytes"])  # the warm-up's part is not growth
        self.assertEqual(weight(gain, "remember"), g)
        # Outermost frame first: every stack starts at main.
        self.assertTrue(all(frames[s[0]]["name"] == "main" for s in gain["samples"]))

    def test_pprof(self):
        path = self.export("pprof", "g.pb.gz")
        go = shutil.which("go")
        self.assertIsNotNone(go, "no go: scripts/install-deps.sh installs golang-go")
        top = subprocess.run([go, "tool", "pprof", "-top", "-unit=B", path],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=120, env=dict(os.environ, HOME=self.tmp,
                                                   GOCACHE=os.path.join(self.tmp, "go")))
        self.assertEqual(top.returncode, 0, top.stdout)
        self.assertIn("Type: growth_space", top.stdout)
        rows = [line.split() for line in top.stdout.splitlines() if line.strip().endswith(
            ("remember", "cache", "main"))]
        self.assertEqual(rows[0][-1], "remember", top.stdout)  # the most growth, first
        self.assertEqual(rows[0][0], f"{gained(self.report, self.remember)}B", top.stdout)
        inuse = subprocess.run([go, "tool", "pprof", "-top", "-unit=B",
                                "-sample_index=inuse_space", path], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=120,
                               env=dict(os.environ, HOME=self.tmp,
                                        GOCACHE=os.path.join(self.tmp, "go")))
        self.assertIn(f"{self.cache['live_bytes']}B", inuse.stdout)
        with open(path, "rb") as f:
            raw = gzip.decompress(f.read())
        decoded = subprocess.run(
            ["protoc", f"--proto_path={os.path.dirname(PPROF_PROTO)}",
             "--decode=perftools.profiles.Profile", PPROF_PROTO], input=raw,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(decoded.returncode, 0, decoded.stderr)
        text = decoded.stdout.decode()
        for name in ("inuse_space", "alloc_space", "growth_space", "growing", "plateau"):
            self.assertIn(f'string_table: "{name}"', text)

    def test_bad_paths(self):
        for command in ("speedscope", "pprof"):
            p = memgrow_report(command, self.json, "-o", self.tmp)
            self.assertEqual(p.returncode, 2)
            self.assertIn(f"cannot write {self.tmp}: Is a directory", p.stderr)
            p = memgrow_report(command, os.path.join(self.tmp, "none.json"), "-o", "-")
            self.assertEqual(p.returncode, 2)
            self.assertIn("none.json: cannot open", p.stderr)

    def test_page(self):
        page = os.path.join(self.tmp, "g.html")
        p = memgrow_report("html", self.json, "-o", page)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(page) as f:
            text = f.read()
        self.assertIn(f"Growing: remember (gains_leak.c:{GROW}) gained", text)
        self.assertIn("held by all_records", text)
        # The first screen's order: verdict, timeline, flame graph, cards, table.
        order = [text.index(x) for x in ('class="verdict"', 'total-chart', 'id="r0-flame"',
                                         'class="site-card"', 'id="r0-sites"')]
        self.assertEqual(order, sorted(order))
        os.makedirs(ARTIFACTS, exist_ok=True)
        shot = os.path.join(ARTIFACTS, "views.png")
        chromium = shutil.which("chromium")
        self.assertIsNotNone(chromium, "no chromium: scripts/install-deps.sh installs it")
        out = subprocess.run(["node", os.path.join(SRC, "tests", "regress", "flame_page.js"),
                              page, chromium, shot], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, timeout=240,
                             env=dict(os.environ, FLAME_SEARCH=f"gains_leak.c:{GROW}"))
        self.assertEqual(out.returncode, 0, out.stderr)
        r = json.loads(out.stdout)
        self.assertEqual(r["errors"], [])
        self.assertTrue(os.path.getsize(shot) > 10000)
        names = [t.split("\n")[0] for t in r["initial"]["titles"]]
        self.assertIn(f"remember (gains_leak.c:{GROW})", names)
        self.assertIn(f"cache (gains_leak.c:{RING})", names)
        steps = {s["name"]: s for s in r["steps"]}
        # Growth is the default view: remember's share is of the gained bytes.
        g = sum(gained(self.report, s) for s in self.report["sites"])
        share = 100 * gained(self.report, self.remember) / g
        self.assertIn(f"({share:.1f}% of gained after the warm-up)",
                      [t for t in r["initial"]["titles"] if t.startswith("remember")][0])
        live = [t for t in steps["live"]["titles"] if t.startswith("remember")][0]
        share = 100 * self.remember["live_bytes"] / sum(s["live_bytes"] for s in self.report["sites"])
        self.assertIn(f"({share:.1f}% of live at teardown)", live)
        self.assertEqual(steps["leaked"]["empty"], "No bytes leaked.")
        self.assertEqual(steps["search"]["highlighted"], 1)
        self.assertEqual(steps["clear"]["highlighted"], 0)
        self.assertEqual(r["zoomed"], f"main (gains_leak.c:{source_line(GAINS, 'remember(i);')})")
        self.assertLess(steps["zoom"]["frames"], r["initial"]["frames"])  # cache's branch gone
        self.assertEqual(steps["reset"]["frames"], r["initial"]["frames"])
        for s in r["steps"]:
            self.assertLess(s["ms"], 1000, s["name"])


if __name__ == "__main__":
    unittest.main()
