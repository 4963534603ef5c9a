#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes a synthetic memgrow report (docs/output-format.md, version 1, or 2
with --format 2) with many sites, for timing memgrow-report on a large input:

    bench/gen_report.py --sites 100000 > big.json
    bench/gen_report.py --format 2 --sites 1000000 > big2.json
    bench/gen_report.py --format 2 --revision 1 --sites 1000000 > big2r1.json
    /usr/bin/time -v memgrow-report show big.json > /dev/null

Each site has a realistic shape: 4-16 frames (function, file, line, object,
ip), a series of --buckets values and the growth evidence of its class.
Format 2 is shaped like a big real report: stacks that share their callers
(each site adds one to three frames to a stack already made), and most sites
stable, changing in a bucket or two. --revision picks format 2's encoding: 2
(the tool's: callers as distances back, ids as gaps, class codes, "leak"
arrays) or 1 (the first one).
"""
import argparse
import json
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sites", type=int, default=100000)
    ap.add_argument("--buckets", type=int, default=42)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--format", type=int, choices=(1, 2), default=1)
    ap.add_argument("--revision", type=int, choices=(1, 2), default=2,
                    help="format 2's encoding (docs/output-format.md)")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    width = 65536
    nb = a.buckets
    funcs = [f"ns{i % 37}::Component{i % 211}::method_{i}" for i in range(5000)]
    files = [f"src/module{i % 61}/file_{i}.cpp" for i in range(800)]
    out = sys.stdout
    head = {
        "memgrow": 1, "command": ["./server", "--threads", "8"], "pid": 4242, "ppid": 1,
        "time_unit": "B", "bucket_width": width, "warmup_end": 2 * width,
        "teardown_at": nb * width, "teardown": "exit",
        "marks": {"count": 0, "first_at": 0, "per_bucket": 1},
        "buckets": [{"end": (i + 1) * width, "live_bytes": 1000 * i, "allocated_bytes": 65536,
                     "freed_bytes": 65536 - 1000,
                     "spaces": {"host": {"live_bytes": 1000 * i, "allocated_bytes": 65536,
                                         "freed_bytes": 65536 - 1000}}} for i in range(nb)],
        "leak_check": {"mode": "full", "scans": 1,
                       **{k: {"bytes": 0, "blocks": 0}
                          for k in ("definite", "indirect", "possible", "reachable",
                                    "suppressed")}},
    }
    if a.format == 2:
        write_v2(a, rnd, head, funcs, files, out)
        return
    text = json.dumps(head, separators=(",", ":"))
    out.write(text[:-1] + ',"sites":[')
    classes = ["stable"] * 80 + ["plateau"] * 12 + ["growing"] * 5 + ["leaked"] * 3
    for i in range(a.sites):
        cls = rnd.choice(classes)
        size = rnd.choice([16, 24, 32, 64, 128, 256, 1024, 4096])
        if cls == "growing":
            series = [size * (k + 1) * rnd.randint(1, 4) for k in range(nb)]
            series.sort()
        elif cls == "plateau":
            top = size * rnd.randint(10, 100)
            series = [min(top, size * k * 5) for k in range(nb)]
        else:
            series = [size * rnd.randint(0, 8) for _ in range(nb)]
        if cls == "leaked":
            series[-1] = size * 3
        live = series[-1]
        depth = rnd.randint(4, 16)
        frames = []
        for d in range(depth):
            frames.append({"function": rnd.choice(funcs), "file": rnd.choice(files),
                           "line": rnd.randint(1, 3000),
                           "object": "/usr/local/bin/server" if d < depth - 2
                           else "/lib/x86_64-linux-gnu/libc.so.6",
                           "python": False, "ip": hex(0x400000 + rnd.randint(0, 1 << 24))})
        site = {
            "id": i, "space": "host", "class": cls, "live_bytes": live,
            "live_blocks": live // size, "peak_bytes": max(series),
            "allocated_bytes": sum(series) + size, "allocated_blocks": sum(series) // size + 1,
            "at_exit_bytes": live, "at_exit_blocks": live // size, "suppressed": i % 97 == 0,
            "lost": {"definite": live if cls == "leaked" else 0, "indirect": 0, "possible": 0},
            "growth": {"class": cls, "rule": "trend" if cls == "growing" else "none",
                       "rate": round(rnd.random(), 6), "rate_per_bucket": rnd.randint(0, 9999),
                       "rate_per_mark": None, "confidence": round(rnd.random(), 6),
                       "trend_z": round(rnd.random() * 5, 6),
                       "began_at": width if cls == "growing" else None, "stopped_at": None,
                       "marks_used": 0, "marks_adding": 0, "released_at_end": False},
            "series": series,
            "allocated_series": [size * rnd.randint(0, 8) for _ in range(nb)],
            "freed_series": [size * rnd.randint(0, 8) for _ in range(nb)],
            "frames": frames,
        }
        out.write(("," if i else "") + json.dumps(site, separators=(",", ":")))
    out.write('],"errors":[]}\n')


def write_v2(a, rnd, head, funcs, files, out):
    nb = a.buckets
    r2 = a.revision >= 2
    head = dict({"memgrow": 2, **({"revision": 2} if r2 else {})}, **head, site_count=a.sites)
    head["memgrow"] = 2
    n_frames = 50000
    frames = [[rnd.choice(funcs), rnd.choice(files), rnd.randint(1, 3000),
               "/usr/local/bin/server", hex(0x400000 + i * 16)] for i in range(n_frames)]
    # Each site's stack: one to three new frames on a stack already made
    # (or on a fresh outermost frame now and then).
    nodes = []  # flat pairs (frame, caller)
    site_node = []
    for i in range(a.sites):
        parent = -1 if not site_node or rnd.random() < 0.01 else rnd.choice(site_node)
        for _ in range(rnd.randint(1, 3)):
            node = len(nodes) // 2
            # Revision 2: the caller as how many nodes back it is (0: none).
            nodes += [rnd.randrange(n_frames), (node - parent if parent >= 0 else 0) if r2
                      else parent]
            parent = node
        site_node.append(parent)
    text = json.dumps(head, separators=(",", ":"))
    out.write(text[:-1] + ',"frames":' + json.dumps(frames, separators=(",", ":")))
    out.write(',"stacks":' + json.dumps(nodes, separators=(",", ":")) + ',"sites":[')
    classes = ["stable"] * 90 + ["plateau"] * 6 + ["growing"] * 3 + ["leaked"] * 1
    for i in range(a.sites):
        cls = rnd.choice(classes)
        size = rnd.choice([16, 24, 32, 64, 128, 256, 1024, 4096])
        extra = {}
        if cls == "stable":
            start = rnd.randrange(nb)
            series, alloc = [start, size], [start, size]
            if rnd.random() < 0.2:  # freed again later
                series += [min(nb - 1, start + 1 + rnd.randrange(nb)), 0]
                if series[2] == start:
                    series = series[:2]
            live = series[-1]
        else:
            levels = sorted(size * rnd.randint(1, 40) for _ in range(nb))
            series = [x for k, v in enumerate(levels) for x in (k, v)]
            alloc = [x for k in range(nb) for x in (k, size)]
            live = levels[-1]
            extra["growth"] = {"class": cls, "rule": "trend" if cls == "growing" else "level",
                               "rate": round(rnd.random(), 6), "rate_per_bucket": 10,
                               "rate_per_mark": None, "confidence": 0.99, "trend_z": 4.2,
                               "began_at": 65536, "stopped_at": None, "marks_used": 0,
                               "marks_adding": 0, "released_at_end": False}
        if cls == "leaked" and r2:
            extra["leak"] = [live, 0, 0, 0, 0, 0, 0, 0]
        elif cls == "leaked":
            extra["lost"] = {"definite": live, "indirect": 0, "possible": 0}
        codes = {"stable": 0, "plateau": 1, "growing": 2, "leaked": 3}
        row = [0 if r2 else i, site_node[i], codes[cls] if r2 else cls, live, live // size, live,
               live + size, live // size + 1, live, live // size, series, alloc, extra]
        out.write(("," if i else "") + json.dumps(row, separators=(",", ":")))
    out.write('],"errors":[]}\n')


if __name__ == "__main__":
    main()
