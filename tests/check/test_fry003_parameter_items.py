"""FRY003 on the items of a parameter that the run's calls pass a tuple or list of tensors:
``images, labels = batch`` or ``batch[0]`` in a helper is what each call passes at that
position (``show((x.cuda(), y))``), in the same file or from another file of the run
(a plotting helper of ``utils/plot.py`` that only ``train.py`` calls)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.test_project_callers import found, write
from torchferry.check.engine import check_source

UNPACKED = '''
import torch
import matplotlib.pyplot as plt

def show(batch):
    images, labels = batch
    plt.imshow(images[0])
    plt.title(str(labels))

def run(loader):
    for x, y in loader:
        show((x.cuda(), y))
'''

INDEXED_LIST = '''
import numpy as np
import torch

device = torch.device("cuda")

def summary(pair):
    return np.mean(pair[0])

def evaluate(model, loader):
    for x, target in loader:
        pred = model(x.to(device))
        print(summary([pred.to(device), target.to(device)]))
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [
    (UNPACKED, "plt.imshow("),
    (INDEXED_LIST, "np.mean("),
], ids=["unpacked-tuple", "indexed-list"])
def test_an_item_of_a_parameter_is_what_the_calls_pass_there(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize(("source", "change"), [
    # the item at that position stays on the CPU: indices, bookkeeping
    (UNPACKED, ("show((x.cuda(), y))", "show((x, y.cuda()))")),
    # a number read back from the device
    (INDEXED_LIST, ("summary([pred.to(device), target.to(device)])",
                    "summary([pred.mean().item(), target.to(device)])")),
    # no call of the run: the parameter's items stay unknown
    (UNPACKED, ("        show((x.cuda(), y))", "        pass")),
], ids=["cpu-item", "number", "no-caller"])
def test_an_item_the_calls_keep_on_the_cpu_is_quiet(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert _lines(changed) == []


PLOT = """\
import numpy as np
from matplotlib import pyplot as plt


def plot_pair(batch, name=None):
    signal, spectrum = batch
    fig, axes = plt.subplots(1, 2)
    axes[0].plot(signal[0])
    axes[1].imshow(np.log(spectrum[0] + 1e-3))
    if name is not None:
        fig.savefig(name)
"""
TRAIN = """\
import torch
from utils.plot import plot_pair

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def main(loader):
    signal, spectrum = next(iter(loader))
    plot_pair(({signal}, {spectrum}))
"""


def test_a_helper_only_another_file_calls_is_checked_with_its_items(tmp_path: Path) -> None:
    """``utils/plot.py`` neither makes nor moves a tensor; ``train.py`` hands it a tuple whose
    first item it moved: the first item's plot is reported, the second item's (on the
    CPU) is not."""
    paths = write(tmp_path, {"utils/__init__.py": "", "utils/plot.py": PLOT,
                             "train.py": TRAIN.format(signal="signal.to(device)", spectrum="spectrum")})
    assert found(tmp_path, paths, "FRY003")[0] == [("utils/plot.py", 8, "FRY003")]


def test_a_helper_another_file_gives_cpu_items_is_quiet(tmp_path: Path) -> None:
    paths = write(tmp_path, {"utils/__init__.py": "", "utils/plot.py": PLOT,
                             "train.py": TRAIN.format(signal="signal", spectrum="spectrum")})
    assert found(tmp_path, paths, "FRY003")[0] == []


def test_an_item_of_a_batch_parameter_stays_a_batch_item() -> None:
    """``seq, label = data`` in a helper the loop calls with each batch: the items are the
    batch's (tensors), so what the helper moves and returns is read back in the loop."""
    source = '''
import torch

def prepare(data):
    seq, label = data
    return seq.cuda(non_blocking=True), label.cuda(non_blocking=True)

def train(loader, model, optimizer):
    total = 0
    for data in loader:
        seq, label = prepare(data)
        loss = model(seq, label)
        loss.backward()
        optimizer.step()
        total += loss.mean().item()
    return total
'''
    lines = [f.line for f in check_source(source, "t.py", select=["FRY007"])]
    assert lines == [_line(source, "total += loss.mean().item()")]
