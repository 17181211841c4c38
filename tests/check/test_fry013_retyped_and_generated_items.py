"""Items of a loader's batch that FRY013 follows: an item retyped after a CPU item
(``labels.to(device).type_as(reals)`` of an unmoved ``reals`` is back on the CPU), an item
computed with numbers (``1 - labels``) or one-hot encoded
(``F.one_hot(labels, 10)``, where the item is), and the batches that ``next()`` of a generator
function of the file over a loader gives (``next(loop(loader))``)."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

HEAD = """
import torch
from torch import nn
from torch.utils import data


class Gen(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, c):
        return self.fc(torch.cat((x, c), 1))


def loop(iterator):
    while True:
        for item in iterator:
            yield item


def train(dset):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    G = Gen().to(device)
    loader = data.DataLoader(dset, 4)
"""

RETYPED = """
    for reals, labels in loader:
        reals, labels = reals.to(device), {labels}
        G(reals, labels)
"""

COMPUTED = """
    for reals, labels in loader:
        reals, labels = reals.to(device), {labels}
        G(reals, 1 - labels)
"""

ONE_HOT = """
    for reals, labels in loader:
        onehot = nn.functional.one_hot(labels, 4).type(torch.FloatTensor)
        reals, labels = reals.to(device), {labels}
        G(reals, onehot)
"""

GENERATED = """
    batches = loop(loader)
    for step in range(10):
        reals, labels = next(batches)
        reals, labels = reals.to(device), {labels}
        G(reals, labels)
"""


def findings(body: str, labels: str) -> list[str]:
    src = textwrap.dedent(HEAD + body.format(labels=labels))
    return [f.message for f in check_source(src, "t.py", select=["FRY013"])]


@pytest.mark.parametrize("body", [RETYPED, COMPUTED, GENERATED])
def test_an_item_left_on_the_cpu_is_reported(body: str) -> None:
    if body is RETYPED:
        assert len(findings(body, "labels.to(device).type_as(reals)")) == 1
    else:
        assert len(findings(body, "labels")) == 1


def test_an_item_computed_with_numbers_is_quoted_whole_in_the_fix() -> None:
    (message,) = findings(COMPUTED, "labels")
    assert "`(1 - labels).to(device)`" in message


@pytest.mark.parametrize("body", [RETYPED, COMPUTED, GENERATED])
@pytest.mark.parametrize("labels", ["labels.to(device)", "labels.type_as(reals).to(device)"])
def test_an_item_moved_with_the_others_is_not_reported(body: str, labels: str) -> None:
    assert findings(body, labels) == []


def test_an_item_retyped_after_a_moved_item_is_not_reported() -> None:
    body = RETYPED.replace(
        "reals, labels = reals.to(device), {labels}",
        "reals = reals.to(device)\n        labels = {labels}",
    )
    assert findings(body, "labels.type_as(reals)") == []


def test_a_torch_function_of_an_unmoved_item_and_numbers_is_where_the_item_is() -> None:
    assert len(findings(ONE_HOT, "labels")) == 1
    moved = ONE_HOT.replace("one_hot(labels, 4).type(torch.FloatTensor)",
                            "one_hot(labels.to(device), 4).float()")
    assert findings(moved, "labels") == []
