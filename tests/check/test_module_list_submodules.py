"""Modules a module's ``__init__`` adds to a registered ``nn.ModuleList``/``nn.ModuleDict`` of
its own (``self.blocks = nn.ModuleList()`` then ``self.blocks.append(Block())``) are its
submodules: moving the owner moves them, so in their class's methods ``self`` is where the
owner is, and NumPy on their output there is reported."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SRC = """\
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Coupling(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 4)

    def forward(self, x):
        return self.net(x).numpy()


class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        {init}

    def forward(self, x):
        for f in self.flows{values}:
            x = f(x)
        return x


{tail}
model = Block(2){move}
model(torch.randn(2, 4))
"""


def found(init: str, values: str = "", move: str = ".to(device)", tail: str = "") -> list[tuple[int, str]]:
    src = SRC.format(init=init, values=values, move=move, tail=tail)
    return [(f.line, f.code) for f in check_source(src, "<case>", select=["FRY003"])]


APPEND = "self.flows = nn.ModuleList()\n        for i in range(n):\n            self.flows.append(Coupling())"


@pytest.mark.parametrize(("init", "values"), [
    (APPEND, ""),
    ("self.flows = nn.ModuleList()\n        self.flows.extend([Coupling(), Coupling()])", ""),
    ("self.flows = nn.ModuleList()\n        self.flows.extend(Coupling() for i in range(n))", ""),
    ("self.flows = nn.ModuleList()\n        self.flows.insert(0, Coupling())", ""),
    ("self.flows = nn.ModuleDict()\n        self.flows['a'] = Coupling()", ".values()"),
])
def test_a_module_added_to_a_registered_container_is_where_its_owner_is(init: str, values: str) -> None:
    assert found(init, values) == [(13, "FRY003")]


def test_two_levels_of_containers_are_followed() -> None:
    tail = ("class Top(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.blocks = nn.ModuleList()\n        self.blocks.append(Block(2))\n\n"
            "    def forward(self, x):\n        return self.blocks[0](x)\n\n\n"
            "top = Top().to(device)\ntop(torch.randn(2, 4))\n")
    assert found(APPEND, move="", tail=tail) == [(13, "FRY003")]


@pytest.mark.parametrize(("init", "move", "tail"), [
    (APPEND, "", ""),
    ("self.flows = []\n        for i in range(n):\n            self.flows.append(Coupling())", ".to(device)", ""),
    (APPEND + "\n\n    def reset(self):\n        self.flows = make_flows()", ".to(device)", ""),
])
def test_an_unmoved_owner_a_plain_list_or_a_container_bound_otherwise_stays_quiet(init: str, move: str, tail: str) -> None:
    assert found(init, move=move, tail=tail) == []
