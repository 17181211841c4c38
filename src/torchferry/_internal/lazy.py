"""Lazy package attributes (PEP 562), written once for every package of torchferry.

A package lists ``name -> module`` and gets a module ``__getattr__`` and
``__dir__``: the module is imported on first access, so ``import torchferry``
stays fast and torch-free.  When the module needs PyTorch and PyTorch is not
installed (the lint-only install: ``pip install torchferry`` brings ``ferry
check`` without torch), the error says so in one line instead of a bare
``No module named 'torch'``.

>>> import types
>>> pkg = types.ModuleType("demo")
>>> pkg.__getattr__, pkg.__dir__ = exports("demo", {"dumps": "json"}, vars(pkg))
>>> pkg.dumps([1])
'[1]'
>>> "dumps" in dir(pkg)
True
>>> pkg.nope
Traceback (most recent call last):
    ...
AttributeError: module 'demo' has no attribute 'nope'
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping, MutableMapping
from types import ModuleType
from typing import Any

from torchferry.errors import TorchMissingError

__all__ = ["exports", "import_module", "missing_heavy"]


def import_module(name: str, *, needed_for: str | None = None) -> ModuleType:
    """Import ``name``; if torch or numpy is missing, raise :class:`TorchMissingError` saying so.

    >>> import_module("json").__name__
    'json'
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing in ("torch", "numpy"):
            raise TorchMissingError(needed_for or name, missing_heavy(missing)) from None
        raise


def missing_heavy(found: str) -> list[str]:
    """Which of torch and numpy are not installed, ``found`` (``"torch"`` or ``"numpy"``, the
    one an import just missed) included: a module that imports numpy first must not send a
    user who has neither to install numpy alone.

    >>> missing_heavy("numpy")  # where torch is installed
    ['numpy']
    """
    absent = []
    for name in ("torch", "numpy"):
        try:
            gone = sys.modules[name] is None if name in sys.modules else (
                importlib.util.find_spec(name) is None)
        except (ImportError, ValueError):
            gone = True
        if gone or name == found:
            absent.append(name)
    return absent


def exports(
    package: str, names: Mapping[str, str], namespace: MutableMapping[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``(__getattr__, __dir__)`` pair of a package whose ``names`` load from their modules.

    ``namespace`` is the package's ``globals()``: a loaded name is stored there, so
    later lookups do not come back through ``__getattr__``.
    """

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, needed_for=f"{package}.{name}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
