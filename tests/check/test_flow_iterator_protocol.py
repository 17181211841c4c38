"""The iterator protocol of the run's own classes, and names bound to one torch factory or
another on the arms of a branch.

Iterating over an instance whose class's ``__iter__`` returns ``self`` (``for z in it``,
``zip(loader, it)``, ``next(it)``, ``enumerate(it)``) gives what its ``__next__``
returns; a ``__iter__`` that returns ``iter(x)`` gives the items of ``x``.  Calling an
attribute or a name bound on every arm of a branch to a torch factory (``self.noise =
torch.rand`` / ``torch.randn``; ``fn = torch.zeros if a else torch.ones``) makes what
each of them makes.  Where the value is really on the model's device (``__next__`` moves
it, a ``device=`` on the call), or one arm binds something else, it stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''\
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 3).to(device)


class Noise:
    def __init__(self, shape, normal):
        self.shape = shape
        if normal:
            self.fn = torch.randn
        else:
            self.fn = torch.rand

    def __iter__(self):
        return self

    def __next__(self):
        return self.fn(*self.shape)


class Chosen:
    def __init__(self, shape, kind):
        self.shape = shape
        if kind == "uniform":
            self.fn = torch.rand
        elif kind == "normal":
            self.fn = torch.randn
        else:
            raise ValueError(kind)

    def __iter__(self):
        return self

    def __next__(self):
        return self.fn(*self.shape)


class Plain:
    def __init__(self, shape):
        self.shape = shape

    def __iter__(self):
        return self

    def __next__(self):
        return torch.rand(*self.shape)


class Moved:
    def __init__(self, shape):
        self.shape = shape

    def __iter__(self):
        return self

    def __next__(self):
        return torch.rand(*self.shape).to(device)


class Wrapped:
    def __init__(self):
        self.items = [torch.zeros(3), torch.ones(3)]

    def __iter__(self):
        return iter(self.items)


class NoNext:
    def __iter__(self):
        return self


class Mixed:
    def __init__(self, shape, normal):
        self.shape = shape
        if normal:
            self.fn = torch.randn
        else:
            self.fn = make_noise(device)

    def __iter__(self):
        return self

    def __next__(self):
        return self.fn(*self.shape)


'''


def _f014(body: str) -> list[int]:
    src = HEAD + body
    return [f.line for f in check_source(src, "<t>", select=["FRY014"])]


def _line(body: str, text: str) -> int:
    return (HEAD + body).splitlines().index(text) + 1


@pytest.mark.parametrize("body, at", [
    ("for z in Plain((4, 3)):\n    out = model(z)\n", "    out = model(z)"),
    ("it = Plain((4, 3))\nz = next(it)\nout = model(z)\n", "out = model(z)"),
    ("for i, z in enumerate(Plain((4, 3))):\n    out = model(z)\n", "    out = model(z)"),
    ("for y, z in zip([1, 2], Plain((4, 3))):\n    out = model(z)\n", "    out = model(z)"),
    ("for z in Wrapped():\n    out = model(z)\n", "    out = model(z)"),
    ("for z in Noise((4, 3), True):\n    out = model(z)\n", "    out = model(z)"),
    ("for y, z in zip([1, 2], Chosen((4, 3), 'normal')):\n    out = model(z)\n", "    out = model(z)"),
])
def test_the_items_of_an_iterator_of_the_run_are_followed(body: str, at: str) -> None:
    assert _f014(body) == [_line(body, at)]


@pytest.mark.parametrize("body", [
    "for z in Moved((4, 3)):\n    out = model(z)\n",
    "z = next(Moved((4, 3)))\nout = model(z)\n",
    "for z in NoNext():\n    out = model(z)\n",
    "for z in Mixed((4, 3), True):\n    out = model(z)\n",
])
def test_items_on_the_device_or_of_unknown_make_stay_quiet(body: str) -> None:
    assert _f014(body) == []


ARMS = '''\
import torch
from torch import nn


def step(a, device):
    model = nn.Linear(3, 3).to(device)
    fn = {bind}
    z = fn(4, 3{kw})
    return model(z)
'''


@pytest.mark.parametrize("bind, kw, found", [
    ("torch.zeros if a else torch.ones", "", True),
    ("torch.rand if a else torch.randn", "", True),
    ("torch.zeros if a else torch.ones", ", device=device", False),
    ("torch.rand if a else helper", "", False),
    ("torch.rand if a else (lambda *s: torch.rand(*s, device=device))", "", False),
    ("torch.rand if a else make(device)", "", False),
])
def test_a_name_bound_to_factories_on_every_arm_makes_what_they_make(bind: str, kw: str, found: bool) -> None:
    src = ARMS.format(bind=bind, kw=kw) + "\n\ndef helper(*s):\n    return torch.rand(*s).to('cuda')\n"
    lines = [f.line for f in check_source(src, "<t>", select=["FRY014"])]
    assert lines == ([9] if found else [])
