"""A batch item left on the CPU is no mistake when every class the model may be moves it
to its input's device in ``forward`` before any use (``dx = dx[:, None].to(u.device)``, a
view of it first), also when the model is a parameter bound only by calls of another
file, built there on one of several branches.  A class whose ``forward`` uses it as it
came in, or a model of no class of the run, keeps the finding."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from torchferry.check.engine import check_source

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]

HELPER = """
import torch


def evaluate(model, loader, device):
    for (u, dx, dt) in loader:
        data = u.to(device)
        pred = model(data, dx, dt)
        pred.sum()
"""

MODELS = """
import torch
import torch.nn as nn


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, u, dx, dt):
        x = torch.cat((u, dx[:, None].to(u.device).repeat(1, 4), dt[:, None].repeat(1, 1).to(u.device)), -1)
        return self.fc(x)


class FNO(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, u, dx, dt):
        dx = dx[:, None].to(u.device)
        dt = dt[:, None].to(u.device)
        return self.fc(torch.cat((u, dx, dt), -1))
"""

TRAIN = """
import torch
from helper import evaluate
from models import CNN, FNO

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def main(name, loader):
    if name == "cnn":
        model = CNN()
    elif name == "fno":
        model = FNO()
    else:
        raise ValueError(name)
    model.to(device)
    evaluate(model=model, loader=loader, device=device)
"""


def _findings(finding_places: Places, models: str = MODELS, train: str = TRAIN) -> list[tuple[str, int]]:
    return sorted(finding_places({"helper.py": HELPER, "models.py": models, "train.py": train}, "FRY013"))


def test_items_every_passed_class_moves_first_are_not_reported(finding_places: Places) -> None:
    assert _findings(finding_places) == []


def test_a_class_that_uses_the_item_as_it_came_in_keeps_the_finding(finding_places: Places) -> None:
    models = MODELS.replace("dt = dt[:, None].to(u.device)", "dt = dt[:, None] + 0")
    assert _findings(finding_places, models=models) == [("helper.py", 8)]


def test_a_model_of_no_class_of_the_run_keeps_the_findings(finding_places: Places) -> None:
    train = TRAIN.replace("    else:\n        raise ValueError(name)\n",
                          "    else:\n        model = torch.hub.load('x', name)\n")
    assert _findings(finding_places, train=train) == [("helper.py", 8), ("helper.py", 8)]


ONE_FILE = MODELS + HELPER.replace("import torch\n", "") + """
model = CNN().cuda()
evaluate(model, [], "cuda")
"""


@pytest.mark.parametrize(("view", "reported"), [
    ("dx[:, None].to(u.device).repeat(1, 4)", False),
    ("dx[:, None].float().to(u.device).repeat(1, 4)", False),
    ("dx[:, None].cuda().repeat(1, 4)", False),
    ("dx[:, None].repeat(1, 4)", True),
    ("dx[idx].to(u.device).repeat(1, 4)", True),
    ("(dx * u[:, :1]).to(u.device).repeat(1, 4)", True),
])
def test_a_view_moved_before_use_is_a_move_of_the_argument(view: str, reported: bool) -> None:
    source = ONE_FILE.replace("dx[:, None].to(u.device).repeat(1, 4)", view)
    lines = {f.line for f in check_source(source, "t.py", select=["FRY013"])}
    assert (31 in lines) is reported
