"""A module class of the run given ``device=`` that keeps it only as the place of the
tensors its methods make (``self.device = device``, handed on to submodules that do the
same) leaves its weights on the CPU: a model built so and never moved, given an input moved
to the device, is reported."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.fc = nn.Linear(n, n{block_kw})
        self.device = device

    def forward(self, x):
        pos = torch.arange(0, x.shape[1]).expand(x.shape[0], x.shape[1]).to(self.device)
        return self.fc(x) + pos{block_use}


class Net(nn.Module):
    def __init__(self, n, device="cpu"):
        super().__init__()
        self.block = Block(n, device)
        self.device = device{net_init}

    def mask(self, x):
        m = (x != 0).unsqueeze(1)
        return m.to(self.device)

    def forward(self, x):
        return self.block(x) * self.mask(x)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.randn(2, 4).to(device)
    model = Net(4, device=device)
    return model(x)
"""


def lines(block_kw: str = "", block_use: str = "", net_init: str = "") -> list[int]:
    src = textwrap.dedent(SOURCE.format(block_kw=block_kw, block_use=block_use, net_init=net_init))
    return [f.line for f in check_source(src, "t.py", select=["FRY014"])]


def test_a_model_given_a_device_it_keeps_for_tensors_is_reported() -> None:
    assert lines() == [35]


@pytest.mark.parametrize(
    "block_kw, block_use, net_init",
    [
        (", device=device", "", ""),
        ("", "", "\n        self.to(device)"),
        ("", "", "\n        self.w = nn.Parameter(torch.zeros(4, device=self.device))"),
        ("", " + self.fc.to(self.device)(x)", ""),
        ("", "", "\n        layer = self.block\n        layer.to(self.device)"),
        (
            "",
            "\n\n    def grow(self):\n        self.register_buffer('p', torch.zeros(4, device=self.device))",
            "",
        ),
    ],
)
def test_a_model_that_may_place_its_weights_there_is_not_reported(
    block_kw: str, block_use: str, net_init: str
) -> None:
    assert lines(block_kw, block_use, net_init) == []
