"""Each simulated device kind, described once, in its own module of this package.

A kind is a :class:`DeviceKind` called ``KIND`` in a module here (``cuda.py``, ``mps.py``,
``xpu.py``).  Everything that differs between simulating one kind and another is a field
of it: the session, the stand-ins (``sim/cuda_api.py``, ``sim/standins/``), the function
mode (``modes``), the per-operator checker (``aten_check``), the pytest plugin, ``ferry run
--simulate`` and the IPython magic read it instead of comparing kind names.  Adding a kind
is adding one module here (and its tests); a kind described elsewhere (a plugin, a test)
is added with :func:`register_kind`.  ``torchferry.sim`` exports ``DeviceKind``,
``device_kind``, ``kind_names``, ``register_kind`` and ``unregister_kind``.

>>> spec("mps").refuses_float64, spec("cuda").backend
(True, 'CUDA')
>>> NAMES
('cuda', 'mps', 'xpu')
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from torchferry.errors import UsageError

__all__ = [
    "DeviceKind", "KINDS", "NAMES", "device_kind", "discover", "kind_names", "register_kind", "spec",
    "unregister_kind",
]


@dataclass(frozen=True)
class DeviceKind:
    """What simulating one kind of accelerator means.

    * ``name``: the device type (``torch.device(name)``, one of torch's device types);
      ``backend``: its dispatch key name, as in generated wrapper names (``wrapper_CUDA_addmm``).
    * ``api_module``: the ``torch.<module>`` that gets the torch.cuda-style stand-ins
      (``None``: none does); ``own_api(state)``: the kind's own further stand-ins, as
      (owner, attribute, replacement) triples (``torch.mps``'s small API), or None.
    * ``max_count``: how many devices a machine can have (``None``: no limit), and
      ``count_error``: the message for asking more (``{name}``, ``{max}``, ``{count}``).
    * ``refuses_float64``: float64 tensors cannot live there (MPS).
    * ``autocast_dtype``: ``torch.autocast(name)``'s default lower-precision dtype name.
    * ``sync_debug``: ``set_sync_debug_mode`` exists and flags host syncs (CUDA).
    * ``graphs``: ``torch.<module>`` has CUDA-graph APIs to refuse (CUDA).
    * ``distributed``: ``init_process_group("nccl")``, DTensor and FSDP2 are simulated, FSDP1 refused.
    * ``data_parallel``: ``nn.DataParallel`` / ``torch.cuda.comm`` run over its devices.
    * ``ordinal_error(count)``: the exception a device index past ``count`` raises.
    * ``present()``: is a real device of this kind here (the simulation then refuses)?
      ``availability``: the call a user makes to ask that (``torch.cuda.is_available()``).
    * ``type_names``: ``Tensor.type("torch.<name>.FloatTensor")`` names this device type
      (``options_from_string`` in torch/csrc/utils/tensor_types.cpp knows the
      ``torch.cuda.`` and ``torch.xpu.`` prefixes; other names are looked up as CPU types).
    """

    name: str
    backend: str
    api_module: str | None
    max_count: int | None
    refuses_float64: bool
    autocast_dtype: str
    sync_debug: bool
    graphs: bool
    distributed: bool
    data_parallel: bool
    ordinal_error: Callable[[int], Exception]
    present: Callable[[], bool]
    availability: str
    type_names: bool
    own_api: Callable[[Any], list[tuple[Any, str, Any]]] | None = None
    count_error: str = "simulate: at most {max} {name} devices, not {count}"

    def check_count(self, count: int) -> None:
        """A UsageError when a machine cannot have ``count`` devices of this kind."""
        if self.max_count is not None and count > self.max_count:
            raise UsageError(self.count_error.format(name=self.name, max=self.max_count,
                                                     count=count))

    def autocast_torch_dtype(self) -> Any:
        import torch

        return getattr(torch, self.autocast_dtype)


def own_ordinal_error(name: str) -> Callable[[int], Exception]:
    """The ordinal error of a kind whose real text was not checked on hardware: torchferry's."""

    def make(count: int) -> Exception:
        return RuntimeError(
            f"{name.upper()} error: invalid device ordinal (torchferry simulates "
            f"{count} {name} device{'s' if count > 1 else ''})"
        )

    return make


def discover(paths: Iterable[str], package: str) -> dict[str, DeviceKind]:
    """The ``KIND`` of each module of the package ``package`` (found in ``paths``), by name,
    in name order; a module whose ``KIND`` is not the :class:`DeviceKind` of its name is a
    programming error (AssertionError)."""
    found: dict[str, DeviceKind] = {}
    for info in sorted(pkgutil.iter_modules(list(paths)), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        kind = getattr(importlib.import_module(f"{package}.{info.name}"), "KIND", None)
        if not isinstance(kind, DeviceKind) or kind.name != info.name:
            raise AssertionError(f"{package}.{info.name}: KIND must be the DeviceKind "
                                 f"{info.name!r}")
        found[kind.name] = kind
    return found


# every kind the simulation knows, by name (the modules here, then those registered)
KINDS: dict[str, DeviceKind] = discover(__path__, __name__)
# the names of this package's kinds (with the registered ones: kind_names())
NAMES: tuple[str, ...] = tuple(KINDS)


def kind_names() -> tuple[str, ...]:
    """Every kind's name, registered ones included (``ferry run --simulate``'s choices)."""
    return tuple(KINDS)


def register_kind(kind: DeviceKind) -> DeviceKind:
    """Add ``kind`` (described outside this package) to the kinds the simulation knows."""
    import torch

    if kind.name in KINDS:
        raise ValueError(f"a device kind {kind.name!r} is already known")
    torch.device(kind.name)  # one of torch's device types, or torch's own error
    KINDS[kind.name] = kind
    return kind


def unregister_kind(name: str) -> None:
    """Forget the kind ``name`` added by :func:`register_kind` (this package's stay)."""
    if name in NAMES:
        raise ValueError(f"{name!r} is one of torchferry's own device kinds")
    KINDS.pop(name, None)


def spec(name: str) -> DeviceKind:
    """The :class:`DeviceKind` called ``name`` (KeyError for an unknown kind)."""
    return KINDS[name]


def device_kind(name: str) -> DeviceKind | None:
    """The :class:`DeviceKind` called ``name``, or None when no kind is called that."""
    return KINDS.get(name)


def backend_of(device_type: str) -> str:
    """The dispatch-key name of a device type (``"cuda"`` -> ``"CUDA"``)."""
    k = KINDS.get(device_type)
    return k.backend if k is not None else device_type.upper()
