# SPDX-License-Identifier: GPL-2.0-or-later
"""The tables of the GPU kit's run (tests/cuda/gpu/run.sh; issue 38), from
its work directory: the times, where every device byte came from against
PyTorch's counters, each allocator mode mark by mark, compute-sanitizer
beside memgrow, the C programs. summarize.py DIR [--full]: compact by
default (what the device tool returns is the end of the output), every
device site and every mark with --full."""
import glob
import json
import os
import re
import sys

MODES = ["caching", "nocache", "expandable", "async"]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def mib(n):
    return "-" if n is None else f"{n / 1048576:.1f}"


def short_obj(obj):
    return (obj or "?").rsplit("/", 1)[-1]


def where(fr):
    fn, file, line, obj = fr[:4]
    if file:
        return f"{(fn or '???')[:50]} ({os.path.basename(file)}:{line})"
    return f"{(fn or '???')[:50]} ({short_obj(obj)})"


# The shim's wrapper frames and the CUDA runtime and driver are how memory
# is taken, not who takes it: a site belongs to the innermost frame beyond them.
MECHANISM = ("vgpreload_memgrow", "libcudart", "libcuda.so", "ld-linux", "libc.so")
OWNERS = [("libc10_cuda", "PyTorch allocator"), ("libtorch_cuda", "PyTorch, not its allocator"),
          ("libcublasLt", "cuBLASLt"), ("libcublas", "cuBLAS"), ("libcudnn", "cuDNN"),
          ("libnccl", "NCCL"), ("libcusparse", "cuSPARSE"), ("libcufft", "cuFFT"),
          ("libcurand", "cuRAND"), ("libtorch_python", "PyTorch (Python binding)"),
          ("libtorch_cpu", "PyTorch CPU library")]


def owner(frames):
    """Who took a device site's memory: the library of its innermost frame
    past the shim, the runtime and the driver; "driver/runtime" when all are."""
    for fr in frames:
        if fr[4]:  # a Python frame before any library: the interpreter's extension
            return "Python extension"
        obj = short_obj(fr[3])
        if any(m in obj for m in MECHANISM):
            continue
        for key, label in OWNERS:
            if key in obj:
                return label
        return obj
    return "driver/runtime"


def python_line(frames):
    for fr in frames:
        if fr[4]:
            return f"{os.path.basename(fr[1] or '?')}:{fr[2]}"
    return "-"


def native_frames(frames, most):
    out = [fr for fr in frames if not fr[4] and "vgpreload_memgrow" not in short_obj(fr[3])]
    return " < ".join(where(fr) for fr in out[:most])


def phases(out_file):
    """The phase lines of torch_stats.phase in a run's output."""
    try:
        with open(out_file, errors="replace") as f:
            text = f.read()
    except OSError:
        return {}
    return {m[1]: float(m[2]) for m in re.finditer(r"^phase (\S+) ([0-9.]+)$", text, re.M)}


def times_table(d, rows, full):
    print("== times (s; wall, user; phases are the script's own clock: import, cuda-init, "
          "loop end)")
    native = next((r["wall"] for r in rows if r["name"] == "native_loop"), None)
    for r in rows:
        if not full and r["name"].startswith(("mg_c_", "cs_", "native_sbs", "mg_sbs",
                                              "native_caching", "native_nocache",
                                              "native_expandable", "native_async")):
            continue  # in the other tables
        ph = phases(os.path.join(d, r["name"] + ".out"))
        ratio = f"{r['wall'] / native:6.1f}x" if native and r["name"].startswith("t_") else ""
        print(f"{r['name']:26} rc {r['rc']:>4}{' TIMEOUT' if r['timed_out'] else '':8} "
              f"wall {r['wall']:7.1f} user {r['user']:7.1f} rss {r['maxrss_mib']:>6} MiB "
              f"load {r['load_before']:>4}-{r['load_after']:<4} {ratio} "
              + " ".join(f"{k} {v:.0f}" for k, v in ph.items()))


def device_live_at(x, k, who=None):
    """Device live bytes at mark k, of the sites owned by who (all when None)."""
    return sum(s["mark_series"][k] for s in x["device_sites"]
               if "mark_series" in s and (who is None or owner(s["frames"]) == who))


