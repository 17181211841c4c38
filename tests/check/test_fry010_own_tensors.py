"""A CPU factory's result meeting a parameter or buffer of the module whose method meets it
(``self.decay ** torch.arange(n)``) fails on every run that moves the module to an
accelerator, whoever moves it: ``Certainty.OWN_TENSOR``, reported by the default rule set.
A meeting through an index, with a submodule's output or with a value that also draws on
another value stays ``Certainty.MAY``."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

OWN = "is a tensor of the module and goes wherever the module is moved"

SOURCE = """
import torch
from torch import nn


class Retention(nn.Module):
    def __init__(self, heads, dim):
        super().__init__()
        self.decay = nn.Parameter(torch.rand(heads), requires_grad=False)
        self.register_buffer("scale", torch.ones(heads))
        self.proj = nn.Linear(dim, dim)

    def mask(self, n):
        {line}

    def forward(self, x):
        return self.proj(x) * self.mask(x.shape[1]).sum()
"""


def run(line: str, default: bool) -> list[tuple[int, str]]:
    src = textwrap.dedent(SOURCE.format(line=line))
    select = None if default else ["FRY010"]
    return [(f.line, f.message) for f in check_source(src, "t.py", select=select) if f.code == "FRY010"]


@pytest.mark.parametrize("line", [
    "return self.decay.view(-1, 1) ** torch.arange(n)",  # a view of a parameter
    "return self.scale.unsqueeze(-1) * torch.ones(1, n)",  # a registered buffer
    "return torch.arange(n) * self.decay[:, None]",  # the factory first
])
def test_a_cpu_factory_meeting_a_tensor_of_the_module_is_reported_by_default(line: str) -> None:
    found = run(line, default=True)
    assert [ln for ln, _ in found] == [14]
    assert OWN in found[0][1]


@pytest.mark.parametrize("line", [
    "return self.proj(self.decay.new_ones(n, 4)) + torch.ones(n, 4)",  # a submodule's output
    "return self.decay[torch.arange(n) % 2]",  # an index: a CPU index reads any device
])
def test_other_meetings_stay_unsure_and_out_of_the_default_set(line: str) -> None:
    assert run(line, default=True) == []


def test_a_value_that_also_draws_on_an_input_stays_unsure() -> None:
    line = "return (self.decay[:, None] * n) + torch.ones(1, 3)"
    assert [OWN in m for _, m in run(line, default=False)] == [False]
    assert run(line, default=True) == []


REDUCED = """
import torch
from torch import nn


class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.tensor(0.0))

    def forward(self, x, lengths=None):
        if lengths is None:
            lengths = torch.ones(len(x))
        weight = lengths.sum()
        self.count.data = self.count + {operand}
        return x
"""


@pytest.mark.parametrize(("operand", "default"), [("weight", []), ("weight * 2", []), ("lengths", [13])])
def test_a_reduction_of_the_factory_is_0_dimensional_and_stays_unsure(operand: str, default: list[int]) -> None:
    src = textwrap.dedent(REDUCED.format(operand=operand))
    assert [f.line for f in check_source(src, "t.py") if f.code == "FRY010"] == default
    assert [f.line for f in check_source(src, "t.py", select=["FRY010"])] == [13]
