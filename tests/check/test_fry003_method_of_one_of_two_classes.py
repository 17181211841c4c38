"""FRY003 on what a method other than ``forward`` of a module class of the run returns,
where the receiver is an instance of one of two classes (``Att().to(d) if attention else
Dec().to(d)``) and only one of them takes the call as written: ``self.decoder.step(x, h,
enc)`` binds ``Att.step(self, i, h, enc)`` and would raise ``TypeError`` on a ``Dec``,
whose ``step`` takes two arguments, so its result is ``Att.step``'s, and the attention
weights it computes from ``enc`` alone are where ``enc`` is: on the device for the moved
encoder's output, on the CPU for a CPU tensor."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]

SRC = """\
import torch
import torch.nn as nn


class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x)


class Dec(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def step(self, i, h):
        return self.fc(i), h


class Att(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def step(self, i, h, enc):
        a = enc.softmax(-1)
        return self.fc(i), h, a


class Algo:
    def __init__(self, device, attention):
        self.encoder = Enc().to(device)
        self.decoder = Att().to(device) if attention else Dec().to(device)

    def run(self, x, h):
        enc = self.encoder(x)
        atts = []
        if isinstance(self.decoder, Att):
            o, h, a = self.decoder.step(x, h, {enc})
            atts.append(a)
        else:
            o, h = self.decoder.step(x, h)
        return torch.cat(atts).numpy()


device = "cuda" if torch.cuda.is_available() else "cpu"
Algo(device, True).run(torch.zeros(1, 4, device=device), None)
"""


@pytest.mark.parametrize(("enc", "found"), [("enc", [("main.py", 46)]), ("torch.zeros(1, 4)", [])])
def test_the_result_of_the_one_class_whose_method_takes_the_call(
    finding_places: Places, enc: str, found: list[tuple[str, int]]
) -> None:
    assert finding_places({"main.py": SRC.format(enc=enc)}, "FRY003") == found
