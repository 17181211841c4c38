"""The lint-only install's one-line error: which of torch and numpy to install."""

from __future__ import annotations

import sys

import pytest

from torchferry._internal.lazy import import_module
from torchferry.errors import FerryError, TorchMissingError


@pytest.fixture
def needs_numpy_first(tmp_path, monkeypatch):
    """A module that imports numpy, then torch (as torchferry.move does)."""
    (tmp_path / "ferry_needs_numpy_first.py").write_text("import numpy\nimport torch\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ferry_needs_numpy_first", raising=False)
    return "ferry_needs_numpy_first"


def test_with_neither_installed_both_are_named(needs_numpy_first, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(TorchMissingError) as info:
        import_module(needs_numpy_first, needed_for="torchferry.to")
    assert str(info.value) == (
        "torchferry.to needs PyTorch and NumPy, which are not installed here: install them "
        "(pip install torch numpy, or pip install 'torchferry[torch]')"
    )
    assert info.value.name == "torch"
    assert isinstance(info.value, (FerryError, ModuleNotFoundError))


def test_with_torch_installed_only_numpy_is_named(needs_numpy_first, monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(TorchMissingError, match=r"^torchferry.to needs NumPy, which is not "
                       r"installed here: install it \(pip install numpy, or"):
        import_module(needs_numpy_first, needed_for="torchferry.to")
