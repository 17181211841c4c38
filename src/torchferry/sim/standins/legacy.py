"""The legacy tensor type names: ``isinstance(x, torch.cuda.FloatTensor)`` is true for a
simulated float32 cuda tensor (and ``isinstance(x, torch.FloatTensor)`` false).  Calling a
CPU type refuses a simulated tensor or storage as a GPU build does (``modes.legacy_ctor``);
calling an accelerator type (``torch.cuda.FloatTensor(2, 3)``) makes a tensor on the
simulated device (``modes.legacy_ctor_device``).
"""

from __future__ import annotations

from typing import Any

import torch

from torchferry._internal.vocabulary import LEGACY_CONSTRUCTORS
from torchferry.sim import tags as _tags
from torchferry.sim.state import SimState


def _legacy_dtype(name: str) -> Any:
    t = getattr(torch, name)
    return getattr(t, "_ferry_orig", t).dtype  # torch.FloatTensor.dtype is torch.float32


# The legacy type names come from the vocabulary; each type knows its dtype.
LEGACY_DTYPES = {name: _legacy_dtype(name) for name in sorted(LEGACY_CONSTRUCTORS)}


class LegacyTypeMeta(type):
    """The metaclass of a stand-in type: ``_ferry_orig`` is torch's type, ``_ferry_dtype``
    its dtype, ``_ferry_dev`` the device type it names (None: the CPU), ``_ferry_cpu``
    the CPU type of that name."""

    _ferry_orig: Any
    _ferry_dtype: torch.dtype
    _ferry_dev: str | None
    _ferry_cpu: Any

    def __instancecheck__(cls, obj: Any) -> bool:
        if isinstance(obj, torch.Tensor):
            d = _tags.sim_device(obj)
            if d is not None:
                return d.type == cls._ferry_dev and obj.dtype is cls._ferry_dtype and not obj.is_sparse
        return isinstance(obj, cls._ferry_orig)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        from torchferry.sim import modes

        if cls._ferry_dev is None:  # torch.FloatTensor(...): refuses simulated tensors as a GPU build
            return modes.legacy_ctor(cls._ferry_orig, cls._ferry_dtype, args, kwargs)
        # torch.cuda.FloatTensor(...): made by the CPU type, on the simulated device
        return modes.legacy_ctor_device(cls._ferry_cpu, cls._ferry_dtype, cls._ferry_dev, args, kwargs)

    def __repr__(cls) -> str:
        return repr(cls._ferry_orig)


def legacy_type(name: str, dtype: torch.dtype, dev_type: str | None, orig: Any, cpu_orig: Any) -> Any:
    """The stand-in for legacy type ``name`` (``orig``) of device type ``dev_type``."""
    attrs = {"_ferry_orig": orig, "_ferry_dtype": dtype, "_ferry_dev": dev_type, "_ferry_cpu": cpu_orig}
    t = LegacyTypeMeta(name, (), attrs)
    t.__module__ = orig.__module__
    return t


def set_default_tensor_type(real_set_default: Any, t: Any) -> None:
    """``torch.set_default_tensor_type``: torch's own type, not the stand-in (which torch's
    C check refuses); an accelerator type is refused, naming what to use instead."""
    if isinstance(t, str):
        t = torch._utils._import_dotted_name(t)
    real = getattr(t, "_ferry_orig", t)
    if getattr(real, "__module__", "torch") != "torch":
        # an accelerator type (torch.cuda.FloatTensor): not simulated, and refused on
        # every build (a CUDA wheel without a GPU would otherwise make every later
        # tensor a real CUDA one and fail with "Found no NVIDIA driver")
        from torchferry.errors import UnsupportedFeatureError

        name = f"{real.__module__}.{getattr(real, '__name__', real)}"
        raise UnsupportedFeatureError(
            f"torch.set_default_tensor_type({name}) is not simulated: use "
            f"torch.set_default_device({real.__module__.split('.')[-1]!r}) and "
            "torch.set_default_dtype(...), which PyTorch recommends instead and the "
            "simulation runs"
        )
    real_set_default(real)


def patches(s: SimState) -> list[tuple[Any, str, Any]]:
    """The legacy types of ``torch`` and of ``torch.<kind>``, and ``set_default_tensor_type``."""
    from torchferry.sim.standins import bind

    out: list[tuple[Any, str, Any]] = []
    kind = s.kind
    kmod = getattr(torch, kind, None)
    for name, dtype in LEGACY_DTYPES.items():
        cpu_orig = getattr(torch, name, None)
        cpu_orig = getattr(cpu_orig, "_ferry_orig", cpu_orig)
        for mod, dev_type in ((torch, None), (kmod, kind)):
            orig = getattr(mod, name, None) if mod is not None else None
            if orig is None or cpu_orig is None:
                continue
            out.append((mod, name, legacy_type(name, dtype, dev_type, orig, cpu_orig)))
    real_set_default = getattr(torch, "set_default_tensor_type", None)
    if real_set_default is not None:
        fn = bind(set_default_tensor_type, real_set_default)
        out.append((torch, "set_default_tensor_type", fn))
    return out
