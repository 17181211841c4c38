"""FRY011 on a plain tensor attribute indexed by an input that is known as a tensor only by
a device read (``self.table[t].to(t.device)``: a number has no ``.device``, and a module,
which may have one, indexes nothing) or by what every call of the class gives it
(``self._pick(h, torch.randint(..., device=h.device))``), and on one read by a method of a
subclass in the same file (``class Latent(Base)`` indexing ``self.logvar`` of
``Base.__init__``)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import torch
from torch import nn
'''

DEVICE_READ = {
    "moved_after": '''
class Embed(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.table = torch.zeros(n, d)

    def forward(self, t):
        return self.table[t].to(t.device)
''',
    "is_cuda_test": '''
class Schedule(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.sched = torch.linspace(0.0, 1.0, n)

    def forward(self, x, steps):
        if steps.is_cuda:
            x = x.float()
        s = self.sched[steps]
        return self.lin(x) * s.to(x.device)[:, None]
''',
    "device_keyword": '''
class Codes(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.codes = torch.randn(n, 8)

    def forward(self, idx):
        out = torch.zeros(idx.shape[0], 8, device=idx.device)
        return out + self.codes[idx].to(out.device)
''',
}

CALLERS = {
    "randint_on_input_device": '''
class Loss(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weights = torch.ones(n)

    def forward(self, x):
        t = torch.randint(0, 10, (x.shape[0],), device=x.device)
        return self.term(x, t)

    def term(self, x, t):
        w = self.weights[t]
        return x * w.to(x.device)
''',
    "labels_of_forward": '''
class Picker(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(4, n)
        self.table = torch.eye(n)

    def forward(self, x, y):
        return self._pick(self.fc(x), labels=y.long())

    def _pick(self, h, labels):
        onehot = self.table[labels]
        return h - onehot.to(h.device)
''',
}

CALLERS["spread_after_it"] = '''
class Diffusion(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.unet = nn.Conv2d(3, 3, 1)
        self.sqrt_ab = torch.rand(n)

    def forward(self, x, *args, **kwargs):
        t = torch.randint(0, 10, (x.shape[0],), device=x.device).long()
        return self.loss(x, t, *args, **kwargs)

    def loss(self, x, t, noise=None):
        a = self.sqrt_ab[t].to(x.device)
        return self.unet(x) * a[:, None, None, None]
'''

SUBCLASS = {
    "indexed_in_subclass": '''
class Base(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.logvar = torch.full((n,), 0.0)

    def forward(self, x):
        return self.net(x)


class Latent(Base):
    def loss(self, x, t: torch.Tensor):
        lv = self.logvar[t].to(x.device)
        return self.net(x) / torch.exp(lv)
''',
    "mixed_in_grandchild": '''
class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = torch.ones(4) * 2


class Mid(Base):
    pass


class Leaf(Mid):
    def forward(self, x):
        return self.fc(x) * self.scale
''',
}

QUIET = {
    "shape_read_only": '''
class Embed(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.table = torch.zeros(n, d)

    def forward(self, idx):
        k = idx.shape[0]
        return self.table[idx][:k]
''',
    "number_from_every_caller": '''
class Loss(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weights = torch.ones(n)

    def forward(self, x):
        return self.term(x, 3)

    def term(self, x, t):
        w = self.weights[t]
        return x * w.to(x.device)
''',
    "item_from_a_caller": '''
class Loss(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weights = torch.ones(n)

    def forward(self, x, t):
        return self.term(x, t.long()) + self.term(x, t.sum())

    def term(self, x, t):
        w = self.weights[t]
        return x * w.to(x.device)
''',
    "spread_before_it": '''
class Diffusion(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.unet = nn.Conv2d(3, 3, 1)
        self.sqrt_ab = torch.rand(n)

    def forward(self, x, *args):
        t = torch.randint(0, 10, (x.shape[0],), device=x.device)
        return self.loss(*args, t)

    def loss(self, x, t, noise=None):
        a = self.sqrt_ab[t].to(x.device)
        return self.unet(x) * a[:, None, None, None]
''',
    "subclass_registers_it": '''
class Base(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.logvar = torch.full((n,), 0.0)


class Latent(Base):
    def __init__(self, n):
        super().__init__(n)
        self.logvar = nn.Parameter(self.logvar)

    def loss(self, x, t: torch.Tensor):
        return self.net(x) / torch.exp(self.logvar[t])
''',
    "subclass_moves_it": '''
class Base(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.logvar = torch.full((n,), 0.0)


class Latent(Base):
    def loss(self, x, t: torch.Tensor):
        self.logvar = self.logvar.to(x.device)
        return self.net(x) / torch.exp(self.logvar[t])
''',
    "unrelated_class_same_name": '''
class Base(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.logvar = torch.full((n,), 0.0)


class Other(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.register_buffer("lv", torch.zeros(n))

    def loss(self, x, t: torch.Tensor):
        return self.net(x) / torch.exp(self.logvar[t])
''',
}


def _lines(body: str) -> list[int]:
    source = HEAD + body
    return [f.line for f in check_source(source, "t.py", select=["FRY011"])]


def _stored_at(body: str, attr: str) -> int:
    source = HEAD + body
    return next(i for i, ln in enumerate(source.splitlines(), 1) if f"self.{attr} = torch" in ln)


@pytest.mark.parametrize("name", sorted(DEVICE_READ))
def test_an_input_read_for_its_device_indexes_as_a_tensor(name: str) -> None:
    body = DEVICE_READ[name]
    attr = {"moved_after": "table", "is_cuda_test": "sched", "device_keyword": "codes"}[name]
    assert _lines(body) == [_stored_at(body, attr)]


@pytest.mark.parametrize("name", sorted(CALLERS))
def test_a_helper_index_every_call_gives_a_device_tensor(name: str) -> None:
    body = CALLERS[name]
    attr = {"randint_on_input_device": "weights", "labels_of_forward": "table",
            "spread_after_it": "sqrt_ab"}[name]
    assert _lines(body) == [_stored_at(body, attr)]


@pytest.mark.parametrize("name", sorted(SUBCLASS))
def test_a_use_in_a_subclass_of_the_same_file(name: str) -> None:
    body = SUBCLASS[name]
    attr = {"indexed_in_subclass": "logvar", "mixed_in_grandchild": "scale"}[name]
    assert _lines(body) == [_stored_at(body, attr)]


def test_the_message_names_the_subclass_method() -> None:
    source = HEAD + SUBCLASS["indexed_in_subclass"]
    (f,) = check_source(source, "t.py", select=["FRY011"])
    assert "`Latent.loss` combines it" in f.message


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert _lines(QUIET[name]) == []
