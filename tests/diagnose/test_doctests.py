"""The runnable examples in torchferry.diagnose's docstrings really run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "torchferry.diagnose.explain",
    "torchferry.diagnose.trips",
    "torchferry.diagnose.ipython",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
