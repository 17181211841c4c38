"""The stand-ins the simulation puts in place of torch's device APIs, by what they stand in for.

* :mod:`.devices`: device queries and selection (``is_available``, ``set_device``,
  ``torch.cuda.device``, ``get_device_properties``, ``torch.accelerator``'s).
* :mod:`.streams`: ``Stream``, ``Event`` and the current/default stream of each device.
* :mod:`.memory`: ``memory_allocated``, ``mem_get_info``, ``memory_stats`` and friends.
* :mod:`.rng`: each device's generator, ``manual_seed``, ``get_rng_state``.
* :mod:`.autocast`: ``torch.autocast(kind)`` and its queries.
* :mod:`.legacy`: ``torch.cuda.FloatTensor`` and the other legacy type names.
* :mod:`.seams`: torch internals that must see simulated devices (``torch.device(0)``,
  ``_parse_to``, storages, cuDNN, TorchScript calls, warnings' frame, the profiler).

Each stand-in is a module-level function or class.  Those that read the simulation take
its :class:`~torchferry.sim.state.SimState` as their first argument (or, for a class, as
the ``_state`` class attribute of the per-simulation subclass :func:`bound_class` makes);
:func:`bind` gives a function its state, and ``sim/cuda_api.py`` lists which stand-in goes
where.

>>> import torch
>>> from torchferry.sim import kinds
>>> from torchferry.sim.state import SimState
>>> from torchferry.sim.standins import devices
>>> count = bind(devices.device_count, SimState.new(kinds.spec("cuda"), 2, 1 << 30))
>>> count.__name__, count()
('device_count', 2)
"""

from __future__ import annotations

import functools
import types
from typing import Any, TypeVar

from torchferry.sim.state import SimState

__all__ = ["bind", "bound_class"]

T = TypeVar("T", bound=type)


def bind(fn: Any, *first: Any) -> Any:
    """``fn`` with ``first`` as its first arguments (the state, then any originals it
    wraps), called as torch calls the function it replaces.  No Python frame is added
    between the caller and ``fn`` (stand-ins that look at their caller's frame see it):
    one argument makes a bound method (whose name, docstring and signature without the
    state are ``fn``'s), more a :func:`functools.partial`."""
    if len(first) == 1:
        return types.MethodType(fn, first[0])
    return functools.partial(fn, *first)


def bound_class(cls: T, state: SimState, *bases: type, name: str | None = None, **attrs: Any) -> T:
    """A subclass of ``cls`` (and of ``bases``) whose ``_state`` is ``state``: the class
    ``torch.cuda.Stream``, ``torch.cuda.device``... stand for during one simulation,
    called ``name`` (default: ``cls``'s name); ``attrs`` are set on it."""
    ns: dict[str, Any] = {"_state": state, "__module__": cls.__module__, **attrs}
    new = type(name or cls.__name__, (cls, *bases), ns)
    new.__qualname__ = name or cls.__qualname__
    return new  # type: ignore[return-value]
