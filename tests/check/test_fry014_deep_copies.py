"""FRY014 on a copy of a module (``self.fixed = copy.deepcopy(self.encoder)``): the copy is
where the module is when it is made, and a method of the module's class that hands its
argument to the weights (``self.fixed.zs(state)``) meets them, as the module's own does.
A copy of a moved module, or one that a method moves, is no mismatch."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

AGENT = '''
import copy

import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.l = nn.Linear(d, d)

    def zs(self, state):
        return self.l(state)


class Agent(object):
    def __init__(self, d):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.encoder = Encoder(d){move}
        self.fixed = copy.deepcopy(self.encoder)
        self.target = copy.deepcopy(self.fixed)

    def act(self, state):
        state = torch.tensor(state, dtype=torch.float, device=self.device)
        return self.fixed.zs(state) + self.target.zs(state)
{more}'''


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(textwrap.dedent(source), "t.py") if f.code == "FRY014"]


def test_a_copy_of_an_unmoved_module_meets_an_input_on_the_device() -> None:
    assert lines(AGENT.format(move="", more="")) == [26, 26]


@pytest.mark.parametrize(("move", "more"), [
    (".to(self.device)", ""),
    ("", "\n    def place(self):\n        self.fixed.to(self.device)\n        self.target.to(self.device)\n"),
])
def test_a_copy_of_a_moved_module_or_one_moved_later_is_quiet(move: str, more: str) -> None:
    assert lines(AGENT.format(move=move, more=more)) == []
