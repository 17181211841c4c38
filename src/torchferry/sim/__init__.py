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

The public surface (what ``torchferry.diagnose`` and other tools may use; the
modules behind it are private):

* ``simulate(kind="cuda", count=1)``: the context manager / decorator.
* ``is_active() -> bool``: whether a simulation is running now (imports nothing).
* ``device_of(tensor) -> torch.device``: the simulated device if tagged, else the
  real one; torchferry's one "device of a tensor" (correct outside simulations too).
* ``created_at(tensor) -> (path, line, function) | None``: where the tensor's
  simulated-device storage was created or last moved (the innermost frame of
  user code, :mod:`torchferry._internal.frames`; recorded for every tagged storage).
* ``subscribe(listener) -> unsubscribe``: ``listener`` receives a
  :class:`SimEvent` for every transfer (``kind="transfer"``, ``direction``
  h2d/d2h/d2d, ``nbytes``) and host sync (``kind="sync"``, ``op``
  item/tolist/cpu/bool/float/int/nonzero/masked_select/masked_index/print/copy_).
  With no listener the cost is a truth test of an empty list at those points only.
  ``with subscribed(listener): ...`` does the same for a block.
* ``run_path(target, argv, *, module=False, simulate=None, count=1,
  on_exception=None) -> int``: run a script or module as ``python`` would.
* ``SimulationError``, ``UnsupportedFeatureError`` (also in :mod:`torchferry.errors`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from torchferry._internal.lazy import exports

_LAZY = {
    "simulate": "torchferry.sim.session",
    "SimulationError": "torchferry.errors",
    "device_of": "torchferry.sim.tags",
    "created_at": "torchferry.sim.tags",
    "UnsupportedFeatureError": "torchferry.errors",
    "subscribe": "torchferry.sim.events",
    "subscribed": "torchferry.sim.events",
    "SimEvent": "torchferry.sim.events",
    "run_path": "torchferry.sim.runner",
    "DeviceKind": "torchferry.sim.kinds",
    "device_kind": "torchferry.sim.kinds",
    "kind_names": "torchferry.sim.kinds",
    "register_kind": "torchferry.sim.kinds",
    "unregister_kind": "torchferry.sim.kinds",
}

__all__ = ["is_active", *_LAZY]


def is_active() -> bool:
    """True while a simulation (``torchferry.simulate``) is running.

    Imports nothing: when the simulation's modules were never imported, none ran.

    >>> import torchferry as tf
    >>> from torchferry import sim
    >>> sim.is_active()
    False
    >>> with tf.simulate("cuda"):
    ...     sim.is_active()
    True
    """
    modes = sys.modules.get("torchferry.sim.modes")
    return modes is not None and modes.ACTIVE is not None


__getattr__, __dir__ = exports("torchferry.sim", _LAZY, globals())


if TYPE_CHECKING:  # pragma: no cover
    from torchferry.errors import SimulationError, UnsupportedFeatureError  # noqa: F401
    from torchferry.sim.events import SimEvent, subscribe, subscribed  # noqa: F401
    from torchferry.sim.runner import run_path  # noqa: F401
    from torchferry.sim.session import simulate  # noqa: F401
    from torchferry.sim.tags import created_at, device_of  # noqa: F401
