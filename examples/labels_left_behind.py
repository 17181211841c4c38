"""A small training loop whose labels miss the ferry: the inputs and the model move
to the device, the labels stay on the CPU.  On a CPU-only machine it runs fine;
on a GPU it fails at the loss.  See it fail, explained, on any machine:

    ferry run --simulate cuda examples/labels_left_behind.py

The report after the traceback names ``labels``, says it is on cpu while the
others are on cuda:0, where it was created, and the one-line fix.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)

features = torch.randn(256, 20)
targets = torch.randint(0, 4, (256,))
loader = DataLoader(TensorDataset(features, targets), batch_size=32, shuffle=True)

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(2):
    total = torch.zeros((), device=device)
    for inputs, labels in loader:
        inputs = inputs.to(device)  # the inputs make the ferry ...
        loss = loss_fn(model(inputs), labels)  # ... the labels do not
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.detach()
    print(f"epoch {epoch}: mean loss {total.item() / len(loader):.4f}")
