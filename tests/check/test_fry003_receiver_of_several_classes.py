"""FRY003 with a method called on an object that one of several classes of the run may have
built (``decoder = Att().to(d) if attention else Dec().to(d)``): what the call gives is the
join of what the method of each class that takes the call returns, whichever construction
is written last."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SOURCE = '''import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Att(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def step(self, x, h):
        return {att}


class Dec(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def step(self, x{dec_params}):
        return {dec}


def run(attention):
    decoder = {built}
    x = torch.ones(4, device=device)
    out = decoder.step(x, x)
    return out.numpy()
'''

BUILT = ["Att().to(device) if attention else Dec().to(device)",
         "Dec().to(device) if attention else Att().to(device)"]


def _lines(att: str = "self.fc(x) + h", dec: str = "self.fc(x).cpu()", dec_params: str = ", h",
           built: str = BUILT[0]) -> list[int]:
    src = SOURCE.format(att=att, dec=dec, dec_params=dec_params, built=built)
    return [f.line for f in check_source(src, "t.py", select=["FRY003"])]


@pytest.mark.parametrize("built", BUILT)
def test_one_class_returning_a_tensor_on_the_device_is_enough(built: str) -> None:
    assert _lines(built=built) == [29]


@pytest.mark.parametrize("built", BUILT)
def test_every_class_returning_a_tensor_on_the_cpu_is_quiet(built: str) -> None:
    assert _lines(att="(self.fc(x) + h).cpu()", built=built) == []


@pytest.mark.parametrize("built", BUILT)
def test_a_class_that_refuses_the_call_gives_nothing(built: str) -> None:
    # (``Dec.step`` takes one argument: Python refuses ``decoder.step(x, x)`` on a ``Dec``)
    assert _lines(att="(self.fc(x) + h).cpu()", dec="self.fc(x)", dec_params="", built=built) == []
