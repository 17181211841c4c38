"""FRY010: a tensor given where a tensor method or a torch function takes a size, a
dimension or a count (``r.expand(b, max_len)``, ``r.view(n, -1)``, ``torch.topk(t, k)``,
``F.one_hot(t, num_classes=n)``) is read as its number, so a factory's result does not
meet it there; the same tensor given as an operand still does."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

EXPAND = '''
import torch

def sequence_mask(lengths):
    max_len = lengths.max()
    steps = torch.arange(0, 64).long()
    grid = steps.unsqueeze(0).expand(lengths.size(0), max_len)
    return grid.sum()

sequence_mask(torch.tensor([3, 5]).cuda())
'''
VIEW = '''
import torch

def rows(counts, x):
    n = counts.sum()
    ones = torch.ones(12).view(n, -1)
    return ones.mean()

rows(torch.tensor([2, 2]).cuda(), None)
'''
REPEAT = '''
import torch

def tiled(counts):
    k = counts.max()
    base = torch.zeros(3).repeat(k, 1)
    return base.numel()

tiled(torch.tensor([1, 4]).cuda())
'''
TOPK = '''
import torch

def best(scores, counts):
    k = counts.min()
    noise = torch.rand(10)
    return torch.topk(noise, k, dim=0).indices.tolist()

best(None, torch.tensor([1, 4]).cuda())
'''
ONE_HOT = '''
import torch
import torch.nn.functional as F

def encode(labels, width):
    n = width.max()
    ids = torch.randint(0, 4, (8,))
    return F.one_hot(ids, num_classes=n).sum().item()

encode(None, torch.tensor([4]).cuda())
'''
CASES = [EXPAND, VIEW, REPEAT, TOPK, ONE_HOT]
IDS = ["expand", "view", "repeat", "topk", "one-hot"]
#: the same tensor as an operand: the factory's result meets it
OPERANDS = [
    (EXPAND, ("steps.unsqueeze(0).expand(lengths.size(0), max_len)", "steps.unsqueeze(0) < max_len")),
    (VIEW, ("torch.ones(12).view(n, -1)", "torch.ones(12).view(3, -1) * n")),
    (REPEAT, ("torch.zeros(3).repeat(k, 1)", "torch.zeros(3).add(k)")),
    (TOPK, ("torch.topk(noise, k, dim=0)", "torch.topk(noise * k, 2, dim=0)")),
    (ONE_HOT, ("F.one_hot(ids, num_classes=n)", "F.one_hot(ids + n, num_classes=4)")),
]


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


@pytest.mark.parametrize("source", CASES, ids=IDS)
def test_a_size_argument_on_the_device_is_no_meeting(source: str) -> None:
    assert _lines(source) == []


@pytest.mark.parametrize(("source", "change"), OPERANDS, ids=IDS)
def test_the_same_tensor_as_an_operand_is_found(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert len(_lines(changed)) == 1
