"""A training loop that reads ``loss.item()`` on every step: one host sync per step,
each one waiting for the GPU to finish.  Count the rides on any machine:

    ferry run --simulate cuda --trips examples/item_every_step.py

The table shows the ``loss.item()`` line with one sync per step and the fix:
accumulate on the device and read one number per epoch.
"""

import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = torch.randn(20, 16, 32)  # 20 batches of 16 examples, still on the CPU
target = data.sum(-1, keepdim=True)

running = 0.0
for step in range(20):
    x, y = data[step].to(device), target[step].to(device)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()  # a host sync on every step
print(f"mean loss {running / 20:.3f}")
