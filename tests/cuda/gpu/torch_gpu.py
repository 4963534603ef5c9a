# SPDX-License-Identifier: GPL-2.0-or-later
"""A training-like loop on the GPU that keeps one of every two results (a
known device leak into a list), then prints PyTorch's own totals, for
comparison with memgrow's device sites (tests/cuda/gpu/run.sh); with a file
name as argv[1], also writes them there (torch_stats.dump). The loop the
kit times natively and under each tool."""
import sys
import time

from torch_stats import counters, dump, phase

t0 = time.time()
import torch  # noqa: E402

t1 = time.time()
phase("import")
torch.zeros(1, device="cuda")  # cuInit, the context
t2 = time.time()
phase("cuda-init")
keep = []
for step in range(20):
    a = torch.randn(1024, 1024, device="cuda")  # 4 MiB
    b = a @ a  # cuBLAS
    if step % 2 == 0:
        keep.append(b)
    torch.cuda.synchronize()
t3 = time.time()
phase("loop")
c = counters(torch)
print("allocated_bytes:", c["allocated"], "reserved_bytes:", c["reserved"])
print("kept tensors:", len(keep), "bytes each:", keep[0].numel() * keep[0].element_size())
print("seconds: import %.1f cuda-init %.1f loop %.1f" % (t1 - t0, t2 - t1, t3 - t2), flush=True)
if len(sys.argv) > 1:
    dump(sys.argv[1], torch)
