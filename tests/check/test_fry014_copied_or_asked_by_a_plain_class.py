"""FRY014: a model a plain class (an agent) builds on the CPU, copies (``copy.deepcopy``:
a new object, the original left where it is) or asks one of its own methods that moves
nothing, meets the inputs the class moves to the device."""

from __future__ import annotations

from collections.abc import Callable

import pytest

AGENT = """\
import copy

import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    def first(self, x):
        return self.fc(torch.cat([x, x], 1))

    def placed(self, x):
        self.to(x.device)
        return self.fc(x)

    def through(self, x):
        return self.placed(x)


class Agent(object):
    def __init__(self):
        self.actor = Net()
        USE

    def act(self, state):
        state = torch.FloatTensor(state.reshape(1, -1)).to(device)
        return self.actor(state).cpu().data.numpy().flatten()
"""

CALL = AGENT.splitlines().index("        return self.actor(state).cpu().data.numpy().flatten()") + 1


def _agent(use: str, built: str = "Net()") -> str:
    return AGENT.replace("USE", use).replace("self.actor = Net()", f"self.actor = {built}")


@pytest.mark.parametrize("use", [
    "self.target = copy.deepcopy(self.actor)",
    "self.target = copy.copy(self.actor)",
    "self.first = self.actor.first",
])
def test_a_copied_or_asked_model_never_moved_meets_the_moved_input(
    finding_lines: Callable[..., list[int]], use: str
) -> None:
    assert finding_lines({"agent.py": _agent(use)}, "FRY014") == [CALL]


def test_a_copied_model_moved_where_it_is_built_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    src = _agent("self.target = copy.deepcopy(self.actor)", "Net().to(device)")
    assert finding_lines({"agent.py": src}, "FRY014") == []


@pytest.mark.parametrize("use", [
    "self.placed = self.actor.placed",          # a method that moves its own module
    "self.placed = self.actor.through",         # ... through another of its methods
    "self.target = share(self.actor)",          # handed to a call that may move it
    "self.target = copy.deepcopy(self.actor, memo={})",
])
def test_a_model_a_call_may_move_is_quiet(finding_lines: Callable[..., list[int]], use: str) -> None:
    src = _agent(use).replace("class Agent", "def share(m):\n    return m.cuda()\n\n\nclass Agent")
    assert finding_lines({"agent.py": src}, "FRY014") == []
