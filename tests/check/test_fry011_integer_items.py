"""FRY011 on a 1-D tensor of numbers read only by items taken with a Python integer.

``self.w = torch.FloatTensor([a / 2 ** s for s in range(n)])`` read as ``self.w[i] * h``
with ``i`` the counter of ``enumerate`` (or a loop variable of ``range``, or a literal)
gives a 0-dim CPU tensor, which PyTorch accepts in arithmetic with a tensor on any device:
quiet.  Indexed by a tensor, used whole, or of data that may be a sequence, it is flagged."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

WEIGHTS = """
import torch
import torch.nn as nn

class MultiScale(nn.Module):
    def __init__(self, scales=5, weight=0.32):
        super().__init__()
        self.weights = torch.FloatTensor([weight / 2 ** s for s in range(scales)])
        self.fc = nn.Linear(4, 4)

    def forward(self, outputs, target):
        loss = 0
        for i, out in enumerate(outputs):
            loss += self.weights[i] * (self.fc(out) - target).abs().mean()
        return loss
"""

QUIET = {
    "enumerate": WEIGHTS,
    "range": WEIGHTS.replace(
        "for i, out in enumerate(outputs):\n",
        "for i in range(len(outputs)):\n            out = outputs[i]\n",
    ),
    "literal": WEIGHTS.replace("self.weights[i]", "self.weights[0]"),
    "written out": WEIGHTS.replace(
        "[weight / 2 ** s for s in range(scales)]", "[0.32, 0.08, 0.02]"
    ),
}

FLAGGED = {
    "whole": WEIGHTS.replace(
        "self.weights[i] * (self.fc(out) - target).abs().mean()",
        "(self.weights * self.fc(out)).sum()",
    ),
    "tensor index": WEIGHTS.replace("self.weights[i]", "self.weights[target.long()]"),
    "sequence data": WEIGHTS.replace(
        "[weight / 2 ** s for s in range(scales)]", "[weight for s in range(scales)]"
    ).replace("weight=0.32", "weight=None"),
}


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY011"])]


def line_of(source: str, text: str) -> int:
    return next(k for k, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize("name", sorted(QUIET))
def test_items_taken_with_an_integer_are_cpu_scalars(name: str) -> None:
    assert lines(QUIET[name]) == []


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_other_uses_stay_flagged(name: str) -> None:
    source = FLAGGED[name]
    assert lines(source) == [line_of(source, "self.weights = ")]
