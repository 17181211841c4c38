"""Rules on a module held by another object and called through it, across files: the
output of ``self.policy.q_net(x)`` (a network ``Policy`` of another file puts on the
accelerator) or of ``self.agent.critic(obs)`` (a submodule of a model the file moves)
is a tensor there, so NumPy given it is reported; quiet where the network stays on the
CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

POLICY = '''import torch
from torch import nn


class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class Policy:
    def __init__(self):
        self.q_net = QNet().cuda()
'''

AGENT = '''import torch
from policy import Policy


class Agent:
    def __init__(self):
        self.policy = Policy()

    def act(self, obs):
        q = self.policy.q_net(torch.as_tensor(obs).cuda())
        return q.argmax(-1).numpy()
'''

ACTOR_CRITIC = '''import torch
from torch import nn


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.actor = nn.Linear(4, 2)
        self.critic = nn.Linear(4, 1)
'''

RUNNER = '''import numpy as np
import torch
from model import ActorCritic


class Runner:
    def __init__(self, device):
        self.agent = ActorCritic().to(device)

    def values(self, obs):
        v = self.agent.critic(torch.from_numpy(obs).to("cuda"))
        return np.asarray(v)
'''


def _check(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    opts = Options(root=tmp_path, select=("FRY003",), target_torch_version=None)
    outcomes = check_paths([tmp_path / n for n in files], opts, jobs=1)
    return [(Path(o.path).name, d.line, d.code) for o in outcomes for d in o.diagnostics]


@pytest.mark.parametrize(("files", "site"), [
    ({"policy.py": POLICY, "agent.py": AGENT}, ("agent.py", 11)),
    ({"model.py": ACTOR_CRITIC, "runner.py": RUNNER}, ("runner.py", 12)),
], ids=["plain-holder", "module-holder"])
def test_the_output_of_a_held_module_on_the_device_is_reported(tmp_path: Path, files, site) -> None:
    assert _check(tmp_path, files) == [(*site, "FRY003")]


@pytest.mark.parametrize(("files", "changes"), [
    ({"policy.py": POLICY, "agent.py": AGENT}, [("policy.py", "QNet().cuda()", "QNet()"),
                                                ("agent.py", "as_tensor(obs).cuda()", "as_tensor(obs)")]),
    ({"model.py": ACTOR_CRITIC, "runner.py": RUNNER}, [("runner.py", "np.asarray(v)", "np.asarray(v.cpu())")]),
], ids=["held-on-the-cpu", "moved-back"])
def test_a_held_module_on_the_cpu_is_quiet(tmp_path: Path, files, changes) -> None:
    changed = dict(files)
    for name, old, new in changes:
        changed[name] = changed[name].replace(old, new)
        assert changed[name] != files[name]
    assert _check(tmp_path, changed) == []
