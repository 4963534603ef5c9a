"""A training-like loop on the GPU that keeps one of every two results (a
known device leak into a list), then prints PyTorch's own totals, for
comparison with memgrow's device sites (tests/cuda/gpu/run.sh)."""
import os
import sys
import time

t0 = time.time()
import torch  # noqa: E402

t1 = time.time()
torch.zeros(1, device="cuda")  # cuInit, the context
t2 = time.time()
keep = []
for step in range(20):
    a = torch.randn(1024, 1024, device="cuda")  # 4 MiB
    b = a @ a  # cuBLAS
    if step % 2 == 0:
        keep.append(b)
    torch.cuda.synchronize()
t3 = time.time()
print("mode:", os.environ.get("PYTORCH_CUDA_ALLOC_CONF"),
      os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING"))
print("allocated_bytes:", torch.cuda.memory_allocated(),
      "reserved_bytes:", torch.cuda.memory_reserved())
print("kept tensors:", len(keep), "bytes each:", keep[0].numel() * keep[0].element_size())
print("seconds: import %.1f cuda-init %.1f loop %.1f" % (t1 - t0, t2 - t1, t3 - t2))
sys.stdout.flush()
