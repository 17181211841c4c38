"""A simulated GPU: run CUDA/MPS/XPU code paths faithfully on a CPU-only machine.

Importing this package imports neither torch nor anything that patches it;
the names below load on first use.

Entry points: :func:`simulate` (context manager and decorator), ``ferry run
--simulate cuda SCRIPT`` (:func:`torchferry.sim.runner.run_path`), and the
pytest plugin (``pytest --ferry-simulate cuda``, fixture ``simulated_gpu``).

How it works: the data stays on the CPU; each storage created on a simulated
device gets a tag (``sim/tags.py``) and one TorchFunctionMode (``sim/modes.py``)
reads the tags of each call's inputs, runs the CPU kernel and tags the output.
Calls that mix devices are re-run under a dispatch-level checker
(``sim/aten_check.py``) that raises PyTorch's own error for that operator.

Hooks for tools built on the simulation (issue 5: ``ferry run --report``):

* ``device_of(tensor) -> torch.device``: the simulated device if tagged, else the real one.
* ``created_at(tensor) -> (path, line, function) | None``: where the tensor's
  simulated-device storage was created or last moved (innermost frame outside
  torch and torchferry; recorded for every tagged storage).
* ``torchferry.sim.events.subscribe(listener) -> unsubscribe``: ``listener``
  receives a :class:`~torchferry.sim.events.SimEvent` for every transfer
  (``kind="transfer"``, ``direction`` h2d/d2h/d2d, ``nbytes``) and host sync
  (``kind="sync"``, ``op`` item/tolist/cpu/bool/float/int/nonzero/
  masked_select/masked_index/print/copy_).  With no listener the cost is a
  truth test of an empty list at those points only.
* ``torchferry.sim.runner.run_path(target, argv, *, module=False, simulate=None,
  count=1) -> int``: run a script or module as ``python`` would.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY = {
    "simulate": "torchferry.sim.session",
    "SimulationError": "torchferry.sim.session",
    "device_of": "torchferry.sim.session",
    "created_at": "torchferry.sim.session",
    "UnsupportedFeatureError": "torchferry.sim.modes",
    "subscribe": "torchferry.sim.events",
    "SimEvent": "torchferry.sim.events",
    "run_path": "torchferry.sim.runner",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'torchferry.sim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:  # pragma: no cover
    from torchferry.sim.events import SimEvent, subscribe  # noqa: F401
    from torchferry.sim.modes import UnsupportedFeatureError  # noqa: F401
    from torchferry.sim.runner import run_path  # noqa: F401
    from torchferry.sim.session import SimulationError, created_at, device_of, simulate  # noqa: F401
