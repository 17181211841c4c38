"""FRY013 with the items of a tuple handed whole to a method and unpacked there
(``states, rewards = experiences``), when every call of the run passes a tuple, returned by
another file's method, that moved some items to the device and left one on the CPU:
reported at the make, in that file, where the fix goes; in one file, where the item meets
the tensors on the device."""

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
        states = torch.from_numpy(batch[:, 0]).float().to(self.device)
        rewards = torch.from_numpy(batch[:, 1]).float(){move}
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
        {rebinding}
        return rewards + 0.9 * self.net(states)


Agent().step()
"""


def _check(tmp_path: Path, move: str = "", returned: str = "(states, rewards)",
           unpacking: str = "states, rewards", handed: str = "experiences", rebinding: str = "pass"):
    (tmp_path / "buffer.py").write_text(BUFFER.format(move=move, returned=returned))
    (tmp_path / "agent.py").write_text(
        AGENT.format(unpacking=unpacking, handed=handed, rebinding=rebinding))
    opts = Options(root=tmp_path, select=("FRY013",), target_torch_version=None)
    return [o for o in check_paths([tmp_path / "agent.py", tmp_path / "buffer.py"], opts, jobs=1)
            if o.diagnostics]


def test_an_item_left_on_the_cpu_meets_the_models_output(tmp_path: Path) -> None:
    [out] = _check(tmp_path)
    [d] = out.diagnostics
    assert (Path(out.path).name, d.line, d.column) == ("buffer.py", 13, 18)
    steps = [(Path(e.path or out.path).name, e.line) for e in d.evidence]
    assert steps == [("buffer.py", 13), ("buffer.py", 12), ("agent.py", 15), ("agent.py", 20)]


def test_in_one_file_the_meeting_is_reported(tmp_path: Path) -> None:
    agent = AGENT.format(unpacking="states, rewards", handed="experiences", rebinding="pass")
    one = BUFFER.format(move="", returned="(states, rewards)") + agent.replace("from buffer import ReplayBuffer\n", "")
    (tmp_path / "agent.py").write_text(one)
    opts = Options(root=tmp_path, select=("FRY013",), target_torch_version=None)
    [out] = [o for o in check_paths([tmp_path / "agent.py"], opts, jobs=1) if o.diagnostics]
    line = one.splitlines().index("        return rewards + 0.9 * self.net(states)") + 1
    assert [(d.line, d.column) for d in out.diagnostics] == [(line, 15)]


@pytest.mark.parametrize(
    ("move", "returned", "unpacking", "handed", "rebinding"),
    [
        (".to(self.device)", "(states, rewards)", "states, rewards", "experiences", "pass"),  # moved
        ("", "(rewards, states)", "states, rewards", "experiences", "pass"),  # the moved item there
        ("", "(states, rewards, rewards)", "states, rewards", "experiences", "pass"),  # length
        ("", "(states, rewards)", "states, rewards", "(experiences[0], experiences[0])", "pass"),
        ("", "(states, rewards)", "states, rewards", "experiences", "rewards = rewards.to(device)"),
    ],
)
def test_a_moved_item_or_a_tuple_of_unknown_items_stays_quiet(
    tmp_path: Path, move: str, returned: str, unpacking: str, handed: str, rebinding: str
) -> None:
    assert _check(tmp_path, move, returned, unpacking, handed, rebinding) == []
