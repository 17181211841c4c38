"""FRY003 on an accumulator that starts as a number and grows by device tensors
(``total = 0`` then ``total += loss``): arithmetic with numbers keeps it a number or a
tensor (``total / len(loader)``, ``100.0 * total / n``, ``-total``), so handing the result to
NumPy or matplotlib is reported; where every addition is a number (``loss.item()``,
``float(loss)``) it stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

DIVIDED = '''
import numpy as np
import torch

device = torch.device("cuda")

def evaluate(model, loader):
    mse = 0
    for x, y in loader:
        out = model(x.to(device))
        mse += ((out - y.to(device)) ** 2).mean()
    mse = mse / (len(loader) * 4)
    return np.sqrt(mse)
'''

PERCENT = '''
import matplotlib.pyplot as plt
import torch

def train(model, loader, device):
    history = []
    for epoch in range(3):
        total_error = 0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            total_error += (model(x).argmax(1) != y).sum()
        epoch_error = 100.0 * total_error / len(loader.dataset)
        history.append(epoch_error)
    plt.plot(history)

model = None
train(model, None, torch.device("cuda"))
'''

NEGATED = '''
import numpy as np
import torch

def score(model, loader):
    total = 0.0
    for x in loader:
        total += model(x.cuda()).sum()
    return np.exp(-total // 2)
'''

ROUNDED = '''
import numpy as np
import torch

def drift(model, loader, device):
    total = 0
    for x, y in loader:
        total = total + (model(x.to(device)) - y.to(device)).sum()
    print(np.log(abs(round(total % 7, 2))))

drift(None, None, torch.device("cuda"))
'''

HELPER = '''
import numpy as np
import torch

device = torch.device("cuda")

def report(value):
    print(np.round(value, 3))

def evaluate(model, loader):
    total = 0
    for x, y in loader:
        total += torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    report(total)

def validate(model, loader):
    running = 0
    for x, y in loader:
        running += (model(x.to(device)) - y.to(device)).abs().mean()
    report(running / len(loader))
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [
    (DIVIDED, "np.sqrt("),
    (PERCENT, "plt.plot("),
    (NEGATED, "np.exp("),
    (HELPER, "np.round("),
    (ROUNDED, "np.log("),
], ids=["divided", "percent", "negated", "helper-parameter", "abs-round"])
def test_an_accumulated_device_tensor_stays_a_tensor_through_arithmetic(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize(("source", "change"), [
    (DIVIDED, ("((out - y.to(device)) ** 2).mean()", "((out - y.to(device)) ** 2).mean().item()")),
    (PERCENT, ("(model(x).argmax(1) != y).sum()", "(model(x).argmax(1) != y).sum().item()")),
    (NEGATED, ("model(x.cuda()).sum()", "float(model(x.cuda()).sum())")),
    (HELPER, (".mean()\n", ".mean().item()\n")),
    (ROUNDED, (").sum()\n", ").sum().item()\n")),
], ids=["item", "item-percent", "float", "helper-numbers", "abs-round-item"])
def test_an_accumulator_of_numbers_is_quiet(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    if "helper" in change[0] or change[0] == ".mean()\n":
        changed = changed.replace("mse_loss(model(x.to(device)), y.to(device))",
                                  "mse_loss(model(x.to(device)), y.to(device)).item()")
    assert changed != source
    assert _lines(changed) == []
