"""The lessons' portable pattern, written with torchferry.  Runs on any machine.

    python examples/portable.py
    ferry run --simulate cuda examples/portable.py   # the same file, as on a GPU machine
"""

import os
import tempfile

import torch
from torch import nn

import torchferry as tf

device = tf.device()  # pick the device once (cuda, xpu, mps or cpu)
print("using:", device)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)  # in place
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

# A batch as a data loader hands it out: nested, with non-tensor fields.
batches = [
    {"inputs": torch.randn(8, 4), "labels": torch.randint(0, 2, (8,)), "ids": list(range(8))}
    for _ in range(5)
]

total = torch.zeros((), device=device)  # accumulate on the device ...
for batch in batches:
    batch = tf.to(batch, device)  # every tensor inside makes the ferry, labels included
    loss = loss_fn(model(batch["inputs"]), batch["labels"])
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.detach()

print("mean loss:", round(tf.pyvalue(total) / len(batches), 4))  # ... and read one number
probs = tf.numpy(model(batch["inputs"]).softmax(-1))  # detached, on the host, NumPy
print("probabilities:", probs.shape, probs.dtype)

path = os.path.join(tempfile.mkdtemp(), "model.pt")
tf.save(model.state_dict(), path)  # CPU tensors, written atomically
state = tf.load(path)  # loads on any machine, weights only
print("checkpoint tensors on:", {t.device.type for t in state.values()})