def attribution(d, name, full, most):
    """Every device byte of one run by owner, against PyTorch's counters."""
    x, t = load(os.path.join(d, name + ".x.json")), load(os.path.join(d, name + ".torch.json"))
    if x is None:
        print(f"{name}: no report extract")
        return
    sites = x["device_sites"]
    live = sum(s["live_bytes"] for s in sites)
    by = {}
    for s in sites:
        by.setdefault(owner(s["frames"]), []).append(s)
    end = (t or {}).get("end", {})
    segs = (t or {}).get("segments")
    nseg = len(segs) if isinstance(segs, list) else segs
    mine = sum(s["live_bytes"] for s in by.get("PyTorch allocator", []))
    print(f"{name}: device live {mib(live)} MiB in {len(sites)} sites, PyTorch's allocator "
          f"{mib(mine)}, outside it {mib(live - mine)}; torch reserved "
          f"{mib(end.get('reserved'))} allocated {mib(end.get('allocated'))} MiB, "
          f"backend {str((t or {}).get('backend'))[:20]}, snapshot segments {nseg}")
    for label, group in sorted(by.items(), key=lambda kv: -sum(s["live_bytes"] for s in kv[1])):
        print(f"   {label:28} live {mib(sum(s['live_bytes'] for s in group)):>7} MiB "
              f"peak {mib(sum(s['peak_bytes'] for s in group)):>7} in {len(group)} sites")
    if isinstance(segs, list) and full:
        sizes = sorted((s["total_size"] for s in segs), reverse=True)
        print("   torch segments (MiB):", " ".join(mib(n) for n in sizes[:40]))
    shown = sites if full else sorted(sites, key=lambda s: -s["peak_bytes"])[:most]
    for s in shown:
        print(f"   site {s['id']} {s['space']}{s['device']} {s['class']:7} "
              f"live {mib(s['live_bytes'])}/{s['live_blocks']} peak {mib(s['peak_bytes'])} allocs {s['allocated_blocks']} "
              f"{owner(s['frames'])} py {python_line(s['frames'])}")
        print(f"      {native_frames(s['frames'], 6 if full else 3)[:400 if full else 160]}")


# What memgrow's bytes of PyTorch's allocator are compared with, per mode:
# the caching allocators keep whole segments (reserved); without caching each
# tensor is a cudaMalloc of its own, and with cudaMallocAsync a
# cudaMallocAsync of its own (allocated). The driver's pool behind
# cudaMallocAsync reserves more (reserved), through no call memgrow sees.
# PYTORCH_NO_CUDA_MEMORY_CACHING turns PyTorch's counters off (both read 0):
# its reference is the cudaMallocAsync run's allocated at the same mark (the
# same tensors at their requested sizes; the caching runs count them rounded
# up to 512 bytes), else the caching run's.
REFERENCE = {"caching": "reserved", "expandable": "reserved", "nocache": "allocated",
             "async": "allocated"}


def reference(d, mode, keep, t):
    """The PyTorch counter memgrow's allocator bytes should equal at each
    mark, and where it comes from."""
    key = REFERENCE[mode]
    ref = [m[key] for m in t.get("marks", [])]
    if any(ref):
        return key, ref
    for other_name in (f"{pre}_{m}_{keep}" for m in ("async", "caching")
                       for pre in ("mg", "native")):
        other = load(os.path.join(d, other_name + ".torch.json"))
        if other and any(m[key] for m in other.get("marks", [])):
            return f"{key} of {other_name}", [m[key] for m in other["marks"]]
    return key, ref


def first_last(v):
    return f"{mib(v[0] if v else None)}->{mib(v[-1] if v else None)}"


def python_lines(frames):
    return " < ".join(f"{os.path.basename(fr[1] or '?')}:{fr[2]}" for fr in frames if fr[4])


def modes_table(d, full):
    print("== allocator modes: memgrow's device bytes of PyTorch's allocator at each mark vs the "
          "counter they should equal (reserved: caching, expandable; allocated: no caching, "
          "cudaMallocAsync); outside: cuBLAS's workspaces and the rest, not PyTorch's")
    for keep in ("tensor", "item"):
        for mode in MODES:
            name = f"mg_{mode}_{keep}"
            x = load(os.path.join(d, name + ".x.json"))
            t = load(os.path.join(d, name + ".torch.json"))
            if x is None or t is None:
                print(f"{name}: missing ({'no report' if x is None else ''} "
                      f"{'no torch stats' if t is None else ''})")
                continue
            marks = t.get("marks", [])
            key, ref = reference(d, mode, keep, t)
            n = min(len(marks), len(ref), x.get("mark_buckets") or 0)
            mine = [device_live_at(x, k, "PyTorch allocator") for k in range(n)]
            dev = [device_live_at(x, k) for k in range(n)]
            ref = ref[:n]
            offs = [abs(a - b) / b for a, b in zip(mine, ref) if b]
            off = f"{100 * max(offs):.2f}%" if len(offs) == n and n else "-"
            res = [m["reserved"] for m in marks[:n]]
            alc = [m["allocated"] for m in marks[:n]]
            grow = [s for s in x["device_sites"] if s["class"] in ("growing", "leaked")]
            print(f"{name:22} {str(t.get('backend'))[:15]:15} marks {x['marks']['count']:>3} "
                  f"cmp {n:>3} PyTorch's {first_last(mine)} vs {key} {first_last(ref)} MiB, "
                  f"max off {off}; outside {mib(dev[-1] - mine[-1] if dev else None)}; torch "
                  f"res {first_last(res)} alc {first_last(alc)}; growing dev sites {len(grow)}, "
                  f"host {x['host_growing_count']}")
            for s in grow[:3]:
                print(f"      growing {s['space']} {s['live_bytes']} B/{s['live_blocks']} "
                      f"+{s['growth']['rate_per_mark']} B/mark {owner(s['frames'])} at py "
                      f"{python_lines(s['frames'])}")
            if full:
                print("      mine", mine)
                print("      ref ", ref)
                print("      dev ", dev)
                for s in x["host_growing"][:5]:
                    print(f"      host growing {s['live_bytes']} B py {python_line(s['frames'])}: "
                          f"{native_frames(s['frames'], 3)[:200]}")


