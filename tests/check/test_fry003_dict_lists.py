"""FRY003 on device tensors kept in lists held by a dict (``hist[phase].append(loss)``,
``d.setdefault(k, []).append(t)``, ``defaultdict(list)``) and handed to NumPy or matplotlib
when read back; quiet where what is added is a number."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

PHASES = '''
import matplotlib.pyplot as plt
import torch

def train(model, loaders, device):
    error_history = {"train": [], "val": []}
    for epoch in range(3):
        for phase in ["train", "val"]:
            total = 0
            for x, y in loaders[phase]:
                x, y = x.to(device), y.to(device)
                total += (model(x).argmax(1) != y).sum()
            error_history[phase].append(total / len(loaders[phase]))
    for phase in ["train", "val"]:
        plt.plot(error_history[phase], label=phase)

train(None, {}, torch.device("cuda"))
'''

SETDEFAULT = '''
import numpy as np
import torch

net = torch.nn.Linear(4, 1).cuda()


def collect(batches):
    outputs = {}
    for name, x in batches:
        out = net(x.cuda())
        outputs.setdefault(name, []).append(out.mean())
    return {k: np.mean(v) for k, v in outputs.items()}
'''

DEFAULTDICT = '''
from collections import defaultdict

import numpy as np
import torch

def evaluate(model, loader):
    scores = defaultdict(list)
    for x, y in loader:
        pred = model(x.to("cuda"))
        scores["acc"].append((pred.argmax(1) == y.to("cuda")).float().mean())
    return np.array(scores["acc"])
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [
    (PHASES, "plt.plot("),
    (SETDEFAULT, "np.mean(v)"),
    (DEFAULTDICT, "np.array("),
], ids=["phases", "setdefault", "defaultdict"])
def test_device_tensors_kept_in_a_dict_of_lists_are_reported(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize(("source", "change"), [
    (PHASES, ("(total / len(loaders[phase]))", "(float(total) / len(loaders[phase]))")),
    (SETDEFAULT, ("append(out.mean())", "append(out.mean().item())")),
    (DEFAULTDICT, (".float().mean())", ".float().mean().item())")),
], ids=["float", "item", "item-defaultdict"])
def test_numbers_kept_in_a_dict_of_lists_are_quiet(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert _lines(changed) == []
