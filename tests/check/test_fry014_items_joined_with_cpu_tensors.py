"""FRY014 follows an item of a loader's batch, never moved while another item is, through
arithmetic with tensors the run made on the CPU (``x + torch.randn(x.size())``, in the
loop or in a function of the run that returns such a sum of its parameter): both sides
are on the CPU, so the model's input is.  It stays quiet where the sum is moved, where it
draws on another parameter (which may be on the device) or on a module's output."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = """
import torch
from torch import nn
from torchvision import datasets, transforms

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = torch.utils.data.DataLoader(
    datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor()),
    batch_size=64, shuffle=True)
net = nn.Linear(784, 10).to(DEVICE)


def add_noise(img):
    noise = torch.randn(img.size()) * 0.2
    return img + noise


def shifted(img, by):
    return img + by
"""

TAIL = """
train(net, loader)
"""

REPORTED = {
    "through_a_helper": """
def train(model, loader):
    for step, (x, label) in enumerate(loader):
        noisy = add_noise(x)
        noisy = noisy.view(-1, 784)
        label = label.to(DEVICE)
        out = model(noisy)
""",
    "inline_sum": """
def train(model, loader):
    for x, label in loader:
        noisy = (x + torch.randn(x.size())).view(-1, 784)
        label = label.to(DEVICE)
        out = model(noisy)
""",
}

QUIET = {
    "sum_moved": """
def train(model, loader):
    for step, (x, label) in enumerate(loader):
        noisy = add_noise(x).view(-1, 784).to(DEVICE)
        label = label.to(DEVICE)
        out = model(noisy)
""",
    "joined_with_a_parameter": """
def train(model, loader, bias):
    for x, label in loader:
        noisy = shifted(x, bias).view(-1, 784)
        label = label.to(DEVICE)
        out = model(noisy)
""",
    "no_item_moved": """
def train(model, loader):
    for x, label in loader:
        noisy = add_noise(x).view(-1, 784)
        out = model(noisy)
""",
}


def _lines(body: str) -> list[int]:
    return [f.line for f in check_source(HEAD + body + TAIL, "t.py", select=["FRY014"])]


def _call_line(body: str) -> int:
    return next(i for i, ln in enumerate((HEAD + body).splitlines(), 1) if "out = model(" in ln)


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_an_item_joined_with_a_cpu_tensor_is_flagged(name: str) -> None:
    assert _lines(REPORTED[name]) == [_call_line(REPORTED[name])]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_a_moved_or_uncertain_sum_is_quiet(name: str) -> None:
    assert _lines(QUIET[name]) == []
