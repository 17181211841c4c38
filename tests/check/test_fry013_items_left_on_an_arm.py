"""FRY013 with a batch's items moved on both arms of a test, one of them left behind on one
arm: the join of the arms makes the item "moved on some path", while on one arm it stays on
the CPU next to another item that went to the device."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

LOOP = """\
import torch
from torch import nn


def validate(model, loader, gpu, device):
    criterion = nn.CrossEntropyLoss()
    for i, (images, target) in enumerate(loader):
        if gpu is not None:
            images = images.cuda(gpu, non_blocking=True)
            {first}
        else:
            images = images.to(device)
            {second}
        output = model(images)
        loss = criterion(output, target)


model = nn.Linear(4, 2).cuda()
validate(model, [(torch.zeros(2, 4), torch.zeros(2).long())], 0, torch.device("cuda"))
"""


def _found(src: str) -> list[tuple[int, str]]:
    lines = src.splitlines()
    return [
        (f.line, lines[f.line - 1].strip()) for f in check_source(src, "t.py", select=["FRY013"])
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("target = target", "target = target.to(device)"),
        ("pass", "target = target.to(device)"),
        ("target = target.cuda(gpu)", "pass"),  # the other arm leaves it behind
    ],
)
def test_an_item_moved_on_one_arm_only_is_reported_where_it_meets(first: str, second: str) -> None:
    src = LOOP.format(first=first, second=second)
    found = _found(src)
    assert found == [(15, "loss = criterion(output, target)")]
    assert "one arm of a test" in check_source(src, "t.py", select=["FRY013"])[0].message


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("target = target.cuda(gpu, non_blocking=True)", "target = target.to(device)"),
        ("target = target.cuda(gpu)", "target = target.cuda()"),
        ("pass", "pass"),  # never moved on either arm: the plain form's business
    ],
)
def test_an_item_on_the_device_on_every_arm_that_moves_the_others_stays_quiet(
    first: str, second: str
) -> None:
    found = check_source(LOOP.format(first=first, second=second), "t.py", select=["FRY013"])
    assert not [f for f in found if "one arm" in f.message]


def test_an_item_moved_after_the_test_on_every_path_stays_quiet() -> None:
    src = LOOP.format(first="pass", second="target = target.to(device)").replace(
        "        output = model(images)",
        "        target = target.to(images.device)\n        output = model(images)",
    )
    assert _found(src) == []
