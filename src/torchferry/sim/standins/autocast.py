"""``torch.autocast(kind)``: runs as CPU autocast with the GPU's default dtype, so the
dtypes a GPU would produce (float16 matmuls) appear; the op lists are the CPU's.  The
blocks entered are ``SimState.autocast_stack``, which ``torch.is_autocast_enabled(kind)``
and ``torch.get_autocast_dtype(kind)`` read.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import torch

from torchferry.sim.state import SimState

_BASE: Any = torch.amp.autocast_mode.autocast


class Autocast(_BASE):
    """``torch.autocast`` in the simulation (the simulation's subclass has ``_state``)."""

    _state: ClassVar[SimState]
    _ferry_state: tuple[bool, torch.dtype] | None = None

    def __init__(
        self,
        device_type: str,
        dtype: torch.dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        s = self._state
        if device_type == s.kind:
            if dtype is None:
                dtype = s.spec.autocast_torch_dtype()
            self._ferry_state = (bool(enabled), dtype)
            device_type = "cpu"
            if dtype not in (torch.float16, torch.bfloat16):
                # GPU autocast accepts float32 (ops run in float32); CPU autocast would
                # warn and disable itself.  Float32 inputs compute the same without it.
                enabled = False
        super().__init__(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    def __enter__(self) -> Any:
        if self._ferry_state is not None:
            self._state.autocast_stack.append(self._ferry_state)
        return super().__enter__()

    def __exit__(self, *exc: Any) -> Any:
        try:
            return super().__exit__(*exc)
        finally:
            if self._ferry_state is not None and self._state.autocast_stack:
                self._state.autocast_stack.pop()


Autocast.__name__ = Autocast.__qualname__ = "autocast"
Autocast.__module__ = _BASE.__module__


class CudaAmpAutocast(Autocast):
    """``torch.cuda.amp.autocast`` (deprecated): the simulated ``autocast("cuda")``."""

    def __init__(
        self, enabled: bool = True, dtype: torch.dtype = torch.float16, cache_enabled: bool = True
    ) -> None:
        # torch/cuda/amp/autocast_mode.py: @deprecated(..., category=FutureWarning)
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


CudaAmpAutocast.__name__ = CudaAmpAutocast.__qualname__ = "autocast"
CudaAmpAutocast.__module__ = "torch.cuda.amp.autocast_mode"


def autocast_class(s: SimState) -> type[Autocast]:
    """The simulation's ``torch.autocast``: made once per simulation, kept in its state."""
    if s.autocast_class is None:
        from torchferry.sim.standins import bound_class

        s.autocast_class = bound_class(Autocast, s)
    return s.autocast_class


def is_autocast_enabled(s: SimState, orig: Any, device_type: str | None = None) -> bool:
    """``torch.is_autocast_enabled(kind)`` inside ``autocast(kind)`` (``orig``: torch's)."""
    if device_type is None:  # the deprecated no-argument form asks about CUDA
        if s.spec.api_module != "cuda":  # only the cuda kind answers for torch.cuda
            return bool(orig())
        device_type = "cuda"
    if device_type == s.kind:
        return bool(s.autocast_stack) and s.autocast_stack[-1][0]
    return bool(orig(device_type))


def get_autocast_dtype(s: SimState, orig: Any, device_type: str) -> torch.dtype:
    """``torch.get_autocast_dtype(kind)`` inside ``autocast(kind)`` (``orig``: torch's)."""
    if device_type == s.kind and s.autocast_stack:
        return s.autocast_stack[-1][1]
    return orig(device_type)
