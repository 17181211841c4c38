"""FRY003 on what a ``torch.distributions`` object computes: a distribution built from
tensors on the device (``Categorical(logits=policy(obs))``, ``Normal(mu, std)``) samples,
scores and reports its moments there, so handing ``dist.sample()``, ``dist.log_prob(a)`` or
``dist.mean`` to NumPy is reported; a distribution of CPU tensors, or of parameters the
analysis does not know, stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

CATEGORICAL = '''
import torch
from torch.distributions import Categorical

device = torch.device("cuda")
policy = torch.nn.Linear(4, 2).to(device)

def act(obs):
    logits = policy(torch.as_tensor(obs).to(device))
    dist = Categorical(logits=logits)
    actions = dist.sample()
    return actions.numpy()
'''

NORMAL = '''
import numpy as np
import torch
import torch.distributions as D
from torch import nn

class Agent:
    def __init__(self):
        self.actor = nn.Linear(3, 2).to("cuda")

    def explore(self, state):
        mu = self.actor(state.cuda())
        std = torch.ones_like(mu) * 0.1
        pi = D.Normal(mu, std)
        a = pi.rsample()
        return np.clip(a, -1.0, 1.0)
'''

LOG_PROB = '''
import torch

net = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.Softmax(-1)).cuda()

def score(obs, actions):
    probs = net(obs.to("cuda"))
    log_probs = torch.distributions.categorical.Categorical(probs=probs).log_prob(actions)
    return log_probs.detach().numpy()
'''

MEAN = '''
import numpy as np
import torch
from torch import nn

class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)

actor = Actor().cuda()

def greedy(state):
    mu = actor(state.cuda())
    dist = torch.distributions.Normal(mu, 0.2)
    return np.tanh(dist.mean)
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [
    (CATEGORICAL, "actions.numpy()"),
    (NORMAL, "np.clip("),
    (LOG_PROB, "log_probs.detach().numpy()"),
    (MEAN, "np.tanh("),
], ids=["categorical-sample", "normal-rsample", "log-prob", "mean"])
def test_what_a_distribution_on_the_device_computes_is_there(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize(("source", "change"), [
    (CATEGORICAL, ("dist.sample()", "dist.sample().cpu()")),
    (NORMAL, ("mu = self.actor(state.cuda())", "mu = self.actor(state.cuda()).cpu()")),
    (LOG_PROB, ("Categorical(probs=probs)", "Categorical(probs=probs.cpu())")),
    (MEAN, ("np.tanh(dist.mean)", "np.tanh(dist.mean.cpu())")),
], ids=["moved-back", "cpu-parameters", "cpu-probs", "mean-moved-back"])
def test_a_distribution_on_the_cpu_or_unknown_is_quiet(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert _lines(changed) == []
