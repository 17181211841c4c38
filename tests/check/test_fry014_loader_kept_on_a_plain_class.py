"""FRY014 with a loader over a torchvision dataset kept as an attribute of an instance of a
plain class of the run (``self.test = DataLoader(test_set, ...)`` in a data holder's
``__init__``, read as ``dataset.test`` in this file or another)."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

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


def _found(tmp_path: Path, inputs: str = "inputs", other: str = "", outside: str = "") -> list[tuple[str, int]]:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "__init__.py").write_text("")
    (tmp_path / "data" / "cifar.py").write_text(DATA.format(other=other))
    (tmp_path / "main.py").write_text(MAIN.format(inputs=inputs, outside=outside))
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    paths = [tmp_path / "main.py", tmp_path / "data" / "__init__.py", tmp_path / "data" / "cifar.py"]
    return [
        (Path(o.path).name, d.line) for o in check_paths(paths, opts, jobs=1) for d in o.diagnostics
    ]


def test_an_item_of_a_kept_loader_meets_a_moved_model(tmp_path: Path) -> None:
    assert _found(tmp_path) == [("main.py", 12)]


def test_a_kept_loader_in_the_same_file_is_read_too(tmp_path: Path) -> None:
    one = DATA.format(other="") + MAIN.replace("from data.cifar import Cifar\n", "").format(
        inputs="inputs", outside="")
    (tmp_path / "one.py").write_text(one)
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    found = [d.line for o in check_paths([tmp_path / "one.py"], opts, jobs=1) for d in o.diagnostics]
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
    tmp_path: Path, inputs: str, other: str, outside: str
) -> None:
    assert _found(tmp_path, inputs, other, outside) == []
