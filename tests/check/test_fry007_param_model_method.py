"""FRY007 on what a method of a module parameter's class returns: ``model.penalty()`` in
``train(model, ...)`` of one file, where every call of the run passes a module of a class
of the run (``train(MLP(...).to(device), ...)`` in another file), is what that class's
``penalty`` returns, its ``self`` where ``model`` is; so is a name bound once to it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]


MODEL = """\
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    def penalty(self):
{body}
"""

TRAIN = """\
def train(model, loader, optimizer, criterion, device):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y) + model.penalty()
        loss.backward()
        optimizer.step()
        print(model.penalty().item())
        penalty = model.penalty()
        total = penalty.item()
"""

MAIN = """\
import torch
from torch import nn
from model import MLP
from train import train

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = {net}
loader = [(torch.ones(3, 4), torch.zeros(3, dtype=torch.long))]
train(net, loader, torch.optim.SGD(net.parameters(), lr=0.1), nn.CrossEntropyLoss(), device)
"""

ON_ITS_WEIGHTS = "        return self.fc.weight.pow(2).sum()"


def _found(finding_places: Places, body: str, net: str = "MLP().to(device)") -> list[tuple[str, int]]:
    files = {"main.py": MAIN.format(net=net), "model.py": MODEL.format(body=body), "train.py": TRAIN}
    return finding_places(files, "FRY007")


def test_a_method_of_the_parameter_models_class_returns_a_tensor_where_the_model_is(finding_places: Places) -> None:
    assert _found(finding_places, ON_ITS_WEIGHTS) == [("train.py", 8), ("train.py", 10)]


@pytest.mark.parametrize(
    ("body", "net"),
    [
        ("        return torch.zeros(1)", "MLP().to(device)"),  # made on the CPU, wherever the model is
        ("        return 0.5", "MLP().to(device)"),  # a number
        (ON_ITS_WEIGHTS, "MLP().to(device) if device.type == 'cuda' else build()"),  # a class not known
    ],
)
def test_a_return_off_the_device_or_of_an_unknown_class_stays_quiet(finding_places: Places, body: str, net: str) -> None:
    assert _found(finding_places, body, net) == []
