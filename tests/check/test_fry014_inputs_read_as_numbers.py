"""A module whose ``forward`` reads an argument only as a number or a shape (a slice bound,
``int(t)``, ``t.size(0)``, a comparison with a number, a formatted value) never hands it to
its weights: a CPU tensor given there, ``self.pos(torch.tensor(0), torch.tensor(n))`` of a
``forward`` that returns ``self.weight[start:end]``, is no mismatch with the module's
device.  An argument the ``forward`` hands to a layer, multiplies with a weight, compares
with a tensor, indexes a tensor with, or gives to a helper still is."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

TEMPLATE = """\
    import torch
    from torch import nn
    from helpers import run


    class Part(nn.Module):
        def __init__(self, n, d):
            super().__init__()
            self.n = n
            self.weight = nn.Parameter(torch.zeros(n, d))
            self.fc = nn.Linear(d, d)

        def forward(self, start, end):
    {body}


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.part = Part(10, 4)

        def forward(self, x, n):
            return x + self.part(torch.tensor(0), torch.tensor(n))


    device = "cuda" if torch.cuda.is_available() else "cpu"
    net = Net().to(device)
    net(torch.zeros(3, 4, device=device), 3)
    """

NUMBER_READS = {
    "slice_bounds": "return self.weight[start:end]",
    "slice_bound_arithmetic": "return self.weight[start:end + 1]",
    "asserted_against_a_number": (
        'assert end <= self.n, f"no position {end} past {self.n}"\n'
        "            return self.weight[start:end]"),
    "int_and_range": "return torch.stack([self.weight[i] for i in range(int(start), int(end))])",
    "shape_read": "return self.weight[: start.numel() + end.dim()]",
}

WEIGHT_USES = {
    "handed_to_a_layer": "return self.fc(self.weight[start:end] * end)",
    "multiplied_with_a_weight": "return self.weight[:3] @ start",
    "compared_with_a_weight": "return (start == self.weight) & (end == self.weight)",
    "indexing_a_weight": "return self.weight[start] + self.weight[end]",
    "given_to_a_helper": "return run(self.weight, start, end)",
}


def lines(body: str) -> list[int]:
    source = textwrap.dedent(TEMPLATE).replace("{body}", "        " + body)
    return sorted(f.line for f in check_source(source, "m.py", select=["FRY014"]) if f.code == "FRY014")


@pytest.mark.parametrize("name", sorted(NUMBER_READS))
def test_quiet_for_an_argument_read_only_as_a_number(name: str) -> None:
    assert lines(NUMBER_READS[name]) == []


@pytest.mark.parametrize("name", sorted(WEIGHT_USES))
def test_an_argument_that_may_meet_the_weights_still_counts(name: str) -> None:
    assert lines(WEIGHT_USES[name]) == [23]
