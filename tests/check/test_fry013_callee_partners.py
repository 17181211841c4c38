"""FRY013: a batch item that meets a tensor on the device through a loss handed in as a
parameter (``xent(outputs, labels)`` of ``train(model, nn.CrossEntropyLoss(), ...)``, a
name the analysis takes for no model or loss),
or, in a helper it is handed to, a value made of another parameter the caller binds to a
tensor on the device (``_, pred = output.topk(k, 1)``; ``pred.eq(target.view(1, -1))``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

LOSS = """\
import torch
from torch import nn
from torch.utils.data import DataLoader


def train(model, xent, loader):
    for data, labels in loader:
        data, labels = data.cuda(), LABELS
        outputs = model(data)
        loss = xent(outputs, labels)
        loss.backward()


def main():
    model = nn.Linear(4, 2).cuda()
    train(model, CRITERION, DataLoader([]))


main()
"""

ACCURACY = """\
import torch
from torch import nn
from torch.utils.data import DataLoader


def accuracy(output, target, topk=(1,)):
    _, pred = output.topk(max(topk), 1, True, True)
    pred = pred.t()
    return pred.eq(target.view(1, -1).expand_as(pred))


def validate(model, loader):
    for input, target in loader:
        target = TARGET
        output = model(input.cuda())
        prec = accuracy(OUTPUT, target)


model = nn.Linear(4, 2).cuda()
validate(model, DataLoader([]))
"""


def _loss(labels: str = "labels", criterion: str = "nn.CrossEntropyLoss()") -> str:
    return LOSS.replace("LABELS", labels).replace("CRITERION", criterion)


def test_a_loss_handed_in_as_a_parameter_is_where_the_item_meets_the_output(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"train.py": _loss()}, "FRY013") == [10]


@pytest.mark.parametrize(
    ("labels", "criterion"),
    [
        ("labels.cuda()", "nn.CrossEntropyLoss()"),  # moved with the others
        ("labels", "make_loss()"),  # not known to be a module
    ],
)
def test_a_moved_item_or_a_parameter_of_unknown_value_is_not_reported(
    finding_lines: Callable[..., list[int]], labels: str, criterion: str
) -> None:
    text = "def make_loss():\n    return lambda a, b: a\n\n\n" + _loss(labels, criterion)
    assert finding_lines({"train.py": text}, "FRY013") == []


def test_a_parameter_one_call_passes_something_else_is_not_a_module(
    finding_lines: Callable[..., list[int]],
) -> None:
    text = _loss().replace("main()\n", "main()\ntrain(None, print, DataLoader([]))\n")
    assert finding_lines({"train.py": text}, "FRY013") == []


def _accuracy(target: str = "target", output: str = "output") -> str:
    return ACCURACY.replace("TARGET", target).replace("OUTPUT", output)


def test_a_helper_partner_made_of_the_output_parameter_meets_the_unmoved_target(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"train.py": _accuracy()}, "FRY013") == [16]


@pytest.mark.parametrize(
    ("target", "output"),
    [
        ("target.cuda()", "output"),  # the target moved: both on the device
        ("target", "output.cpu()"),  # the output brought back: both on the CPU
    ],
)
def test_a_helper_meeting_on_one_device_is_not_reported(
    finding_lines: Callable[..., list[int]], target: str, output: str
) -> None:
    assert finding_lines({"train.py": _accuracy(target, output)}, "FRY013") == []
