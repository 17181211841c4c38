"""The runnable examples in the public docstrings really run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["torchferry.move", "torchferry.devices", "torchferry.checkpoint"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
