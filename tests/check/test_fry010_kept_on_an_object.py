"""FRY010 for a tensor that the ``__init__`` of a plain class (not a module) keeps on
``self`` without a device and another method of the class reads as written
(``self.support``) where it meets a tensor the run's own code puts on the accelerator:
the output of a model moved there, a tensor moved there.  Quiet where the file binds the
attribute again (a later move, another value joined into it), where the method reads an
item of it, where the partner may only be on the device (a parameter without calls), in
another class, and in a module (``FRY011``'s business)."""

from __future__ import annotations

import textwrap

from torchferry.check.engine import check_source

AGENT = """
import torch
import torch.nn as nn


class Agent:
    def __init__(self, device, atoms):
        self.support = torch.linspace(-10, 10, atoms)
        self.net = nn.Linear(4, atoms).to(device=device)

    def act(self, state):
        return (self.net(state) * self.support).sum(1).argmax(1).item()
"""

MEMORY = """
import torch


class Memory:
    def __init__(self, device, n):
        self.device = device
        self.scaling = torch.tensor([0.9 ** i for i in range(n)])

    def returns(self, rewards):
        rewards = rewards.to(self.device)
        return torch.matmul(rewards, self.scaling)
"""

MOVED_LATER = (
    AGENT
    + """
    def to_device(self, device):
        self.support = self.support.to(device)
"""
)

BOUND_OUTSIDE = (
    AGENT
    + """

def setup(agent, device):
    agent.support = agent.support.to(device)
"""
)

ITEM = """
import torch
import torch.nn as nn


class Agent:
    def __init__(self, device, atoms):
        self.support = torch.linspace(-10, 10, atoms)
        self.net = nn.Linear(4, atoms).to(device=device)

    def act(self, state, i):
        return (self.net(state) * self.support[i]).sum(1).argmax(1).item()
"""

UNPLACED = """
import torch


class Memory:
    def __init__(self, n):
        self.scaling = torch.tensor([0.9 ** i for i in range(n)])

    def returns(self, rewards):
        return torch.matmul(rewards.float(), self.scaling).item()
"""

OTHER_CLASS = """
import torch
import torch.nn as nn


class Table:
    def __init__(self, atoms):
        self.support = torch.linspace(-10, 10, atoms)


class Agent:
    def __init__(self, device, table):
        self.table = table
        self.net = nn.Linear(4, 5).to(device=device)

    def act(self, state):
        return (self.net(state) * self.table.support).sum(1).argmax(1).item()
"""


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(textwrap.dedent(source), "t.py", select=["FRY010"])]


def line_of(source: str, text: str) -> int:
    return next(i for i, s in enumerate(textwrap.dedent(source).splitlines(), 1) if text in s)


def test_kept_factory_meets_the_output_of_a_moved_model() -> None:
    assert lines(AGENT) == [line_of(AGENT, "torch.linspace")]
    (f,) = check_source(AGENT, "t.py", select=["FRY010"])
    assert "the code puts on the accelerator" in f.message
    assert any(e.line == line_of(AGENT, "self.net(state) * self.support") for e in f.evidence)


def test_kept_data_meets_a_tensor_moved_by_the_method() -> None:
    assert lines(MEMORY) == [line_of(MEMORY, "self.scaling = torch.tensor")]


def test_an_attribute_bound_again_in_the_file_is_quiet() -> None:
    assert lines(MOVED_LATER) == []
    assert lines(BOUND_OUTSIDE) == []


def test_an_item_of_the_kept_tensor_is_quiet() -> None:
    assert lines(ITEM) == []


def test_a_partner_of_unknown_place_is_quiet() -> None:
    assert lines(UNPLACED) == []


def test_a_tensor_kept_by_another_class_is_quiet() -> None:
    assert lines(OTHER_CLASS) == []
