"""FRY013 and a batch item that is a mapping whose tensors the loop moves in place
(``targets["av"] = targets["av"].cuda()``): the mapping handed on holds the moved tensors,
so it is no item left on the CPU; a mapping that nothing moves still is."""

from __future__ import annotations

from torchferry.check.engine import check_source

SRC = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def train(loader):
    model = Net().cuda()
    for item in loader:
        x = item["x"].cuda()
        targets = item["targets"]
        targets["av"] = targets["av"].cuda()
        preds = model(x)
        loss = nn.functional.mse_loss(preds, targets)
        loss.backward()


train(torch.utils.data.DataLoader([]))
"""


def lines(src: str) -> list[int]:
    return [d.line for d in check_source(src, "t.py", select=("FRY013",))]


def use_line(src: str) -> int:
    return next(i for i, t in enumerate(src.splitlines(), 1) if "mse_loss(preds, targets)" in t)


def test_a_mapping_moved_in_place_is_quiet() -> None:
    assert lines(SRC) == []


def test_a_mapping_left_alone_is_reported() -> None:
    src = SRC.replace('        targets["av"] = targets["av"].cuda()\n', "")
    assert lines(src) == [use_line(src)]


def test_a_mapping_given_a_cpu_value_is_reported() -> None:
    src = SRC.replace(
        'targets["av"] = targets["av"].cuda()', 'targets["av"] = targets["av"].float()'
    )
    assert lines(src) == [use_line(src)]


def test_the_whole_batch_keeps_its_other_entries_apart() -> None:
    """``sample["x"] = sample["x"].cuda()`` on the whole batch moves that entry only: another
    entry read later is still on the CPU (no FRY003 for its ``.numpy()``)."""
    src = """
import torch


def run(loader):
    for sample in loader:
        sample["x"] = sample["x"].cuda()
        calib = sample["calib"].numpy()
        print(calib)


run(torch.utils.data.DataLoader([]))
"""
    assert check_source(src, "t.py", select=("FRY003",)) == []
