"""A small, real training loop for ``ferry run --trips`` on a GPU (run_all.sh step 6).

An MLP classifier on synthetic data, written the way the lessons' readers write
it: the portable device line, the model moved once, each batch moved in the
loop, and the common habit of reading ``loss.item()`` every step (one host sync
per step, which ``--trips`` should point at) next to the better habit of
accumulating on the device and reading once per epoch.

    PYTHONPATH=src python3 benchmarks/gpu/train_loop.py
"""

from __future__ import annotations

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import torchferry


def main() -> None:
    torch.manual_seed(0)
    device = torchferry.device()
    x = torch.randn(2048, 64)
    y = (x[:, :8].sum(dim=1) > 0).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=128, shuffle=True)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 2)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(3):
        running = torch.zeros((), device=device)  # accumulated on the device
        last = 0.0
        for inputs, labels in loader:
            inputs, labels = inputs.to(device), labels.to(device)
            loss = loss_fn(model(inputs), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.detach()
            last = loss.item()  # noqa: FRY007 - one sync per step, on purpose: what --trips must flag
        print(f"epoch {epoch}: mean loss {running.item() / len(loader):.4f} (last {last:.4f})")


if __name__ == "__main__":
    main()
