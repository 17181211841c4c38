"""FRY014 with a model that a function of another file of the run builds and returns
unmoved (``d, g = nets.build(device)``), called on an input moved to the device: the
model's place is read in that file, as for a model built in the calling file, and the
finding goes to the call, where the model meets its input."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]


NETS = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 10)

    def forward(self, x):
        return self.fc(x)


def build(device, name):
{body}
"""

MAIN = """\
import torch
import lib.nets as nets

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
d, g = nets.build(device, "a")
x = torch.ones(4, 10).to(device)
out = d(x)
"""

UNMOVED_PAIR = """\
    d = Net().train()
    g = Net().train()
    return d, g"""

UNMOVED_ONE = """\
    return Net(), Net()"""


def _found(finding_places: Places, body: str) -> list[tuple[str, int]]:
    files = {"main.py": MAIN, "lib/__init__.py": "", "lib/nets.py": NETS.format(body=body)}
    return finding_places(files, "FRY014")


@pytest.mark.parametrize("body", [UNMOVED_PAIR, UNMOVED_ONE])
def test_a_model_another_file_returns_unmoved_meets_a_moved_input(finding_places: Places, body: str) -> None:
    assert _found(finding_places, body) == [("main.py", 7)]


@pytest.mark.parametrize(
    "body",
    [
        # moved by the helper
        "    d = Net().to(device)\n    g = Net().to(device)\n    return d, g",
        # moved on one arm only: a may-join, not a model surely on the CPU
        "    if name == 'a':\n        d = Net().to(device)\n    else:\n        d = Net()\n    return d, Net()",
        # handed to a call the analysis cannot see into, which may move it
        "    d = Net()\n    torch.nn.init.prepare(d)\n    return d, Net()",
        # kept by an alias that may be moved elsewhere
        "    d = Net()\n    kept = [d]\n    return d, Net()",
        # handed to a method of a library wrapper that may place it
        "    d = Net().share_memory()\n    return d, Net()",
    ],
)
def test_a_model_the_helper_may_have_moved_stays_quiet(finding_places: Places, body: str) -> None:
    assert _found(finding_places, body) == []