def sanitizer_counts(text):
    leaks = [int(m.replace(",", "")) for m in re.findall(r"Leaked ([0-9,]+) bytes", text)]
    api = re.findall(r"Program hit (\w+) .*? on CUDA API call to (\w+)", text)
    kern = re.findall(r"Invalid __global__ (\w+) of size (\d+)", text)
    summ = re.search(r"ERROR SUMMARY: (\d+) error", text)
    return (f"errors {summ[1] if summ else '?'}; leaks {len(leaks)} ({sum(leaks)} B); "
            f"API {', '.join(f'{f}:{e}' for e, f in api)}; kernel {len(kern)} "
            f"{kern[0] if kern else ''}")


def memgrow_counts(x):
    if x is None:
        return "no report"
    kinds = {}
    for e in x["errors"]:
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    dev = x["device_sites"]
    lost = sum((s.get("leak") or [0])[0] for s in dev)
    at_exit = sum(s["at_exit_bytes"] for s in dev)
    lc = x.get("leak_check") or {}
    host = (lc.get("definite") or {}).get("bytes", 0) - lost
    return (f"errors {kinds}; device definitely lost {lost} B, at exit {at_exit} B; host "
            f"definitely lost {host} B")


def sanitizer_table(d, rows, full):
    print("== compute-sanitizer beside memgrow (static cudart programs), the C programs")
    others = []
    for r in rows:
        if not r["name"].startswith(("cs_", "mg_sbs", "mg_c_", "native_sbs")):
            continue
        if not full and r["name"].startswith("mg_c_") and not r["name"].endswith("_static"):
            others.append(f"{r['name'][5:]} rc {r['rc']} {r['wall']:.0f} s")
            continue
        try:
            with open(os.path.join(d, r["name"] + ".out"), errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        what = (sanitizer_counts(text) if r["name"].startswith("cs_") else
                memgrow_counts(load(os.path.join(d, r["name"] + ".x.json"))))
        if r["name"] == "native_sbs":
            what = "natively"
        print(f"{r['name']:26} rc {r['rc']:>3} {r['wall']:6.1f} s  {what}"[:300])
    if others:
        print("   also under memgrow:", "; ".join(others))


def stats(d):
    print("== Valgrind --stats (translations) and memgrow -v lines")
    for log in sorted(glob.glob(os.path.join(d, "t_*.log"))):
        with open(log, errors="replace") as f:
            lines = [re.sub(r"^[=-]+[0-9:. ]+[=-]+ *", "", ln.rstrip()) for ln in f]
        keep = [ln for ln in lines if re.search(
            r"transtab: +new|translate: +(fast|generic)|scheduler: .*event checks|"
            r"start-up took|warm-up ends|ERROR SUMMARY|Process terminating", ln)]
        print(f"{os.path.basename(log)}: " + " | ".join(k[:90] for k in keep[:4]))


def main():
    d = sys.argv[1]
    full = "--full" in sys.argv
    rows = []
    try:
        with open(os.path.join(d, "times.jsonl")) as f:
            rows = [json.loads(ln) for ln in f if ln.strip()]
    except OSError:
        pass
    rows.sort(key=lambda r: r["name"])
    times_table(d, rows, full)
    print("== where the device bytes are (owner: the innermost library past the shim, "
          "cudart and the driver)")
    for name in ["t_hunt", "t_default"] + [f"mg_{m}_{k}" for k in ("tensor", "item")
                                           for m in MODES]:
        if full or name == "t_hunt" or name.endswith("_tensor"):
            attribution(d, name, full, 6 if name == "t_hunt" else 0)
    modes_table(d, full)
    sanitizer_table(d, rows, full)
    stats(d)


if __name__ == "__main__":
    main()
