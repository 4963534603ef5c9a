# SPDX-License-Identifier: GPL-2.0-or-later
"""A small CPU training loop, as a new user writes it: nothing in it knows
of memgrow (steps become marks with --mark-at=torch).

argv[1] = "tensor" keeps every step's loss tensor in a list, and with it the
step's autograd graph and the activations it saved: memory grows at the
forward line. "item" first makes a fused attention call 50 times (a
one-time initialisation, then steady), then keeps loss.item(), a float:
nothing grows. argv[2]: the number of steps."""
import sys

import torch

torch.manual_seed(0)
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
losses = []
if sys.argv[1] == "item":
    attention = torch.nn.MultiheadAttention(64, 4, batch_first=True).eval()
    q = torch.randn(2, 16, 64)
    with torch.no_grad():
        for _ in range(50):
            out = attention(q, q, q, need_weights=False)  # TORCH_ATTENTION
for step in range(int(sys.argv[2]) if len(sys.argv) > 2 else 400):
    x, y = torch.randn(128, 64), torch.randn(128, 1)  # TORCH_RANDN
    loss = torch.nn.functional.mse_loss(model(x), y)  # TORCH_FORWARD
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()  # TORCH_STEP
    losses.append(loss if sys.argv[1] == "tensor" else loss.item())  # TORCH_KEEP
print(len(losses))
