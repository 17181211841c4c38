"""Python processes started by a simulated program get the simulation too.

On a GPU machine every process sees the GPUs: a training script that starts ``torchrun``,
``accelerate launch`` or ``python helper.py`` with ``subprocess`` has children that see
them.  While a simulation runs, its kind, device count and memory are in the environment
(``TORCHFERRY_SIMULATE=cuda:2:85899345920``) and ``PYTHONPATH`` starts with the folder of a
``sitecustomize`` (``sim/_child/``) that every Python child runs at startup (set and
restored by the session, ``sim/childenv.py``).  It calls
:func:`install`: when the child first imports ``torch``, a simulation of that kind starts
in it, for the rest of the process (a child that never imports torch pays one environment
lookup).  A simulation the child asks for itself (``ferry run --simulate``,
``pytest --ferry-simulate``, ``with simulate(...)``) replaces the inherited one.

This module imports neither torch nor the simulation: children load it at startup.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from typing import Any

from torchferry.sim.childenv import decode


def _start(kind: str, count: int, memory: int) -> None:
    from torchferry.sim.session import simulate

    if simulate.running() is None:
        sim = simulate(kind, count, memory=memory)
        sim.inherited = True
        sim.__enter__()


class _AfterTorch(importlib.abc.MetaPathFinder):
    """Starts the simulation once ``torch`` has been imported (its loader wrapped)."""

    def __init__(self, spec: tuple[str, int, int]) -> None:
        self.spec = spec

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "torch":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)  # once: the real finders do the finding
        found = importlib.util.find_spec(fullname)
        if found is not None and found.loader is not None:
            found.loader = _StartAfterExec(found.loader, self.spec)
        return found


class _StartAfterExec(importlib.abc.Loader):
    def __init__(self, loader: Any, spec: tuple[str, int, int]) -> None:
        self.loader, self.spec = loader, spec

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        sys.modules[module.__name__] = module
        _start(*self.spec)


def install(value: str) -> None:
    """What the child's ``sitecustomize`` calls with ``TORCHFERRY_SIMULATE``'s value."""
    spec = decode(value)
    if "torch" in sys.modules:
        _start(*spec)
    else:
        sys.meta_path.insert(0, _AfterTorch(spec))
