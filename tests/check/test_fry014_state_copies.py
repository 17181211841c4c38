"""A model that a plain class of the run (an agent) keeps on ``self``, never moved, called
in another method on an input moved to the device, where the class hands it only to
functions of the run that copy state between modules (``hard_target_update(self.qf,
self.qf_target)``, a ``zip`` over both modules' parameters writing ``.data.copy_``) and
the script that imports the class names it only to read or write its state
(``agent.policy.load_state_dict(sd)``, ``torch.save(agent.policy.state_dict(), f)``):
none of that moves the model (FRY014 at the call).  A helper or a script that may move
it keeps the rule quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchferry.check.runner import Options, check_paths

UTILS = """\
def hard_target_update(main, target):
    target.load_state_dict(main.state_dict())


def soft_target_update(main, target, tau=0.005):
    for main_param, target_param in zip(main.parameters(), target.parameters()):
        {write}
"""
AGENT = """\
import torch
import torch.nn as nn

from utils import hard_target_update, soft_target_update


class Agent(object):
    def __init__(self, device):
        self.device = device
        self.policy = nn.Linear(3, 2){move}
        self.target = nn.Linear(3, 2).to(self.device)
        hard_target_update(self.policy, self.target)

    def act(self, obs):
        x = torch.Tensor(obs).to(self.device)
        out = self.policy(x)
        soft_target_update(self.policy, self.target)
        self.sync(self.policy, self.target)
        return out

    def sync(self, local, target):
        for t, p in zip(target.parameters(), local.parameters()):
            {sync}
"""
MAIN = """\
import torch

from agent import Agent

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
agent = Agent(device)
{use}
agent.act([1.0, 2.0, 3.0])
torch.save(agent.policy.state_dict(), "policy.pt")
"""
WRITE = "target_param.data.copy_(tau * main_param.data + (1.0 - tau) * target_param.data)"
SYNC = "t.data.copy_(p.data)"
LOAD = 'agent.policy.load_state_dict(torch.load("policy.pt"))'


def found(root: Path, move: str = "", write: str = WRITE, use: str = LOAD,
          sync: str = SYNC) -> list[tuple[str, int]]:
    files = {"utils.py": UTILS.format(write=write), "agent.py": AGENT.format(move=move, sync=sync),
             "main.py": MAIN.format(use=use)}
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    opts = Options(root=root, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths(sorted(root.glob("*.py")), opts)
    return [(Path(o.path).name, d.line) for o in outcomes for d in o.diagnostics]


def test_the_model_only_copied_to_and_from_is_left_on_the_cpu(tmp_path: Path) -> None:
    assert found(tmp_path) == [("agent.py", 16)]


def test_quiet_when_the_model_is_moved(tmp_path: Path) -> None:
    assert found(tmp_path, move=".to(self.device)") == []


def test_quiet_when_the_helper_rebinds_the_parameters_data(tmp_path: Path) -> None:
    # (``p.data = ...`` may put the parameter on another device)
    assert found(tmp_path, write="target_param.data = main_param.data.cuda()") == []


def test_quiet_when_the_helper_hands_the_parameters_on(tmp_path: Path) -> None:
    assert found(tmp_path, write="unknown(target_param)") == []


def test_quiet_when_a_method_of_the_class_moves_the_parameters(tmp_path: Path) -> None:
    assert found(tmp_path, sync="p.data = p.data.to(t.device)") == []


def test_quiet_when_the_script_moves_the_model(tmp_path: Path) -> None:
    assert found(tmp_path, use="agent.policy.cuda()") == []


def test_quiet_when_the_script_binds_the_model_to_another_name(tmp_path: Path) -> None:
    assert found(tmp_path, use="net = agent.policy\nnet.cuda()") == []
