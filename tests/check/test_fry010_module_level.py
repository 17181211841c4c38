"""FRY010 at module level: a script's factory without ``device=`` that meets a model or a
tensor the script moved to the device, in the script's own statements."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(28, 10)

    def forward(self, x):
        return self.fc(x)


model = Net().to(device)
'''

#: noise made on the CPU for the model on the device
INPUT = HEAD + '''X = torch.rand(1, 28)
logits = model(X)
'''

#: labels made on the CPU meet the model's output in a loss, in a loop of the script
LABELS = HEAD + '''criterion = nn.BCEWithLogitsLoss()
for step in range(3):
    x = torch.rand(4, 28, device=device)
    out = model(x)
    label = torch.full((4, 10), 1.0)
    loss = criterion(out, label)
'''


#: a model of a class outside the files, given a moved input and lengths made on the CPU:
#: arguments handed to a model do not meet each other (it may pack with the lengths)
OUTSIDE_MODEL = """import numpy as np
import torch
from models import Encoder

device = torch.device("cuda")
encoder = Encoder(80, 512)
encoder.cuda()
mel = np.zeros((100, 80), dtype=np.float32)
length = torch.Tensor([100])
mel_torch = torch.from_numpy(mel).to(device).unsqueeze(0)
hidden = encoder.forward(mel_torch, length)[0]
hidden = encoder(mel_torch, length)[0]
"""


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


def _line(source: str, text: str) -> int:
    return [line.strip() for line in source.splitlines()].index(text) + 1


def test_a_script_input_made_on_the_cpu_is_reported() -> None:
    assert _lines(INPUT) == [_line(INPUT, "X = torch.rand(1, 28)")]


def test_script_labels_made_on_the_cpu_are_reported() -> None:
    assert _lines(LABELS) == [_line(LABELS, "label = torch.full((4, 10), 1.0)")]


@pytest.mark.parametrize("source", [
    INPUT.replace("torch.rand(1, 28)", "torch.rand(1, 28, device=device)"),
    INPUT.replace("logits = model(X)", "logits = model(X.to(device))"),
    INPUT.replace("model = Net().to(device)", "model = Net()"),
    LABELS.replace("torch.full((4, 10), 1.0)", "torch.full((4, 10), 1.0, device=device)"),
    LABELS.replace("loss = criterion(out, label)", "loss = criterion(out.cpu(), label)"),
    OUTSIDE_MODEL,
    INPUT.replace("model = Net().to(device)", "torch.set_default_device(device)\nmodel = Net().to(device)"),
])
def test_a_script_factory_on_the_right_device_is_quiet(source: str) -> None:
    assert _lines(source) == []
