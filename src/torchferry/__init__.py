"""torchferry: make PyTorch code device-portable, and prove it.

The public API is small and imported lazily (PEP 562), so ``import torchferry``
does not import torch and patches nothing::

    import torchferry as tf

    dev = tf.device()                  # cuda, xpu, mps or cpu: picked once
    batch = tf.to(batch, dev)          # every tensor inside any nesting
    arr = tf.numpy(model(x))           # detached, on the host, NumPy-ready
    loss_value = tf.pyvalue(loss)      # a Python number
    state = tf.load("ckpt.pt")         # loads on any machine, weights only
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchferry._internal.lazy import exports
from torchferry._version import __version__
from torchferry.errors import (
    CheckpointError,
    DeviceUnavailableError,
    FerryError,
    NestingError,
    UnsafeCheckpointError,
)

# name -> module that defines it; the module is imported on first access.
_LAZY: dict[str, str] = {
    "device": "torchferry.devices",
    "to": "torchferry.move",
    "numpy": "torchferry.move",
    "pyvalue": "torchferry.move",
    "tree_map": "torchferry.move",
    "load": "torchferry.checkpoint",
    "save": "torchferry.checkpoint",
    "measure": "torchferry.timing",
    "DeviceLoader": "torchferry.loader",
    "simulate": "torchferry.sim.session",
    "explain": "torchferry.diagnose.explanation",
    "trips": "torchferry.diagnose.tripcount",
    "load_ipython_extension": "torchferry.diagnose.ipython",
    "unload_ipython_extension": "torchferry.diagnose.ipython",
}

__all__ = [
    "__version__",
    "FerryError",
    "DeviceUnavailableError",
    "CheckpointError",
    "UnsafeCheckpointError",
    "NestingError",
    *_LAZY,
]

__getattr__, __dir__ = exports("torchferry", _LAZY, globals())


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    # `name as name`: explicit re-exports (the names reach users through __getattr__)
    from torchferry.checkpoint import load as load
    from torchferry.checkpoint import save as save
    from torchferry.devices import device as device
    from torchferry.diagnose.explanation import explain as explain
    from torchferry.diagnose.ipython import load_ipython_extension as load_ipython_extension
    from torchferry.diagnose.ipython import unload_ipython_extension as unload_ipython_extension
    from torchferry.diagnose.tripcount import trips as trips
    from torchferry.loader import DeviceLoader as DeviceLoader
    from torchferry.move import numpy as numpy
    from torchferry.move import pyvalue as pyvalue
    from torchferry.move import to as to
    from torchferry.move import tree_map as tree_map
    from torchferry.sim.session import simulate as simulate
    from torchferry.timing import measure as measure
