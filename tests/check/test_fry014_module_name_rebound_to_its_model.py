"""A module's name rebound to what it builds: ``import net`` and then, at module level,
``net = net.Net().to(device)``.  A function that reads the global ``net`` afterwards reads
the model, not the module: FRY014 sees the model on the device meet a CPU input there.
Where the function may see another binding (the assignment in a branch, a function of
the file called before it, a ``global`` rebinding it), the name's value is not known
and the rule stays quiet."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]


NET = """\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x)
"""

MAIN = """\
import torch
import net
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
{bind}


def run():
    x = torch.randn(2, 3)
    return net(x)


run()
"""


def _run(finding_places: Places, bind: str) -> list[tuple[str, int]]:
    files = {"main.py": MAIN.format(bind=bind), "net.py": NET}
    return sorted(finding_places({name: textwrap.dedent(text) for name, text in files.items()}, "FRY014"))


def test_a_function_reads_the_model_the_module_name_was_rebound_to(finding_places: Places) -> None:
    assert _run(finding_places, "net = net.Net().to(device)") == [("main.py", 9)]


@pytest.mark.parametrize("bind", [
    "if torch.cuda.is_available():\n    net = net.Net().to(device)",
    "def warm():\n    return None\n\n\nwarm()\nnet = net.Net().to(device)",
    "net = net.Net().to(device)\n\n\ndef reset():\n    global net\n    net = None",
])
def test_a_binding_a_function_may_not_see_is_unknown(finding_places: Places, bind: str) -> None:
    assert _run(finding_places, bind) == []
