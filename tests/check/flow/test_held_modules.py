"""A module held by an attribute of another object and called through it
(``self.policy.eval_net(x, h)``, ``self.agent.critic(obs)``, ``trainer.model(batch)``): a
module call, its output where the submodule is, when the attribute is a module the
holder's class stores (a plain object built in the run, or a module of the run, whose
submodules follow it)."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.flow import Kind, Project

from .conftest import Snippet, wheres

POLICY = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
    def forward(self, x, h):
        return self.fc(x) + h

class Policy:
    def __init__(self, cuda):
        self.eval_net = Net()
        if cuda:
            self.eval_net.cuda()
        self.eps = 0.1
"""

AGENT = """
import torch
from policy import Policy

class Agent:
    def __init__(self):
        self.policy = Policy(True)

    def act(self, x, h):
        q = self.policy.eval_net(x, h)
        e = self.policy.eps
        return q, e
"""


@pytest.mark.parametrize("same_file", [True, False])
def test_a_module_held_by_a_plain_object_is_a_module_call(same_file):
    """``self.policy.eval_net(x, h)``: ``Policy`` stores a ``Net`` that it may move to the
    accelerator, so the output is a tensor there (the class in this file or another)."""
    if same_file:
        s = Snippet(POLICY + AGENT.replace("from policy import Policy\n", ""))
    else:
        files = {"/r/policy.py": textwrap.dedent(POLICY).encode(),
                 "/r/agent.py": textwrap.dedent(AGENT).encode()}
        s = Snippet(AGENT, path="/r/agent.py", project=Project(files, packages=()))
    q = s.function("act").returns.elts[0]
    assert q.is_(Kind.TENSOR) and wheres(q) == {"CPU", "ACCEL"}


TRAINER = """
import torch
from torch import nn

class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.lr = lr

def run(batch):
    trainer = Trainer(nn.Linear(4, 2).to(torch.device("cuda")), 0.1)
    out = trainer.model(batch)
    return out
"""


def test_a_module_a_plain_object_keeps_from_its_constructor_is_a_module_call():
    """``trainer.model(batch)`` of ``Trainer(nn.Linear(..).to(device), lr)`` that keeps it:
    the output is on the device."""
    s = Snippet(TRAINER)
    out = s.function("run").returns
    assert out.is_(Kind.TENSOR) and wheres(out) == {"ACCEL"}


ACTOR_CRITIC = """
import torch
from torch import nn

class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = nn.Linear(4, 1)
        self.act = nn.ReLU()

class Runner:
    def __init__(self):
        self.agent = ActorCritic().cuda()

    def value(self, obs):
        v = self.agent.critic(obs)
        a = self.agent.act(obs.cpu())
        return v, a
"""


def test_a_submodule_of_a_module_of_the_run_is_where_the_module_is():
    """``self.agent.critic(obs)`` of ``self.agent = ActorCritic().cuda()``: a weighted
    submodule computes where the module is; a weightless one where its input is."""
    s = Snippet(ACTOR_CRITIC)
    v, a = s.function("value").returns.elts
    assert v.is_(Kind.TENSOR) and wheres(v) == {"ACCEL"}
    assert wheres(a) == {"CPU"}


def test_an_attribute_no_method_stores_as_a_module_stays_unresolved():
    """``self.agent.helper(obs)``: no module stored there; and a method of the class is
    still called as a method."""
    s = Snippet(ACTOR_CRITIC.replace("self.agent.critic(obs)", "self.agent.helper(obs)"))
    v, _ = s.function("value").returns.elts
    assert v.places is None or not v.is_(Kind.TENSOR)
