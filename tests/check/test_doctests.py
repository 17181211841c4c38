"""The runnable examples in the checker's docstrings really run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "torchferry.check.api",
    "torchferry.check.analysis",
    "torchferry.check.names",
    "torchferry.check.scopes",
    "torchferry.check.facts",
    "torchferry.check.loops",
    "torchferry.check.engine",
    "torchferry.check.files",
    "torchferry.check.notebook",
    "torchferry.check.runner",
    "torchferry.check.config",
    "torchferry.check.report",
    "torchferry.check.cache",
    "torchferry.check.docs",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
