"""FRY010 and a ``*args`` parameter annotated as a tensor: ``def f(*deltas: Tensor)``
annotates each item (PEP 484), as ``delta: Tensor`` does one parameter, so a factory
without ``device=`` that meets an item (``delta * torch.full(delta.shape, p)`` for each
``delta`` of ``deltas``, or ``deltas[0]``) is a hint: reported when FRY010 is named, never
by the default rule set.  Without the annotation, or with another one, it stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

LOOPED = '''
import torch
from torch import Tensor


def dropout_deltas({params}, p: float = 0.9):
    return [delta * torch.bernoulli(torch.full(delta.shape, 1 - p)) for delta in deltas]
'''

INDEXED = '''
import torch
from torch import Tensor


def first({params}, p: float = 0.9):
    return deltas[0] * torch.full(deltas[0].shape, 1 - p)
'''


def lines(source: str, select: list[str] | None = None) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=select or ["FRY010"])]


@pytest.mark.parametrize("source", [LOOPED, INDEXED])
def test_an_item_of_annotated_star_args_is_a_hinted_tensor(source: str) -> None:
    assert lines(source.format(params="*deltas: Tensor")) == [7]
    assert lines(source.format(params="*deltas: torch.Tensor")) == [7]


@pytest.mark.parametrize("source", [LOOPED, INDEXED])
def test_the_default_rule_set_leaves_the_hint_out(source: str) -> None:
    assert [f for f in check_source(source.format(params="*deltas: Tensor"), "t.py")
            if f.code == "FRY010"] == []


@pytest.mark.parametrize("params", ["*deltas", "*deltas: int", "*deltas: str"])
def test_star_args_without_a_tensor_annotation_stay_quiet(params: str) -> None:
    assert lines(LOOPED.format(params=params)) == []
    assert lines(INDEXED.format(params=params)) == []

