"""FRY007 on what a method of a module parameter's class returns: ``model.penalty()`` in
``train(model, ...)`` of one file, where every call of the run passes a module of a class
of the run (``train(MLP(...).to(device), ...)`` in another file), is what that class's
``penalty`` returns, its ``self`` where ``model`` is; so is a name bound once to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

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


def _found(tmp_path: Path, body: str, net: str = "MLP().to(device)") -> list[tuple[str, int]]:
    (tmp_path / "model.py").write_text(MODEL.format(body=body))
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "main.py").write_text(MAIN.format(net=net))
    opts = Options(root=tmp_path, select=("FRY007",), target_torch_version=None)
    paths = [tmp_path / "main.py", tmp_path / "model.py", tmp_path / "train.py"]
    return [
        (Path(o.path).name, d.line) for o in check_paths(paths, opts, jobs=1) for d in o.diagnostics
    ]


def test_a_method_of_the_parameter_models_class_returns_a_tensor_where_the_model_is(tmp_path: Path) -> None:
    assert _found(tmp_path, ON_ITS_WEIGHTS) == [("train.py", 8), ("train.py", 10)]


@pytest.mark.parametrize(
    ("body", "net"),
    [
        ("        return torch.zeros(1)", "MLP().to(device)"),  # made on the CPU, wherever the model is
        ("        return 0.5", "MLP().to(device)"),  # a number
        (ON_ITS_WEIGHTS, "MLP().to(device) if device.type == 'cuda' else build()"),  # a class not known
    ],
)
def test_a_return_off_the_device_or_of_an_unknown_class_stays_quiet(tmp_path: Path, body: str, net: str) -> None:
    assert _found(tmp_path, body, net) == []
