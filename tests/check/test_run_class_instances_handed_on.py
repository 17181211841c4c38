"""An instance of a plain class of the run that one file builds and hands to a function of
another file, which does not import the class's file (``policy.train(buffer)`` in main.py,
``buffer.sample(n)`` in ``train`` of agent.py): what its methods return meets tensors
there (FRY010 at the factory of the class's file), and a method of a plain class is given
its arguments by the calls of the files that import its file on an instance they build
(FRY014 at the method, ``dqn.act(env.reset())``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check import runner
from torchferry.check.cache import Cache
from torchferry.check.runner import Options, check_paths

BUFFER = """\
import numpy as np
import torch


class Buffer:
    def __init__(self, n):
        self.state = np.zeros((n, 3))
        self.reward = np.zeros((n, 1))
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def _rows(self, ind):
        return (torch.FloatTensor(self.state[ind]){state_move},
                torch.FloatTensor(self.reward[ind]).to(self.device))

    def sample(self, k):
        ind = np.random.randint(0, 10, size=k)
        state, reward = self._rows(ind)
        return state, reward
"""
AGENT = """\
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Agent:
    def __init__(self):
        self.net = nn.Linear(3, 1).to(device)

    def train(self, buffer, k=4):
        state, reward = buffer.sample(k)
        q = self.net(reward.expand(-1, 3))
        return ((q - state[:, :1]) ** 2).mean()
"""
MAIN = """\
import agent
import buffer

policy = agent.Agent()
memory = buffer.Buffer(10)
for step in range(5):
    policy.train(memory, 4)
"""


def write(root: Path, files: dict[str, str]) -> list[Path]:
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    return sorted(root.glob("*.py"))


def found(root: Path, paths: list[Path], select: str, cache: Cache | None = None, jobs: int = 1):
    opts = Options(root=root, select=(select,), target_torch_version=None)
    outcomes = check_paths(paths, opts, cache=cache, jobs=jobs)
    return [(Path(o.path).name, d.line, d.code) for o in outcomes for d in o.diagnostics], outcomes


def _buffer_files(move: str) -> dict[str, str]:
    return {"buffer.py": BUFFER.format(state_move=move), "agent.py": AGENT, "main.py": MAIN}


def test_tuple_of_a_method_meets_the_device_in_a_file_handed_the_instance(tmp_path: Path) -> None:
    paths = write(tmp_path, _buffer_files(""))
    codes, outcomes = found(tmp_path, paths, "FRY010")
    assert codes == [("buffer.py", 12, "FRY010")]
    (d,) = [d for o in outcomes for d in o.diagnostics]
    assert any(
        e.path is not None and e.path.endswith("agent.py") and e.line == 14 for e in d.evidence
    ), d.evidence


def test_no_finding_where_the_method_moves_its_tensors(tmp_path: Path) -> None:
    paths = write(tmp_path, _buffer_files(".to(self.device)"))
    assert found(tmp_path, paths, "FRY010")[0] == []


def test_no_finding_where_no_importer_hands_the_instance_on(tmp_path: Path) -> None:
    files = _buffer_files("")
    files["main.py"] = "import agent\nimport buffer\n\nmemory = buffer.Buffer(10)\n"
    paths = write(tmp_path, files)
    assert found(tmp_path, paths, "FRY010")[0] == []


def test_cache_rechecks_the_class_file_when_the_handed_file_changes(tmp_path: Path) -> None:
    paths = write(tmp_path, _buffer_files(""))
    first, _ = found(tmp_path, paths, "FRY010", cache=(cache := Cache(tmp_path, "test")))
    cache.save()
    assert first == [("buffer.py", 12, "FRY010")]
    write(tmp_path, {"agent.py": AGENT.replace(".to(device)", "")})
    again, outcomes = found(tmp_path, paths, "FRY010", cache=Cache(tmp_path, "test"))
    assert again == []
    assert not any(o.cached for o in outcomes if o.path.name == "buffer.py")


def test_same_findings_with_two_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)
    paths = write(tmp_path, _buffer_files(""))
    assert (
        found(tmp_path, paths, "FRY010", jobs=1)[0]
        == found(tmp_path, paths, "FRY010", jobs=2)[0]
        == [("buffer.py", 12, "FRY010")]
    )


ACTOR = """\
import torch
import torch.nn as nn


class Actor:
    def __init__(self, args):
        self.net = nn.Linear(4, 2){net_move}

    def act(self, state):
        with torch.no_grad():
            return self.net(state.unsqueeze(0)).argmax(1).item()
"""
ENV = """\
import torch


class Env:
    def __init__(self, args):
        self.device = args.device

    def reset(self):
        return torch.zeros(4, device=self.device)
"""
RUN = """\
import argparse

import torch

from actor import Actor
from env import Env

args = argparse.ArgumentParser().parse_args()
if torch.cuda.is_available():
    args.device = torch.device("cuda")
else:
    args.device = torch.device("cpu")
env = Env(args)
agent = Actor(args)
for t in range(10):
    state = {state}
    action = agent.act(state)
"""


def _actor_files(net_move: str, state: str) -> dict[str, str]:
    return {
        "actor.py": ACTOR.format(net_move=net_move),
        "env.py": ENV,
        "run.py": RUN.format(state=state),
    }


def test_method_input_made_on_the_device_by_another_class_of_the_run(tmp_path: Path) -> None:
    paths = write(tmp_path, _actor_files("", "env.reset()"))
    codes, outcomes = found(tmp_path, paths, "FRY014")
    assert codes == [("actor.py", 11, "FRY014")]
    (d,) = [d for o in outcomes for d in o.diagnostics]
    assert "made on the device" in d.message


def test_no_finding_where_the_model_is_moved(tmp_path: Path) -> None:
    paths = write(tmp_path, _actor_files(".to(args.device)", "env.reset()"))
    assert found(tmp_path, paths, "FRY014")[0] == []


def test_no_finding_where_the_input_stays_on_the_cpu(tmp_path: Path) -> None:
    paths = write(tmp_path, _actor_files("", "torch.zeros(4)"))
    assert found(tmp_path, paths, "FRY014")[0] == []


def test_no_finding_where_one_caller_of_the_method_passes_a_cpu_tensor(tmp_path: Path) -> None:
    files = _actor_files("", "env.reset()")
    files["run.py"] += "agent.act(torch.zeros(4))\n"
    paths = write(tmp_path, files)
    assert found(tmp_path, paths, "FRY014")[0] == []
