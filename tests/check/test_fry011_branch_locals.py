"""FRY011 on a plain tensor attribute that a method binds to a local name on one arm of an
``if`` while another arm binds something else, and then combines that name with a tensor
that moves with the model after the ``if`` (``w = self.inv`` under ``if reverse:``, ``w =
self.weight`` under ``else:``, then ``F.conv2d(x, w)``): every binding that a path still
carries to the use counts, not only the last one written."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import torch
from torch import nn
import torch.nn.functional as F
'''

FLAGGED = {
    "earlier_arm_then_reshaped": '''
class Flow(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, n))
        self.inv = torch.eye(n)

    def forward(self, x, reverse=False):
        if reverse:
            w = self.inv
        else:
            w = self.weight
        w = w.view(4, 4, 1, 1)
        return F.conv2d(x, w)
''',
    "elif_chain": '''
class Mixer(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.proj = nn.Linear(n, n)
        self.table = torch.ones(n)

    def forward(self, x, mode: str):
        h = self.proj(x)
        if mode == "plain":
            scale = self.table * 2
        elif mode == "half":
            scale = 0.5
        else:
            scale = 1.0
        return h * scale
''',
    "nested_arm_under_training": '''
class Head(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.bias_cache = torch.zeros(n)

    def forward(self, x):
        if self.training:
            b = self.fc.bias
        else:
            if x.dim() > 1:
                b = self.bias_cache
            else:
                b = self.fc.bias
        return self.fc(x) + b
''',
}

QUIET = {
    "replaced_on_its_arm": '''
class Flow(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, n))
        self.inv = torch.eye(n)

    def forward(self, x, reverse=False):
        if reverse:
            w = self.inv
            w = w.to(x.device)
        else:
            w = self.weight
        return x @ w
''',
    "replaced_after_the_if": '''
class Flow(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, n))
        self.inv = torch.eye(n)

    def forward(self, x, reverse=False):
        if reverse:
            w = self.inv
        else:
            w = self.weight
        w = self.weight
        return x @ w
''',
    "element_picked_by_epoch_on_an_arm": '''
class Distill(nn.Module):
    def __init__(self, warmup, final, epochs):
        super().__init__()
        self.register_buffer("center", torch.zeros(1, 8))
        self.temps = torch.linspace(warmup, final, epochs)

    def forward(self, teacher, epoch=None):
        if epoch is not None:
            temp = self.temps[epoch]
        else:
            temp = torch.tensor(0.04)
        return (teacher - self.center) / temp
''',
    "element_picked_by_step_in_elif": '''
class Sched(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.gammas = torch.arange(n) * 0.1

    def forward(self, x, step: int, warm: bool):
        if warm:
            g = 1.0
        elif step > 0:
            g = self.gammas[step - 1]
        else:
            g = 0.0
        return self.fc(x) * g
''',
    "use_on_the_other_arm": '''
class Flow(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, n))
        self.inv = torch.eye(n)

    def forward(self, x, reverse=False):
        if reverse:
            w = self.inv
            return w.sum()
        else:
            w = self.weight
            return x @ w
''',
}


def _lines(body: str) -> list[int]:
    return [f.line for f in check_source(HEAD + body, "t.py", select=["FRY011"])]


def _stored_at(body: str, attr: str) -> int:
    source = HEAD + body
    return next(i for i, ln in enumerate(source.splitlines(), 1) if f"self.{attr} = torch" in ln)


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_a_binding_on_an_earlier_arm_reaches_the_use(name: str) -> None:
    body = FLAGGED[name]
    attr = {"earlier_arm_then_reshaped": "inv", "elif_chain": "table",
            "nested_arm_under_training": "bias_cache"}[name]
    assert _lines(body) == [_stored_at(body, attr)]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert _lines(QUIET[name]) == []
