"""FRY014: a model held on an attribute of a plain class (a trainer), built there on the CPU
and never moved anywhere in the run, meets the batches the class moves to the device."""

from __future__ import annotations

from collections.abc import Callable

import pytest

NET = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


"""

TRAINER = (
    NET
    + """\
class Trainer:
    def __init__(self, loader):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.loader = loader
        self.model = Net()
        #MOVE
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train(self):
        self.model.train()
        for x, y in self.loader:
            x, y = x.to(self.device), y.to(self.device)
            out = self.model(x)
            loss = nn.functional.cross_entropy(out, y)
            loss.backward()
"""
)

CALL = TRAINER.splitlines().index("            out = self.model(x)") + 1


def _trainer(move: str = "") -> str:
    return TRAINER.replace("#MOVE", move or "pass")


@pytest.mark.parametrize("statement", ["pass", "self.model"])
def test_a_trainers_model_never_moved_meets_the_moved_batch(
    finding_lines: Callable[..., list[int]], statement: str
) -> None:
    """(``self.model`` alone, a statement, does nothing.)"""
    assert finding_lines({"train.py": _trainer(statement)}, "FRY014") == [CALL]


@pytest.mark.parametrize(
    "move",
    [
        "self.model.to(self.device)",
        "self.model = self.model.cuda()",
        "self.model = nn.DataParallel(self.model).to(self.device)",
        "place(self.model)",
    ],
)
def test_a_model_moved_or_handed_to_anything_is_not_reported(
    finding_lines: Callable[..., list[int]], move: str
) -> None:
    assert finding_lines({"train.py": _trainer(move)}, "FRY014") == []


def test_a_move_in_another_method_or_from_outside_the_class_counts(
    finding_lines: Callable[..., list[int]],
) -> None:
    other_method = _trainer() + "\n    def to_gpu(self):\n        self.model.cuda()\n"
    assert finding_lines({"train.py": other_method}, "FRY014") == []
    outside = _trainer() + "\n\nt = Trainer(None)\nt.model.cuda()\nt.train()\n"
    assert finding_lines({"train.py": outside}, "FRY014") == []


def test_a_file_importing_the_trainer_that_names_the_attribute_keeps_it_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    main = "from train import Trainer\n\nt = Trainer([])\nt.train()\n"
    assert finding_lines({"train.py": _trainer(), "main.py": main}, "FRY014") == [CALL]
    moves = main.replace("t.train()", "t.model.cuda()\nt.train()")
    assert finding_lines({"train.py": _trainer(), "main.py": moves}, "FRY014") == []


def test_a_module_class_or_a_subclass_holding_the_model_is_not_concerned(
    finding_lines: Callable[..., list[int]],
) -> None:
    """A module's submodule moves with the module; a class with bases may be moved by them."""
    module = (
        _trainer()
        .replace("class Trainer:", "class Trainer(nn.Module):")
        .replace("        self.device =", "        super().__init__()\n        self.device =")
    )
    assert finding_lines({"train.py": module}, "FRY014") == []
    based = (
        NET
        + "class Base:\n    pass\n\n\n"
        + _trainer().removeprefix(NET).replace("class Trainer:", "class Trainer(Base):")
    )
    assert finding_lines({"train.py": based}, "FRY014") == []


def test_a_container_of_modules_the_analysis_cannot_list_is_not_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    """``nn.Sequential(*augments)`` of a list built elsewhere: its weights are not known (a
    chain of augmentations without any computes where its input is)."""
    text = _trainer().replace("self.model = Net()", "self.model = nn.Sequential(*make())")
    assert finding_lines({"train.py": text}, "FRY014") == []
    held = _trainer().replace("self.model = Net()", "self.model = nn.Sequential(Net())")
    assert finding_lines({"train.py": held}, "FRY014") == [CALL]
