"""Stand-ins for ``torch.cuda``, ``torch.xpu``, ``torch.mps``/``torch.backends.mps``
and ``torch.accelerator`` while a simulation is active.

``patches(session)`` returns (module, attribute, replacement) triples; the
session swaps them in on entry and puts the exact original objects back on exit.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch

from torchferry.sim import modes as _modes
from torchferry.sim import tags as _tags

SIM_TOTAL_MEMORY = 80 * 1024**3
SIM_CAPABILITY = (9, 0)


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


def _unsupported(feature: str):
    def raiser(*args: Any, **kwargs: Any) -> Any:
        raise _modes.UnsupportedFeatureError(
            f"{feature} cannot run in the simulated GPU (torchferry.simulate computes on the "
            "CPU); test this part on real hardware"
        )

    return raiser


def patches(s: Any) -> list[tuple[Any, str, Any]]:
    kind = s.kind
    K = kind.upper()

    def index_of(device: Any = None, optional: bool = True) -> int:
        if device is None:
            return s.current
        if isinstance(device, int) and not isinstance(device, bool):
            idx = device
        else:
            if isinstance(device, Stream):
                return device.device.index
            d = torch.device(device)
            if d.type != kind:
                raise ValueError(f"Expected a {kind} device, but got: {d}")
            idx = s.current if d.index is None else d.index
        return idx

    def check_index(idx: int) -> int:
        if not 0 <= idx < s.count:
            raise s.ordinal_error()
        return idx

    def is_available() -> bool:
        return True

    def device_count() -> int:
        return s.count

    def current_device() -> int:
        return s.current

    def set_device(device: Any) -> None:
        idx = index_of(device)
        if idx < 0:
            return
        s.current = check_index(idx)

    def get_device_name(device: Any = None) -> str:
        idx = check_index(index_of(device))
        return f"torchferry simulated {K} device {idx}"

    def get_device_properties(device: Any = None) -> SimulatedDeviceProperties:
        idx = index_of(device)
        if not 0 <= idx < s.count:
            raise AssertionError("Invalid device id")
        return SimulatedDeviceProperties(
            get_device_name(idx), SIM_CAPABILITY[0], SIM_CAPABILITY[1], SIM_TOTAL_MEMORY, 132
        )

    def get_device_capability(device: Any = None) -> tuple[int, int]:
        p = get_device_properties(device)
        return (p.major, p.minor)

    def synchronize(device: Any = None) -> None:
        check_index(index_of(device))

    def memory_allocated(device: Any = None) -> int:
        idx = check_index(index_of(device))
        _tags.sweep()
        return _tags.live_bytes().get(s.devices[idx], 0)

    def max_memory_allocated(device: Any = None) -> int:
        idx = check_index(index_of(device))
        _tags.sweep()
        return max(_tags.PEAK.get(s.devices[idx], 0), memory_allocated(idx))

    def reset_peak_memory_stats(device: Any = None) -> None:
        idx = check_index(index_of(device))
        _tags.sweep()
        _tags.PEAK[s.devices[idx]] = _tags.live_bytes().get(s.devices[idx], 0)

    def mem_get_info(device: Any = None) -> tuple[int, int]:
        return (SIM_TOTAL_MEMORY - memory_allocated(device), SIM_TOTAL_MEMORY)

    def empty_cache() -> None:
        return None

    def manual_seed(seed: int) -> None:
        torch.default_generator.manual_seed(int(seed))

    def seed() -> None:
        torch.default_generator.seed()

    def initial_seed() -> int:
        return torch.default_generator.initial_seed()

    def get_rng_state(device: Any = kind) -> torch.Tensor:
        return torch.default_generator.get_state()

    def set_rng_state(new_state: torch.Tensor, device: Any = kind) -> None:
        torch.default_generator.set_state(new_state)

    def get_rng_state_all() -> list[torch.Tensor]:
        return [get_rng_state() for _ in range(s.count)]

    def set_rng_state_all(new_states: Any) -> None:
        for st in list(new_states)[:1]:
            set_rng_state(st)

    def set_sync_debug_mode(debug_mode: Any) -> None:
        if isinstance(debug_mode, str):
            modes = {"default": 0, "warn": 1, "error": 2}
            if debug_mode not in modes:
                raise RuntimeError(
                    "invalid value of debug_mode, expected one of `default`, `warn`, `error`"
                )
            debug_mode = modes[debug_mode]
        s.sync_mode = int(debug_mode)

    def get_sync_debug_mode() -> int:
        return s.sync_mode

    class device:
        """``torch.cuda.device(i)``: make ``i`` the current device inside the block."""

        def __init__(self, device: Any) -> None:
            self.idx = -1 if device is None else index_of(device)
            self.prev = -1

        def __enter__(self) -> None:
            self.prev = s.current
            if self.idx >= 0:
                s.current = check_index(self.idx)

        def __exit__(self, *exc: Any) -> bool:
            s.current = self.prev
            return False

    class device_of(device):
        def __init__(self, obj: Any) -> None:
            d = _modes.dev_of(obj) if isinstance(obj, torch.Tensor) else None
            super().__init__(d.index if d is not None else None)

    _ids = itertools.count(0x1000, 0x10)

    class Stream:
        """A simulated stream: work is already done when it is queued."""

        def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
            idx = check_index(index_of(device))
            self.device = s.devices[idx]
            self.priority = priority
            self.cuda_stream = next(_ids)
            self.stream_id = self.cuda_stream
            self.device_index = idx
            self.device_type = kind

        def query(self) -> bool:
            return True

        def is_capturing(self) -> bool:
            return False

        def synchronize(self) -> None:
            return None

        def wait_event(self, event: Any) -> None:
            return None

        def wait_stream(self, stream: Any) -> None:
            return None

        def record_event(self, event: Any = None) -> Any:
            event = event if event is not None else Event()
            event.record(self)
            return event

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Stream) and other.cuda_stream == self.cuda_stream

        def __hash__(self) -> int:
            return hash((self.cuda_stream, self.device))

        def __repr__(self) -> str:
            return f"<torch.{kind}.Stream device={self.device} {kind}_stream={self.cuda_stream:#x}>"

    default_streams: dict[int, Stream] = {}

    def default_stream(device: Any = None) -> Stream:
        idx = check_index(index_of(device))
        if idx not in default_streams:
            st = Stream(idx)
            st.cuda_stream = 0
            default_streams[idx] = st
        return default_streams[idx]

    current: dict[int, Stream] = {}

    def current_stream(device: Any = None) -> Stream:
        idx = check_index(index_of(device))
        return current.get(idx) or default_stream(idx)

    def set_stream(stream: Any) -> None:
        if stream is not None:
            current[stream.device.index] = stream

    @contextlib.contextmanager
    def stream(stream: Any) -> Iterator[None]:
        if stream is None:
            yield
            return
        idx = stream.device.index
        prev = current.get(idx)
        prev_dev = s.current
        current[idx] = stream
        s.current = idx
        try:
            yield
        finally:
            s.current = prev_dev
            if prev is None:
                current.pop(idx, None)
            else:
                current[idx] = prev

    class Event:
        """A simulated event: ``elapsed_time`` measures host time between records."""

        def __init__(
            self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
        ) -> None:
            self.enable_timing = enable_timing
            self.blocking = blocking
            self.interprocess = interprocess
            self._t: float | None = None

        def record(self, stream: Any = None) -> None:
            self._t = time.perf_counter()

        def wait(self, stream: Any = None) -> None:
            return None

        def query(self) -> bool:
            return True

        def synchronize(self) -> None:
            return None

        def elapsed_time(self, end_event: Event) -> float:
            if not (self.enable_timing and end_event.enable_timing):
                raise ValueError("Both events must be created with argument 'enable_timing=True'.")
            if self._t is None or end_event._t is None:
                raise ValueError("Both events must be recorded before calculating elapsed time.")
            return (end_event._t - self._t) * 1000.0

    def is_bf16_supported(including_emulation: bool = True) -> bool:
        return True

    def noop(*args: Any, **kwargs: Any) -> None:
        return None

    api: dict[str, Any] = {
        "is_available": is_available,
        "is_initialized": is_available,
        "init": noop,
        "_lazy_init": noop,
        "device_count": device_count,
        "current_device": current_device,
        "set_device": set_device,
        "get_device_name": get_device_name,
        "get_device_properties": get_device_properties,
        "get_device_capability": get_device_capability,
        "synchronize": synchronize,
        "device": device,
        "device_of": device_of,
        "Stream": Stream,
        "Event": Event,
        "stream": stream,
        "current_stream": current_stream,
        "default_stream": default_stream,
        "set_stream": set_stream,
        "memory_allocated": memory_allocated,
        "max_memory_allocated": max_memory_allocated,
        "memory_reserved": memory_allocated,
        "max_memory_reserved": max_memory_allocated,
        "reset_peak_memory_stats": reset_peak_memory_stats,
        "reset_max_memory_allocated": reset_peak_memory_stats,
        "mem_get_info": mem_get_info,
        "empty_cache": empty_cache,
        "manual_seed": manual_seed,
        "manual_seed_all": manual_seed,
        "seed": seed,
        "seed_all": seed,
        "initial_seed": initial_seed,
        "get_rng_state": get_rng_state,
        "set_rng_state": set_rng_state,
        "get_rng_state_all": get_rng_state_all,
        "set_rng_state_all": set_rng_state_all,
        "set_sync_debug_mode": set_sync_debug_mode,
        "get_sync_debug_mode": get_sync_debug_mode,
        "is_bf16_supported": is_bf16_supported,
        "is_current_stream_capturing": lambda: False,
    }
    if kind == "cuda":
        api["CUDAGraph"] = _unsupported("CUDA graphs (torch.cuda.CUDAGraph)")
        api["graph"] = _unsupported("CUDA graphs (torch.cuda.graph)")
        api["make_graphed_callables"] = _unsupported(
            "CUDA graphs (torch.cuda.make_graphed_callables)"
        )

    out: list[tuple[Any, str, Any]] = []
    out.append((torch, "Generator", _generator_class(s)))
    autocast = _autocast_class(s)
    out.append((torch, "autocast", autocast))
    out.append((torch.amp, "autocast", autocast))
    if kind in ("cuda", "xpu"):
        mod = getattr(torch, kind)
        for name, fn in api.items():
            if kind == "xpu" and name in ("set_sync_debug_mode", "get_sync_debug_mode"):
                continue
            out.append((mod, name, fn))
        if kind == "cuda":
            out.append((torch.backends.cuda, "is_built", is_available))
    else:  # mps
        out.append((torch.backends.mps, "is_available", is_available))
        out.append((torch.backends.mps, "is_built", is_available))
        mps_api = {
            "is_available": is_available,
            "device_count": device_count,
            "synchronize": lambda: None,
            "manual_seed": manual_seed,
            "seed": seed,
            "get_rng_state": lambda device="mps": get_rng_state(),
            "set_rng_state": lambda new_state, device="mps": set_rng_state(new_state),
            "current_allocated_memory": lambda: memory_allocated(0),
            "driver_allocated_memory": lambda: memory_allocated(0),
            "recommended_max_memory": lambda: SIM_TOTAL_MEMORY,
            "empty_cache": empty_cache,
            "Event": Event,
        }
        for name, fn in mps_api.items():
            out.append((torch.mps, name, fn))

    class device_index:
        def __init__(self, device: int | None, /) -> None:
            self.inner = _modes_device(device)

        def __enter__(self) -> None:
            self.inner.__enter__()

        def __exit__(self, *exc: Any) -> bool:
            return self.inner.__exit__(*exc)

    _modes_device = device

    acc: dict[str, Any] = {
        "is_available": is_available,
        "current_accelerator": lambda check_available=False: torch.device(kind),
        "device_count": device_count,
        "current_device_index": current_device,
        "current_device_idx": current_device,
        "set_device_index": set_device,
        "set_device_idx": set_device,
        "synchronize": synchronize,
        "device_index": device_index,
        "current_stream": current_stream,
        "set_stream": set_stream,
        "empty_cache": empty_cache,
        "memory_allocated": memory_allocated,
        "max_memory_allocated": max_memory_allocated,
        "memory_reserved": memory_allocated,
        "max_memory_reserved": max_memory_allocated,
        "reset_peak_memory_stats": reset_peak_memory_stats,
        "get_memory_info": mem_get_info,
        "get_device_capability": lambda device=None, /: {
            "major": SIM_CAPABILITY[0],
            "minor": SIM_CAPABILITY[1],
        },
    }
    for name, fn in acc.items():
        if hasattr(torch.accelerator, name):
            out.append((torch.accelerator, name, fn))
    return out


def _generator_class(s: Any) -> type:
    """``torch.Generator(device="cuda")``: a CPU generator that reports the simulated device."""
    base = torch._C.Generator

    class _Meta(type(base)):  # type: ignore[misc]
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, base)

        def __subclasscheck__(cls, sub: type) -> bool:
            return issubclass(sub, base)

    class Generator(base, metaclass=_Meta):  # type: ignore[misc]
        def __new__(cls, device: Any = "cpu") -> Any:
            d = _modes.resolve(device)
            self = super().__new__(cls, "cpu" if d is not NotImplemented else device)
            self._ferry_device = d if d is not None and d is not NotImplemented else None
            return self

        def __init__(self, device: Any = "cpu") -> None:
            pass

        @property
        def device(self) -> torch.device:  # type: ignore[override]
            d = self._ferry_device
            return torch.device(d.type) if d is not None else base.device.__get__(self)

    Generator.__name__ = Generator.__qualname__ = "Generator"
    Generator.__module__ = "torch"
    return Generator


def _autocast_class(s: Any) -> type:
    """``torch.autocast(simulated kind)`` runs as CPU autocast with the GPU's default dtype,
    so the dtypes a GPU would produce (float16 matmuls) appear; the op lists are the CPU's."""
    base = torch.amp.autocast_mode.autocast

    class autocast(base):  # type: ignore[misc, valid-type]
        def __init__(
            self,
            device_type: str,
            dtype: torch.dtype | None = None,
            enabled: bool = True,
            cache_enabled: bool | None = None,
        ) -> None:
            if device_type == s.kind:
                if dtype is None:
                    dtype = torch.bfloat16 if s.kind == "xpu" else torch.float16
                device_type = "cpu"
            super().__init__(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    autocast.__module__ = base.__module__
    return autocast
