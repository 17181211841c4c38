"""Device queries and selection: ``torch.cuda.is_available``, ``device_count``,
``set_device``, ``get_device_properties``, ``torch.cuda.device``, and ``torch.accelerator``'s.

Each function takes the simulation's :class:`~torchferry.sim.state.SimState` first.

>>> from torchferry.sim import kinds
>>> from torchferry.sim.state import SimState
>>> st = SimState.new(kinds.spec("cuda"), 2, 1 << 30)
>>> set_device(st, "cuda:1"); current_device(st), get_device_name(st)
(1, 'torchferry simulated CUDA device 1')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from torchferry.sim import tags as _tags
from torchferry.sim.state import SimState

SIM_TOTAL_MEMORY = 80 * 1024**3
SIM_CAPABILITY = (9, 0)
# what ``torch.cuda.get_arch_list()`` answers: architectures of a current CUDA wheel, the
# simulated device's (sm_90) among them
SIM_ARCH_LIST = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")


@dataclass(frozen=True)
class SimulatedDeviceProperties:
    """What ``get_device_properties`` returns for a simulated device."""

    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int
    is_integrated: bool = False
    is_multi_gpu_board: bool = False
    has_fp64: bool = True

    def __repr__(self) -> str:
        return (
            f"_SimulatedDeviceProperties(name='{self.name}', major={self.major}, "
            f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def index_of(s: SimState, device: Any = None) -> int:
    """The device index ``device`` names (None: the current one; a stream: its device's).

    ``torch.cuda.*``'s ``_get_device_index``: another device type is a ValueError."""
    if device is None:
        return s.current
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if getattr(device, "_ferry_simulated", False):  # a simulated Stream
        return int(device.device.index)
    d = torch.device(device)
    if d.type != s.kind:
        raise ValueError(f"Expected a {s.kind} device, but got: {d}")
    return s.current if d.index is None else d.index


def checked_index(s: SimState, device: Any = None) -> int:
    """:func:`index_of`, which must name a simulated device (else the kind's ordinal error)."""
    return s.check_index(index_of(s, device))


def is_available() -> bool:
    return True


def noop(*args: Any, **kwargs: Any) -> None:
    return None


def is_current_stream_capturing() -> bool:
    return False


def device_count(s: SimState) -> int:
    return s.count


def current_device(s: SimState) -> int:
    return s.current


def set_device(s: SimState, device: Any) -> None:
    idx = index_of(s, device)
    if idx < 0:
        return
    s.current = s.check_index(idx)


def get_device_name(s: SimState, device: Any = None) -> str:
    idx = checked_index(s, device)
    return f"torchferry simulated {s.kind.upper()} device {idx}"


def get_device_properties(s: SimState, device: Any = None) -> SimulatedDeviceProperties:
    idx = index_of(s, device)
    if not 0 <= idx < s.count:
        raise AssertionError("Invalid device id")
    return SimulatedDeviceProperties(
        get_device_name(s, idx), SIM_CAPABILITY[0], SIM_CAPABILITY[1], s.memory, 132
    )


def get_device_capability(s: SimState, device: Any = None) -> tuple[int, int]:
    p = get_device_properties(s, device)
    return (p.major, p.minor)


def synchronize(s: SimState, device: Any = None) -> None:
    checked_index(s, device)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return True


def get_arch_list() -> list[str]:
    return list(SIM_ARCH_LIST)


def current_accelerator(s: SimState, check_available: bool = False) -> torch.device:
    """``torch.accelerator.current_accelerator()``: the simulated device type."""
    return torch.device(s.kind)


def accelerator_capability(device: Any = None, /) -> dict[str, int]:
    """``torch.accelerator.get_device_capability()``."""
    return {"major": SIM_CAPABILITY[0], "minor": SIM_CAPABILITY[1]}


class Device:
    """``torch.cuda.device(i)``: make ``i`` the current device inside the block."""

    _state: ClassVar[SimState]

    def __init__(self, device: Any) -> None:
        self.idx = -1 if device is None else index_of(self._state, device)
        self.prev = -1

    def __enter__(self) -> None:
        self.prev = self._state.current
        if self.idx >= 0:
            self._state.current = self._state.check_index(self.idx)

    def __exit__(self, *exc: Any) -> None:
        self._state.current = self.prev


class DeviceOf(Device):
    """``torch.cuda.device_of(tensor)``: the tensor's device is current inside the block."""

    def __init__(self, obj: Any) -> None:
        d = _tags.sim_device(obj) if isinstance(obj, torch.Tensor) else None
        super().__init__(d.index if d is not None else None)


class DeviceIndex:
    """``torch.accelerator.device_index(i)``: :class:`Device` with a positional index."""

    device_class: ClassVar[type[Device]]

    def __init__(self, device: int | None, /) -> None:
        self.inner = self.device_class(device)

    def __enter__(self) -> None:
        self.inner.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.inner.__exit__(*exc)


_SYNC_MODES = {"default": 0, "warn": 1, "error": 2}


def set_sync_debug_mode(s: SimState, debug_mode: Any) -> None:
    """``torch.cuda.set_sync_debug_mode``: host syncs warn (1, "warn") or raise (2, "error")."""
    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`"
            )
        debug_mode = _SYNC_MODES[debug_mode]
    s.sync_mode = int(debug_mode)


def get_sync_debug_mode(s: SimState) -> int:
    return s.sync_mode
