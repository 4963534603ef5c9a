# SPDX-License-Identifier: GPL-2.0-or-later
"""The part of a memgrow report (format 2) the GPU kit keeps: a PyTorch
run's report is hundreds of MB, so tests/cuda/gpu/run.sh reads each as soon
as its run ends and keeps this: the header (clock, marks, leak check,
totals), every device-side site whole (its counts, class, evidence,
mark_series and frames), the growing host sites with their innermost
frames, and the errors. extract.py REPORT.json OUT.json"""
import json
import sys

CLASSES = ["stable", "plateau", "growing", "leaked"]
COUNTS = ["live_bytes", "live_blocks", "peak_bytes", "allocated_bytes", "allocated_blocks",
          "at_exit_bytes", "at_exit_blocks"]


def dense(points, n):
    """A series stored as change points [bucket, level, ...] as n levels."""
    out, level, at = [], 0, 0
    for i in range(0, len(points), 2):
        out.extend([level] * (points[i] - at))
        at, level = points[i], points[i + 1]
    out.extend([level] * (n - at))
    return out[:n]


def stack(d, node, revision, most):
    """The frames of a stack node, innermost first: [function, file, line,
    object, python]."""
    out, stacks, frames = [], d["stacks"], d["frames"]
    while node is not None and node >= 0 and len(out) < most:
        fn, file, line, obj, ip = frames[stacks[2 * node]]
        out.append([fn, file, line, obj, ip is None])
        back = stacks[2 * node + 1]
        if revision >= 2:
            node = node - back if back > 0 else None
        else:
            node = back
    return out


def site(d, row, sid, revision, most):
    extra = row[12]
    s = {"id": sid, "space": extra.get("space", "host"), "device": extra.get("device"),
         "class": CLASSES[row[2]] if revision >= 2 else row[2]}
    s.update(zip(COUNTS, row[3:10]))
    g = extra.get("growth", d.get("quiet_growth", {}))
    s["growth"] = {k: g.get(k) for k in ("class", "rule", "rate_per_mark", "marks_used",
                                         "marks_adding", "confidence")}
    if "leak" in extra:
        s["leak"] = extra["leak"]
    elif "lost" in extra:
        s["leak"] = [extra["lost"].get(k, 0) for k in ("definite", "indirect", "possible")]
    if d.get("mark_buckets"):
        s["mark_series"] = dense(extra.get("mark_series", []), d["mark_buckets"])
    s["frames"] = stack(d, row[1], revision, most)
    return s


def main():
    with open(sys.argv[1]) as f:
        d = json.load(f)
    revision = d.get("revision", 1)
    keep = {k: d.get(k) for k in ("command", "warmup_end", "teardown_at", "marks", "leak_check",
                                  "mark_buckets", "site_count", "python_site_count",
                                  "omitted_sites")}
    keep["last_bucket"] = d["buckets"][-1] if d.get("buckets") else None
    keep["errors"] = [{"kind": e.get("kind"), "count": e.get("count"), "size": e.get("size"),
                       "message": e.get("message"),
                       "frames": [[fr.get("function"), fr.get("file"), fr.get("line"),
                                   fr.get("object")] for fr in (e.get("frames") or [])[:8]]}
                      for e in d.get("errors", [])]
    device, growing, sid = [], [], -1
    for row in d["sites"]:
        sid = sid + 1 + row[0] if revision >= 2 else row[0]
        space = row[12].get("space", "host")
        cls = CLASSES[row[2]] if revision >= 2 else row[2]
        if space != "host":
            device.append(site(d, row, sid, revision, 64))
        elif cls in ("growing", "leaked"):
            growing.append(site(d, row, sid, revision, 16))
    growing.sort(key=lambda s: -s["live_bytes"])
    keep["device_sites"] = device
    keep["host_growing"] = growing[:20]
    keep["host_growing_count"] = len(growing)
    keep["host_growing_bytes"] = sum(s["live_bytes"] for s in growing)
    with open(sys.argv[2], "w") as f:
        json.dump(keep, f)


if __name__ == "__main__":
    main()
