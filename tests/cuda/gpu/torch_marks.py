# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/regress/py_torch_loop.py's training loop on the GPU, with a mark
after each step (memgrow.mark under memgrow, nothing natively) and PyTorch's
own counters recorded just before it, for comparison with memgrow's device
live bytes at each mark (the report's mark_series; tests/cuda/gpu/run.sh).
Its SGD step is written out: torch.optim's optimizer imports torch._dynamo
at its construction (torch._disable_dynamo), 160 of a run's 300 s under
memgrow on the H100 (bench/results/gpu).

argv: "tensor" (keep each step's loss tensor) or "item" (keep loss.item()),
the number of steps, and the JSON file for torch_stats.dump."""
import sys

from torch_stats import counters, dump, phase

import torch  # noqa: E402

try:
    import memgrow  # on the path under memgrow (its preload puts it there)
except ImportError:
    memgrow = None

phase("import")
keep, steps, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 1)).cuda()  # cuInit, the context
phase("cuda-init")
losses, marks = [], []
for step in range(steps):
    x, y = torch.randn(128, 64, device="cuda"), torch.randn(128, 1, device="cuda")
    loss = torch.nn.functional.mse_loss(model(x), y)  # TORCH_FORWARD
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p.sub_(p.grad, alpha=0.01)
            p.grad = None  # as optimizer.zero_grad()
    losses.append(loss if keep == "tensor" else loss.item())  # TORCH_KEEP
    torch.cuda.synchronize()
    marks.append(counters(torch))
    if memgrow:
        memgrow.mark("step")
phase("loop")
dump(out, torch, marks=marks, memgrow=bool(memgrow and memgrow.running()))
print("kept", len(losses), "end", counters(torch), flush=True)
