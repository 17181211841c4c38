"""An instance of a plain class of the run handed to a function or method through a
parameter keeps its class when every call of the run hands an instance of that class:
``policy.train(buffer, 8)`` in another file, ``policy`` built by one of two classes on
the arms of an ``if``, and ``buffer.sample(k)`` in ``train`` gives what ``Buffer.sample``
returns.  Unknown when one call hands something else, or no call of the run is known."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.flow.lattice import Kind, Where
from torchferry.check.flow.project import Project

BUFFER = """\
import numpy as np
import torch


class Buffer:
    def __init__(self, n):
        self.x = np.zeros((n, 3))
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def sample(self, k):
        ind = np.random.randint(0, 3, size=k)
        return torch.FloatTensor(self.x[ind]){move}
"""

AGENT = """\
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x)


class Agent:
    def __init__(self):
        self.net = Net(){place}

    def train(self, buffer, k=4):
        x = buffer.sample(k)
        return torch.tanh(self.net(x))


class Other:
    def __init__(self):
        self.net = Net(){place}

    def train(self, buffer, k=4):
        x = buffer.sample(k)
        return torch.tanh(self.net(x))
"""

MAIN = """\
import sys

import agent
import buffer

if sys.argv[1] == "a":
    policy = agent.Agent()
else:
    policy = agent.Other()
buf = buffer.Buffer(10)
for _ in range(3):
    policy.train({given}, 8)
"""


def _files(move: str, place: str, given: str = "buf") -> dict[str, str]:
    return {"agent.py": AGENT.format(place=place), "buffer.py": BUFFER.format(move=move),
            "main.py": MAIN.format(given=given)}


def _sampled(files: dict[str, str], tmp_path: Path) -> list[frozenset[Where] | None]:
    """Where ``buffer.sample(k)`` of each ``train`` of agent.py is, as agent.py's own
    analysis sees it (None: not known)."""
    paths = {}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths[str(tmp_path / name)] = text.encode()
    ff = Project(paths).file_flow(str(tmp_path / "agent.py"))
    assert ff is not None
    out = []
    for res in ff.results():
        if getattr(res.node, "name", "") != "train":
            continue
        c = next(c for c in res.calls.values() if getattr(c.node.func, "attr", "") == "sample")
        places = c.result.places if c.result.kinds == {Kind.TENSOR} else None
        out.append(None if places is None else frozenset(p.where for p in places))
    return out


def test_each_class_reached_through_the_receiver_knows_the_instance(tmp_path: Path) -> None:
    """Both classes' ``train`` are called on the receiver built on either arm; each gets the
    instance's class and what its ``sample`` returns (moved where ``__init__`` chose)."""
    assert _sampled(_files(".to(self.device)", ""), tmp_path) == [frozenset({Where.CPU, Where.ACCEL})] * 2
    assert _sampled(_files("", ""), tmp_path) == [frozenset({Where.CPU})] * 2


def test_unknown_when_a_call_hands_something_else(tmp_path: Path) -> None:
    """One call of the run passes an object of unknown class: the parameter stays unknown."""
    files = _files(".to(self.device)", "")
    files["main.py"] += "policy.train(sys.modules[__name__], 8)\n"
    assert _sampled(files, tmp_path) == [None, None]


def test_unknown_when_no_call_of_the_run_is_known(tmp_path: Path) -> None:
    files = _files(".to(self.device)", "")
    files["main.py"] = "import agent\n"
    assert _sampled(files, tmp_path) == [None, None]
