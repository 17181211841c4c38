"""A loader item handed, unmoved, to a method of a moved model that hands its argument to
the model's weights (``model.stn(data)``, where ``stn`` runs ``self.localization(x)``) is
reported when the file moves the batches it gives the model elsewhere."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Linear(4, 4)
        self.fc = nn.Linear(4, 2)

    def warp(self, x):
        return self.loc(x)

    def shape(self, x):
        return x.view(-1)

    def forward(self, x):
        return self.fc(self.warp(x))


model = Net().to(device)


def train(loader):
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        model(data)


def show(loader):
    data = next(iter(loader))[0]{move}
    return model.{method}(data)
"""


def lines(move: str = "", method: str = "warp") -> list[int]:
    src = textwrap.dedent(SOURCE.format(move=move, method=method))
    return [f.line for f in check_source(src, "t.py", select=["FRY014"])]


def test_an_unmoved_item_given_to_a_weighed_method_is_reported() -> None:
    assert lines() == [35]


@pytest.mark.parametrize(
    "move, method",
    [(".to(device)", "warp"), ("", "shape")],
)
def test_a_moved_item_or_a_method_without_weights_is_not_reported(move: str, method: str) -> None:
    assert lines(move, method) == []
