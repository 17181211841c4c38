"""A training script with the mistakes the lessons warn about, for `ferry check` to find.

    ferry check examples/train_with_mistakes.py          # explain each finding
    ferry check --diff examples/train_with_mistakes.py   # what --fix would change
"""

import time

import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# Each mistake below is one the lessons warn about; `ferry check` names it.

class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
        self.scale = torch.ones(2)  # not a buffer: model.cuda() leaves it on the CPU

    def forward(self, x):
        mask = torch.ones(x.shape[0], 1)  # made on the CPU whatever x's device
        return self.net(x * mask) * self.scale


model = Classifier().cuda()  # hard-coded
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
dataset = TensorDataset(torch.randn(1600, 10), torch.randint(0, 2, (1600,)))
loader = DataLoader(dataset, batch_size=16, shuffle=True)

for inputs, labels in loader:
    inputs = inputs.to("cuda")
    noise = torch.randn(16, 10).to("cuda")  # built on the CPU, then copied
    outputs = model(inputs + noise)
    loss = loss_fn(outputs, labels)  # the labels missed the ferry
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("loss", loss.item())  # a host sync on every step

test_inputs = torch.randn(4096, 10, device="cuda")
start = time.perf_counter()
scores = model(test_inputs).softmax(-1)
elapsed = time.perf_counter() - start  # measures the queueing, not the work

scores.cpu()  # copies, then throws the copy away
plt.plot(scores.numpy())  # NumPy cannot read GPU memory

state = torch.load("checkpoint.pt")  # a GPU checkpoint fails on a CPU-only machine
