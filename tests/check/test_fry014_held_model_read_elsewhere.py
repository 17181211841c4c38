"""A model a plain class builds in ``__init__`` and never moves, called on a moved input,
while a script that imports the class reads the model's parameters by name
(``for name, p in agent.actor.named_parameters(): writer.add_histogram(name, ...)``):
the name of each parameter is a string, so handing it on leaves the model where it is;
and a method of the class that returns the model, called by no file of the run
(FRY014 at the call)."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

AGENT = """\
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Actor(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, 2)

    def forward(self, x):
        return self.fc(x)


class Agent:
    def __init__(self, n):
        self.actor = Actor(n)

    def act(self, state):
        x = state.to(device)
        return self.actor(x)

    def get_network(self):
        return self.actor
"""
SCRIPT = """\
from agent import Agent


def log(writer, n):
    agent = Agent(n)
    for name, param in agent.actor.named_parameters():
        writer.add_histogram(name, param.clone().cpu().numpy())
{extra}"""


def _lines(tmp_path: Path, extra: str) -> list[int]:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "train.py").write_text(SCRIPT.format(extra=extra))
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    paths = [tmp_path / "agent.py", tmp_path / "train.py"]
    return [d.line for o in check_paths(paths, opts, jobs=1) for d in o.diagnostics]


def test_a_model_read_by_name_and_returned_to_no_caller_is_left_behind(tmp_path: Path) -> None:
    assert _lines(tmp_path, "") == [22]


@pytest.mark.parametrize("extra", [
    "    agent.get_network().to('cuda')\n",
    "    agent.actor.cuda()\n",
    "    for name, param in agent.actor.named_parameters():\n        name.cuda()\n        param.cuda()\n",
])
def test_a_caller_that_may_move_the_model_keeps_it_unknown(tmp_path: Path, extra: str) -> None:
    assert _lines(tmp_path, extra) == []
