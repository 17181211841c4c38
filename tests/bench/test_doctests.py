"""The runnable examples in the docstrings of measure, DeviceLoader and ferry bench run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["torchferry.timing", "torchferry.loader", "torchferry.bench.profiles",
           "torchferry.bench.model", "torchferry.bench.command"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.delenv("TORCHFERRY_DEVICE", raising=False)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
