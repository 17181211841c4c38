"""FRY014 with a model's input unpacked from a parameter (``states, actions = experiences``
in ``learn(self, experiences)``) when every call of the run passes a tuple of as many
items whose item there a method of another file's class made on the CPU
(``experiences = self.memory.sample()`` of ``self.memory = ReplayBuffer(...)``): reported
at the make, in the file that makes the tensor, where the fix goes; in one file, at the
model's call."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

BUFFER = """\
import numpy as np
import torch


class ReplayBuffer:
    def __init__(self, device):
        self.device = device
        self.memory = []

    def sample(self):
        batch = np.stack(self.memory)
        states = torch.from_numpy(batch[:, 0]).float(){move}
        rewards = torch.from_numpy(batch[:, 1]).float().to(self.device)
        return {returned}
"""

AGENT = """\
import torch
from torch import nn
from buffer import ReplayBuffer

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Agent:
    def __init__(self):
        self.net = nn.Linear(4, 1).to(device)
        self.memory = ReplayBuffer(device)

    def step(self):
        experiences = self.memory.sample()
        self.learn({handed})

    def learn(self, experiences):
        {unpacking} = experiences
        return self.net(states) + rewards


Agent().step()
"""


def _found(tmp_path: Path, move: str = "", returned: str = "(states, rewards)",
           unpacking: str = "states, rewards", handed: str = "experiences") -> list[tuple[str, int]]:
    (tmp_path / "buffer.py").write_text(BUFFER.format(move=move, returned=returned))
    (tmp_path / "agent.py").write_text(AGENT.format(unpacking=unpacking, handed=handed))
    return [(Path(o.path).name, d.line) for o in _outcomes(tmp_path) for d in o.diagnostics]


def _outcomes(tmp_path: Path, names: tuple[str, ...] = ("agent.py", "buffer.py")) -> list:
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    return [o for o in check_paths([tmp_path / n for n in names], opts, jobs=1) if o.diagnostics]


def test_an_item_made_on_the_cpu_by_another_files_method_is_reported_where_made(tmp_path: Path) -> None:
    assert _found(tmp_path) == [("buffer.py", 12)]


def test_the_evidence_names_the_call_that_hands_the_tuple_in_and_the_model(tmp_path: Path) -> None:
    _found(tmp_path)
    [out] = _outcomes(tmp_path)
    steps = [(Path(e.path or out.path).name, e.line) for e in out.diagnostics[0].evidence]
    assert steps == [("buffer.py", 12), ("agent.py", 15), ("agent.py", 10), ("agent.py", 19)]


def test_in_one_file_the_model_call_is_reported(tmp_path: Path) -> None:
    agent = AGENT.format(unpacking="states, rewards", handed="experiences")
    one = BUFFER.format(move="", returned="(states, rewards)") + agent.replace("from buffer import ReplayBuffer\n", "")
    (tmp_path / "agent.py").write_text(one)
    [out] = _outcomes(tmp_path, ("agent.py",))
    assert [d.line for d in out.diagnostics] == [one.splitlines().index("        return self.net(states) + rewards") + 1]


@pytest.mark.parametrize(
    ("move", "returned", "unpacking", "handed"),
    [
        (".to(self.device)", "(states, rewards)", "states, rewards", "experiences"),  # moved
        ("", "(rewards, states)", "states, rewards", "experiences"),  # the moved item there
        ("", "(states, rewards, rewards)", "states, rewards", "experiences"),  # another length
        ("", "(states, rewards)", "states, *rewards", "experiences"),  # starred: no length
        ("", "(states, rewards)", "states, rewards", "(experiences[1], experiences[0])"),
    ],
)
def test_a_moved_item_or_a_tuple_of_unknown_items_stays_quiet(
    tmp_path: Path, move: str, returned: str, unpacking: str, handed: str
) -> None:
    assert _found(tmp_path, move, returned, unpacking, handed) == []


def test_a_model_left_on_the_cpu_meets_an_item_moved_in_another_file(tmp_path: Path) -> None:
    (tmp_path / "buffer.py").write_text(BUFFER.format(move=".to(self.device)", returned="(states, rewards)"))
    agent = AGENT.format(unpacking="states, rewards", handed="experiences")
    (tmp_path / "agent.py").write_text(agent.replace("nn.Linear(4, 1).to(device)", "nn.Linear(4, 1)"))
    assert [(Path(o.path).name, d.line) for o in _outcomes(tmp_path) for d in o.diagnostics] == [("agent.py", 19)]
