"""A small CPU training loop. argv[1] = "tensor" keeps every step's loss
tensor in a list, and with it the step's autograd graph and the activations
it saved: memory grows at the forward line. "item" keeps loss.item(), a
float: nothing grows. Each step is a memgrow mark (a training step is the
program's repetition: importing torch is start-up, not growth)."""
import sys

import torch

try:
    import memgrow  # on the path under memgrow
except ImportError:  # natively: no marks
    memgrow = None

torch.manual_seed(0)
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
losses = []
for step in range(int(sys.argv[2]) if len(sys.argv) > 2 else 400):
    x, y = torch.randn(32, 64), torch.randn(32, 1)
    loss = torch.nn.functional.mse_loss(model(x), y)  # TORCH_FORWARD
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss if sys.argv[1] == "tensor" else loss.item())  # TORCH_KEEP
    if memgrow:
        memgrow.mark("step")
print(len(losses))
