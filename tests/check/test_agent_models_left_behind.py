"""A model that a plain class of the run (an agent, a trainer) builds in ``__init__`` and
calls in another method on what an instance of another class of the run returns there
(``state, reward = buffer.sample(k)``), where that instance is handed in by a script that
also calls a method of the same name on another plain class of the run
(``ddpg.train(memory)`` beside ``bcq.train(memory)``); and a module whose method, called
by the holder, moves only a tensor it makes right there (``torch.randn(n,
d).to(self.device)``), which moves none of its weights (FRY014 at the call)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchferry.check.runner import Options, check_paths

BUFFER = """\
import numpy as np
import torch


class Buffer:
    def __init__(self, n, device):
        self.state = np.zeros((n, 3))
        self.device = device

    def sample(self, k):
        ind = np.random.randint(0, 10, size=k)
        return torch.FloatTensor(self.state[ind]){move}
"""
AGENTS = """\
import torch
import torch.nn as nn


class Coder(nn.Module):
    def __init__(self, device):
        super().__init__()
        self.d1 = nn.Linear(5, 3)
        self.device = device

    def forward(self, state):
        return self.decode(state)

    def decode(self, state, z=None):
        if z is None:
            z = torch.randn((state.shape[0], 2)){noise}
        return self.d1(torch.cat([state, z], 1))


class First:
    def __init__(self, device):
        self.net = nn.Linear(3, 1){net_move}
        self.coder = Coder(device){coder_move}

    def train(self, buffer, k=4):
        state = buffer.sample(k)
        a = self.coder(state)
        b = self.coder.decode(state)
        return self.net(state).mean() + a.mean() + b.mean()


class Second:
    def __init__(self, device):
        self.head = nn.Linear(3, 1){net_move}

    def train(self, buffer, k=4):
        state = buffer.sample(k)
        return self.head(state).mean()
"""
MAIN = """\
import torch

import agents
import buffer


def run_first(device):
    policy = agents.First(device)
    memory = buffer.Buffer(10, device)
    for step in range(5):
        policy.train(memory, 4)


def run_second(device):
    policy = agents.Second(device)
    memory = buffer.Buffer(10, device)
    for step in range(5):
        policy.train(memory, 4)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
run_first(device)
run_second(device)
"""
MOVED = ".to(device)"


def found(
    root: Path,
    move: str = ".to(self.device)",
    net_move: str = MOVED,
    coder_move: str = MOVED,
    noise: str = ".to(self.device)",
) -> list[tuple[str, int, str]]:
    files = {
        "buffer.py": BUFFER.format(move=move),
        "main.py": MAIN,
        "agents.py": AGENTS.format(net_move=net_move, coder_move=coder_move, noise=noise),
    }
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    opts = Options(root=root, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths(sorted(root.glob("*.py")), opts)
    return [(Path(o.path).name, d.line, d.code) for o in outcomes for d in o.diagnostics]


def test_the_model_the_agent_left_on_the_cpu_meets_the_buffers_tensor(tmp_path: Path) -> None:
    assert found(tmp_path, net_move="") == [
        ("agents.py", 29, "FRY014"),
        ("agents.py", 38, "FRY014"),
    ]


def test_the_module_whose_method_moves_only_its_own_noise_is_left_on_the_cpu(
    tmp_path: Path,
) -> None:
    assert found(tmp_path, coder_move="") == [("agents.py", 27, "FRY014")]


def test_quiet_when_every_model_is_moved(tmp_path: Path) -> None:
    assert found(tmp_path) == []


def test_quiet_when_the_buffer_keeps_its_tensors_on_the_cpu(tmp_path: Path) -> None:
    assert found(tmp_path, move="", net_move="", coder_move="") == []


def test_quiet_when_the_method_moves_one_of_the_modules_weights(tmp_path: Path) -> None:
    # (``self.d1.to(self.device)`` in the method called: the module may be moved there)
    assert (
        found(
            tmp_path, coder_move="", noise=".to(self.device)\n            self.d1.to(self.device)"
        )
        == []
    )
