# SPDX-License-Identifier: GPL-2.0-or-later
"""What PyTorch itself says of its device memory, for comparison with
memgrow's device sites (tests/cuda/gpu/run.sh, summarize.py): its counters,
the allocator backend, and the segments of its snapshot (address, size,
type), written as JSON. Shared by torch_gpu.py and torch_marks.py."""
import json
import os
import sys
import time

START = time.time()


def phase(name):
    """Prints how long the run has taken so far: a run killed at its time
    limit still shows how far it got."""
    print(f"phase {name} {time.time() - START:.1f}", flush=True)


def counters(torch):
    return {"reserved": torch.cuda.memory_reserved(), "allocated": torch.cuda.memory_allocated()}


def segments(torch):
    """The caching allocator's segments; the cudaMallocAsync backend has no
    snapshot."""
    try:
        snap = torch.cuda.memory_snapshot()
    except Exception as e:  # noqa: BLE001 - whatever the backend refuses
        return f"no snapshot: {e}"
    return [{"address": s.get("address"), "total_size": s.get("total_size"),
             "allocated_size": s.get("allocated_size"), "segment_type": s.get("segment_type"),
             "blocks": len(s.get("blocks", []))} for s in snap]


def dump(path, torch, **extra):
    """Writes the counters, the backend and the segments now to path."""
    try:
        backend = torch.cuda.get_allocator_backend()
    except Exception as e:  # noqa: BLE001
        backend = f"unknown: {e}"
    d = {"argv": sys.argv, "torch": torch.__version__, "cuda": torch.version.cuda,
         "device": torch.cuda.get_device_name(0), "backend": backend,
         "env": {k: v for k, v in os.environ.items() if k.startswith(("PYTORCH_", "PYTHONMALLOC"))},
         "end": counters(torch), "segments": segments(torch), **extra}
    with open(path, "w") as f:
        json.dump(d, f)
