"""FRY010 and a module class that writes its computation as ``__call__`` instead of
``forward``: ``nn.Module.__call__`` is replaced, so calling an instance runs that method, and
its parameters are the module's inputs, as ``forward``'s are.  A factory without
``device=`` that meets such an input is reported as a hint (when FRY010 is named), as it is
in a ``forward``; in a plain class's ``__call__`` (no module), or in a module method that is
neither, it is not."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

EMBEDDING = '''
import torch
import torch.nn as nn


class PositionalEmbedding({base}):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def {method}(self, position):
        inv = torch.exp(torch.arange(self.dim // 2, dtype=torch.float32) * -0.1)
        return position[:, :, None] * inv[None, None, :]
'''


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


@pytest.mark.parametrize("method", ["forward", "__call__"])
def test_an_input_of_the_method_a_module_call_runs_may_be_on_a_device(method: str) -> None:
    assert lines(EMBEDDING.format(base="nn.Module", method=method)) == [12]


def test_a_plain_class_call_is_not_a_module_input() -> None:
    assert lines(EMBEDDING.format(base="object", method="__call__")) == []


def test_another_method_of_a_module_is_not_its_forward() -> None:
    assert lines(EMBEDDING.format(base="nn.Module", method="embed")) == []


def test_a_subclass_of_a_module_class_of_the_run() -> None:
    source = EMBEDDING.format(base="nn.Module", method="__call__").replace(
        "class PositionalEmbedding(nn.Module):", "class Base(nn.Module):\n    pass\n\n\nclass PositionalEmbedding(Base):")
    assert lines(source) == [16]


METRIC = '''
import numpy as np
import torch
import torch.nn as nn


class L2(nn.Module):
    def {method}(self, p, t):
        loss = ((p - t) ** 2).mean()
        return loss, loss.sqrt(){item}


def validate(model, loader, device):
    metric_func = L2()
    kept = []
    for x, y in loader:
        _, metric = metric_func(model(x.to(device)), y.to(device))
        kept.append(metric)
    return np.mean(kept)
'''


@pytest.mark.parametrize("method", ["forward", "__call__"])
def test_the_output_of_a_module_call_is_what_the_method_it_runs_returns(method: str) -> None:
    def found(item: str) -> list[int]:
        source = METRIC.format(method=method, item=item)
        return [f.line for f in check_source(source, "t.py", select=["FRY003"])]

    assert found(".item()") == []
    assert found("") == [19]


def test_a_call_that_hands_on_to_forward_leaves_forward_the_computation() -> None:
    source = EMBEDDING.format(base="nn.Module", method="forward") + (
        "\n    def __call__(self, position):\n        return super().__call__(position)\n")
    assert lines(source) == [12]
