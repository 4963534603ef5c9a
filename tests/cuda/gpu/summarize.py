"""One line per class of the non-host sites of memgrow reports (format 2),
the largest of them, the leak totals: what tests/cuda/gpu/run.sh prints."""
import collections
import json
import sys

CLASSES = ["stable", "plateau", "growing", "leaked"]


def frames_of(d, node, most=6):
    """The innermost frames of a stack node (format 2, revision 2), as text."""
    out = []
    stacks, frames = d["stacks"], d["frames"]
    while node is not None and len(out) < most:
        fn, file, line, obj, _ = frames[stacks[2 * node]]
        where = f"{file}:{line}" if file else (obj or "?").rsplit("/", 1)[-1]
        out.append(f"{fn or '???'} ({where})")
        back = stacks[2 * node + 1]
        node = node - back if back > 0 else None
    return " < ".join(out)


def main():
    for path in sys.argv[1:]:
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            print(f"== {path}: no report ({e})")
            continue
        rows = [r for r in d["sites"] if r[12].get("space", "host") != "host"]
        lc = d.get("leak_check", {})
        print(f"== {path}: {d['site_count']} sites, warmup_end {d['warmup_end']}, "
              f"{len(d['buckets'])} buckets, errors {len(d['errors'])}, leak "
              + ", ".join(f"{k} {lc[k]['bytes']}/{lc[k]['blocks']}"
                          for k in ("definite", "possible", "suppressed") if k in lc))
        per = collections.Counter((r[12].get("space"), CLASSES[r[2]]) for r in rows)
        print("   device-side sites:", dict(sorted(per.items())),
              "live bytes", sum(r[3] for r in rows))
        for r in sorted(rows, key=lambda r: -r[5])[:6]:
            print(f"   {r[12].get('space'):8} {CLASSES[r[2]]:8} peak {r[5]} live {r[3]} in "
                  f"{r[4]} blocks, {r[7]} allocations")
            if r[1] is not None:
                print(f"      at {frames_of(d, r[1])}")


if __name__ == "__main__":
    main()
