"""FRY003 and a helper of the run whose device parameter a call leaves at its default
``None``: ``t.to(None)`` leaves ``t`` where it is and ``torch.zeros(n, device=None)`` makes
it on the default device, so the result of such a call is where the helper's own tensor
is, not on a device the code chose."""

from __future__ import annotations

from torchferry.check.engine import check_source

SRC = """
import numpy as np
import torch


def to_tensor(values, device=None):
    v = torch.FloatTensor(values)
    return v.to(device)


def place(t, device=None):
    return t.to(device)


def make(n, device=None):
    return torch.zeros(n, device=device)


def test():
    a = to_tensor(np.zeros(3))
    b = make(3)
    return a.numpy(), b.numpy()
"""


def lines(src: str) -> list[str]:
    return [
        src.splitlines()[d.line - 1][d.column :].split(".numpy")[0]
        for d in check_source(src, "t.py", select=("FRY003",))
    ]


def test_a_device_left_none_keeps_the_cpu() -> None:
    assert lines(SRC) == []


def test_a_device_passed_is_a_device_the_code_chose() -> None:
    src = SRC.replace("to_tensor(np.zeros(3))", 'to_tensor(np.zeros(3), "cuda")')
    src = src.replace("make(3)", 'make(3, device="cuda")')
    assert lines(src) == ["a", "b"]


def test_a_tensor_on_the_accelerator_stays_there() -> None:
    src = SRC.replace("a = to_tensor(np.zeros(3))", "a = place(torch.ones(3).cuda())")
    assert lines(src) == ["a"]
