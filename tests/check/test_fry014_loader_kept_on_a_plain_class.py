"""FRY014 with a loader over a torchvision dataset kept as an attribute of an instance of a
plain class of the run (``self.test = DataLoader(test_set, ...)`` in a data holder's
``__init__``, read as ``dataset.test`` in this file or another)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]
Lines = Callable[[dict[str, str], str], list[int]]

DATA = """\
import torch
import torchvision
import torchvision.transforms as transforms


class Cifar:
    def __init__(self, batch_size):
        test_transform = transforms.Compose([transforms.ToTensor()])
        test_set = torchvision.datasets.CIFAR10(root="./data", train=False, transform=test_transform)
        self.test = torch.utils.data.DataLoader(test_set, batch_size=batch_size, shuffle=False)
{other}
"""

MAIN = """\
import torch
from torch import nn
from data.cifar import Cifar


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = Cifar(4)
    model = nn.Linear(4, 2).to(device){outside}
    for batch in dataset.test:
        inputs, targets = (b for b in batch)
        model({inputs})
"""


def _found(finding_places: Places, inputs: str = "inputs", other: str = "", outside: str = "") -> list[tuple[str, int]]:
    files = {"main.py": MAIN.format(inputs=inputs, outside=outside), "data/__init__.py": "",
             "data/cifar.py": DATA.format(other=other)}
    return finding_places(files, "FRY014")


def test_an_item_of_a_kept_loader_meets_a_moved_model(finding_places: Places) -> None:
    assert _found(finding_places) == [("main.py", 12)]


def test_a_kept_loader_in_the_same_file_is_read_too(finding_lines: Lines) -> None:
    one = DATA.format(other="") + MAIN.replace("from data.cifar import Cifar\n", "").format(
        inputs="inputs", outside="")
    found = finding_lines({"one.py": one}, "FRY014")
    assert found == [one.splitlines().index("        model(inputs)") + 1]


@pytest.mark.parametrize(
    ("inputs", "other", "outside"),
    [
        ("inputs.to(device)", "", ""),  # moved
        # another method may store another loader there
        ("inputs", "    def reload(self, loader):\n        self.test = loader\n", ""),
        ("inputs", "", "\n    dataset.test = make_loader()"),  # replaced from outside the class
    ],
)
def test_a_moved_item_or_an_attribute_not_known_stays_quiet(
    finding_places: Places, inputs: str, other: str, outside: str
) -> None:
    assert _found(finding_places, inputs, other, outside) == []
