"""Stand-ins for ``torch.cuda``, ``torch.xpu``, ``torch.mps``/``torch.backends.mps``
and ``torch.accelerator`` while a simulation is active.

``patches(session)`` returns (module, attribute, replacement) triples; the
session swaps them in on entry and puts the exact original objects back on exit.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch

from torchferry._internal.vocabulary import LEGACY_CONSTRUCTORS
from torchferry.sim import modes as _modes
from torchferry.sim import tags as _tags

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


def _unsupported(feature: str):
    def raiser(*args: Any, **kwargs: Any) -> Any:
        raise _modes.UnsupportedFeatureError(
            f"{feature} cannot run in the simulated GPU (torchferry.simulate computes on the "
            "CPU); test this part on real hardware"
        )

    return raiser


def _unsupported_class(feature: str, name: str) -> type:
    """A class standing in for a torch class the simulation cannot run: usable in annotations
    (``torch.cuda.CUDAGraph | None``), ``isinstance`` checks and subclassing, as on a GPU;
    making one raises :class:`UnsupportedFeatureError` naming ``feature``."""
    refuse = _unsupported(feature)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        refuse()

    return type(name, (), {"__init__": __init__, "__module__": "torch.cuda"})


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
            get_device_name(idx), SIM_CAPABILITY[0], SIM_CAPABILITY[1], s.memory, 132
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
        # the simulated device's size less its live storages (the CPU's own free memory is
        # not consulted: simulate(memory=...) / --memory sets the size)
        return (max(s.memory - memory_allocated(device), 0), s.memory)

    def empty_cache() -> None:
        return None

    generator_class: Any = _generator_class(s)
    s.generators = [generator_class._for(torch.device(kind, i)) for i in range(s.count)]
    s.autocast_stack = []
    # Each simulated device has its own generator (a CPU generator, so the numbers are the
    # CPU's), independent of the CPU one as on a GPU: seeding or drawing on the device
    # leaves the CPU stream alone (modes.py runs random ops on a device tensor with the
    # device's generator).
    gens = s.generators

    def manual_seed(seed: int) -> None:
        gens[s.current].manual_seed(int(seed))

    def manual_seed_all(seed: int) -> None:
        for g in gens:
            g.manual_seed(int(seed))

    def seed() -> None:
        gens[s.current].seed()

    def seed_all() -> None:
        # torch.cuda.seed_all: one random seed for every device
        first = gens[0].seed()
        for g in gens[1:]:
            g.manual_seed(first)

    def initial_seed() -> int:
        return gens[s.current].initial_seed()

    def _gen_of(device: Any) -> Any:
        if isinstance(device, str):
            device = torch.device(device)
        idx = device if isinstance(device, int) else device.index
        return gens[check_index(s.current if idx is None else idx)]

    def get_rng_state(device: Any = kind) -> torch.Tensor:
        return _gen_of(device).get_state()

    def set_rng_state(new_state: torch.Tensor, device: Any = kind) -> None:
        _gen_of(device).set_state(new_state)

    def get_rng_state_all() -> list[torch.Tensor]:
        return [g.get_state() for g in gens]

    def set_rng_state_all(new_states: Any) -> None:
        for i, st in enumerate(new_states):
            set_rng_state(st, i)

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

        def __exit__(self, *exc: Any) -> None:
            s.current = self.prev

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

        _ferry_simulated = True

        def query(self) -> bool:
            return True

        def __enter__(self) -> Stream:
            # ``with stream:`` makes it current on its device, as torch.Stream does
            idx = self.device.index
            self._prev = (current.get(idx), s.current)
            current[idx] = self
            s.current = idx
            return self

        def __exit__(self, *exc: Any) -> None:
            prev, prev_dev = self._prev
            idx = self.device.index
            s.current = prev_dev
            if prev is None:
                current.pop(idx, None)
            else:
                current[idx] = prev

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

    fractions: dict[int, float] = {}

    def set_per_process_memory_fraction(fraction: Any, device: Any = None) -> None:
        # torch/cuda/memory.py: the same checks and texts; the simulation has no allocator
        # to limit, so the fraction is only remembered
        idx = check_index(index_of(device))
        if not isinstance(fraction, float):
            raise TypeError("Invalid type for fraction argument, must be `float`")
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
        fractions[idx] = fraction

    def get_per_process_memory_fraction(device: Any = None) -> float:
        return fractions.get(check_index(index_of(device)), 1.0)

    def memory_stats_as_nested_dict(device: Any = None) -> dict[str, Any]:
        """The allocator statistics ``torch.cuda.memory_stats``/``memory_summary`` read.

        Byte counts come from the simulated device's live storages (current) and the
        observed peak; the allocation counters are not tracked and read 0.
        """
        idx = check_index(index_of(device))
        cur = memory_allocated(idx)
        peak = max_memory_allocated(idx)

        def stat(current: int, pk: int) -> dict[str, int]:
            return {"current": current, "peak": pk, "allocated": pk, "freed": pk - current}

        def pools(current: int, pk: int) -> dict[str, dict[str, int]]:
            zero = stat(0, 0)
            return {"all": stat(current, pk), "large_pool": stat(current, pk), "small_pool": zero}

        out: dict[str, Any] = {
            name: pools(cur, peak)
            for name in (
                "allocated_bytes",
                "reserved_bytes",
                "active_bytes",
                "requested_bytes",
            )
        }
        for name in ("allocation", "segment", "active", "inactive_split", "inactive_split_bytes"):
            out[name] = pools(0, 0)
        out["oversize_allocations"] = stat(0, 0)
        out["oversize_segments"] = stat(0, 0)
        for name in (
            "num_alloc_retries",
            "num_ooms",
            "num_sync_all_streams",
            "num_device_alloc",
            "num_device_free",
        ):
            out[name] = 0
        out["max_split_size"] = -1
        return out

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
        "manual_seed_all": manual_seed_all,
        "seed": seed,
        "seed_all": seed_all,
        "default_generators": tuple(gens),
        "ipc_collect": noop,
        "set_per_process_memory_fraction": set_per_process_memory_fraction,
        "get_per_process_memory_fraction": get_per_process_memory_fraction,
        "get_arch_list": lambda: list(SIM_ARCH_LIST),
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
    spec = s.spec
    if spec.graphs:
        # classes in torch: libraries annotate with them (transformers: ``CUDAGraph | None``)
        api["CUDAGraph"] = _unsupported_class("CUDA graphs (torch.cuda.CUDAGraph)", "CUDAGraph")
        api["graph"] = _unsupported_class("CUDA graphs (torch.cuda.graph)", "graph")
        api["make_graphed_callables"] = _unsupported(
            "CUDA graphs (torch.cuda.make_graphed_callables)"
        )

    out: list[tuple[Any, str, Any]] = []
    out.append((torch, "Generator", generator_class))
    autocast = _autocast_class(s)
    out.append((torch, "autocast", autocast))
    out.append((torch.amp, "autocast", autocast))
    out.extend(_autocast_queries(s))
    if spec.api_module == "cuda":  # torch.cuda's own submodules: amp, memory, nvtx
        amp_autocast = _cuda_amp_autocast_class(autocast)
        out.append((torch.cuda.amp, "autocast", amp_autocast))
        out.append((torch.cuda.amp.autocast_mode, "autocast", amp_autocast))
        import torch.cuda.memory as cuda_memory
        import torch.cuda.nvtx as nvtx

        out.append((cuda_memory, "memory_stats_as_nested_dict", memory_stats_as_nested_dict))
        out.append((nvtx, "_nvtx", _NvtxStub()))
    out.extend(_legacy_tensor_types(kind))
    out.extend(_output_patches(s))
    if spec.data_parallel:
        from torchferry.sim import parallel

        out.extend(parallel.patches(s))
    out.extend(_device_and_storage_patches(s))
    if spec.api_module is not None:
        mod = getattr(torch, spec.api_module)
        for name, fn in api.items():
            if not spec.sync_debug and name in ("set_sync_debug_mode", "get_sync_debug_mode"):
                continue
            out.append((mod, name, fn))
        backend_mod = getattr(torch.backends, spec.api_module, None)
        if backend_mod is not None and hasattr(backend_mod, "is_built"):
            out.append((backend_mod, "is_built", is_available))
    else:  # mps: torch.backends.mps and its own small torch.mps API
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
            "recommended_max_memory": lambda: s.memory,
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

        def __exit__(self, *exc: Any) -> None:
            self.inner.__exit__(*exc)

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
    accelerator = getattr(torch, "accelerator", None)  # torch >= 2.6
    for name, fn in acc.items():
        if accelerator is not None and hasattr(accelerator, name):
            out.append((accelerator, name, fn))
    return out


def _generator_class(s: Any) -> type:
    """``torch.Generator(device="cuda")``: a CPU generator that reports the simulated device."""
    base = torch._C.Generator

    class _Meta(type(base)):  # type: ignore[misc]
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, base)

        def __subclasscheck__(cls, sub: type) -> bool:
            return issubclass(sub, base)

    class Generator(base, metaclass=_Meta):  # type: ignore[misc, valid-type]
        def __new__(cls, device: Any = "cpu") -> Any:
            d = _modes.resolve(device)
            self = super().__new__(cls, "cpu" if d is not NotImplemented else device)
            self._ferry_device = d if d is not None and d is not NotImplemented else None
            return self

        def __init__(self, device: Any = "cpu") -> None:
            pass

        @classmethod
        def _for(cls, device: torch.device) -> Any:
            """A simulated device's default generator (seeded as torch seeds a GPU's)."""
            self = super().__new__(cls, "cpu")
            self._ferry_device = device
            self._ferry_default = True
            return self

        @property
        def device(self) -> torch.device:
            d = self._ferry_device
            if d is None:
                return base.device.__get__(self)
            # torch.Generator(device="cuda") reports "cuda"; a device's default generator
            # (torch.cuda.default_generators[i]) reports "cuda:i"
            return d if getattr(self, "_ferry_default", False) else torch.device(d.type)

    Generator.__name__ = Generator.__qualname__ = "Generator"
    Generator.__module__ = "torch"
    return Generator


def _autocast_class(s: Any) -> type:
    """``torch.autocast(simulated kind)`` runs as CPU autocast with the GPU's default dtype,
    so the dtypes a GPU would produce (float16 matmuls) appear; the op lists are the CPU's."""
    base = torch.amp.autocast_mode.autocast

    class autocast(base):  # type: ignore[misc, valid-type]
        _ferry_state: tuple[bool, torch.dtype] | None = None

        def __init__(
            self,
            device_type: str,
            dtype: torch.dtype | None = None,
            enabled: bool = True,
            cache_enabled: bool | None = None,
        ) -> None:
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
                s.autocast_stack.append(self._ferry_state)
            return super().__enter__()

        def __exit__(self, *exc: Any) -> Any:
            try:
                return super().__exit__(*exc)
            finally:
                if self._ferry_state is not None and s.autocast_stack:
                    s.autocast_stack.pop()

    autocast.__module__ = base.__module__
    return autocast


def _autocast_queries(s: Any) -> list[tuple[Any, str, Any]]:
    """``torch.is_autocast_enabled(kind)`` / ``get_autocast_dtype(kind)`` inside ``autocast(kind)``."""
    orig_enabled = torch.is_autocast_enabled
    orig_dtype = torch.get_autocast_dtype

    def is_autocast_enabled(device_type: str | None = None) -> bool:
        if device_type is None:  # the deprecated no-argument form asks about CUDA
            if s.spec.api_module != "cuda":  # only the cuda kind answers for torch.cuda
                return orig_enabled()
            device_type = "cuda"
        if device_type == s.kind:
            return bool(s.autocast_stack) and s.autocast_stack[-1][0]
        return orig_enabled(device_type)

    def get_autocast_dtype(device_type: str) -> torch.dtype:
        if device_type == s.kind and s.autocast_stack:
            return s.autocast_stack[-1][1]
        return orig_dtype(device_type)

    return [
        (torch, "is_autocast_enabled", is_autocast_enabled),
        (torch, "get_autocast_dtype", get_autocast_dtype),
    ]


def _cuda_amp_autocast_class(autocast: type) -> type:
    """``torch.cuda.amp.autocast`` (deprecated): the simulated ``autocast("cuda")``."""

    class cuda_amp_autocast(autocast):
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

    cuda_amp_autocast.__name__ = cuda_amp_autocast.__qualname__ = "autocast"
    cuda_amp_autocast.__module__ = "torch.cuda.amp.autocast_mode"
    return cuda_amp_autocast


class _NvtxStub:
    """``torch.cuda.nvtx``'s native calls: ranges are counted, nothing is recorded."""

    def __init__(self) -> None:
        self.depth = 0
        self.ids = itertools.count(1)

    def rangePushA(self, msg: str) -> int:
        self.depth += 1
        return self.depth - 1

    def rangePop(self) -> int:
        if self.depth == 0:
            return -1
        self.depth -= 1
        return self.depth

    def rangeStartA(self, msg: str) -> int:
        return next(self.ids)

    def rangeEnd(self, range_id: int) -> None:
        return None

    def markA(self, msg: str) -> None:
        return None

    def deviceRangeStart(self, msg: str, stream: int = 0) -> object:
        return object()

    def deviceRangeEnd(self, handle: object, stream: int = 0) -> None:
        return None


def _legacy_dtype(name: str) -> Any:
    t = getattr(torch, name)
    return getattr(t, "_ferry_orig", t).dtype  # torch.FloatTensor.dtype is torch.float32


# The legacy type names come from the vocabulary; each type knows its dtype.
_LEGACY_DTYPES = {name: _legacy_dtype(name) for name in sorted(LEGACY_CONSTRUCTORS)}


def _legacy_tensor_types(kind: str) -> list[tuple[Any, str, Any]]:
    """``isinstance(x, torch.cuda.FloatTensor)`` true for a simulated float32 cuda tensor (and
    ``isinstance(x, torch.FloatTensor)`` false).  Calling a CPU type refuses a simulated
    tensor or storage as a GPU build does (``modes.legacy_ctor``); calling an accelerator type
    (``torch.cuda.FloatTensor(2, 3)``) makes a tensor on the simulated device
    (``modes.legacy_ctor_device``)."""
    out: list[tuple[Any, str, Any]] = []
    kmod = getattr(torch, kind, None)
    for name, dtype in _LEGACY_DTYPES.items():
        cpu_orig = getattr(torch, name, None)
        cpu_orig = getattr(cpu_orig, "_ferry_orig", cpu_orig)
        for mod, dev_type in ((torch, None), (kmod, kind)):
            orig = getattr(mod, name, None) if mod is not None else None
            if orig is None or cpu_orig is None:
                continue
            out.append((mod, name, _legacy_type(name, dtype, dev_type, orig, cpu_orig)))
    real_set_default = getattr(torch, "set_default_tensor_type", None)
    if real_set_default is not None:

        def set_default_tensor_type(t: Any) -> None:
            # torch's own type, not the stand-in (which torch's C check refuses)
            if isinstance(t, str):
                t = torch._utils._import_dotted_name(t)
            real = getattr(t, "_ferry_orig", t)
            if getattr(real, "__module__", "torch") != "torch":
                # an accelerator type (torch.cuda.FloatTensor): not simulated, and refused on
                # every build (a CUDA wheel without a GPU would otherwise make every later
                # tensor a real CUDA one and fail with "Found no NVIDIA driver")
                name = f"{real.__module__}.{getattr(real, '__name__', real)}"
                raise _modes.UnsupportedFeatureError(
                    f"torch.set_default_tensor_type({name}) is not simulated: use "
                    f"torch.set_default_device({real.__module__.split('.')[-1]!r}) and "
                    "torch.set_default_dtype(...), which PyTorch recommends instead and the "
                    "simulation runs"
                )
            real_set_default(real)

        set_default_tensor_type.__doc__ = real_set_default.__doc__
        out.append((torch, "set_default_tensor_type", set_default_tensor_type))
    return out


def _legacy_type(
    name: str, dtype: torch.dtype, dev_type: str | None, orig: Any, cpu_orig: Any
) -> Any:
    class _LegacyTypeMeta(type):
        def __instancecheck__(cls, obj: Any) -> bool:
            if isinstance(obj, torch.Tensor):
                d = _modes.dev_of(obj)
                if d is not None:
                    return d.type == dev_type and obj.dtype is dtype and not obj.is_sparse
            return isinstance(obj, orig)

        def __call__(cls, *args: Any, **kwargs: Any) -> Any:
            if dev_type is None:  # torch.FloatTensor(...): refuses simulated tensors as a GPU build
                return _modes.legacy_ctor(orig, dtype, args, kwargs)
            # torch.cuda.FloatTensor(...): made by the CPU type, on the simulated device
            return _modes.legacy_ctor_device(cpu_orig, dtype, dev_type, args, kwargs)

        def __repr__(cls) -> str:
            return repr(orig)

    t = _LegacyTypeMeta(name, (), {"_ferry_orig": orig, "_ferry_dtype": dtype, "_ferry_dev": dev_type})
    t.__module__ = orig.__module__
    return t


def _device_and_storage_patches(s: Any) -> list[tuple[Any, str, Any]]:
    """An int means the accelerator (``torch.device(0)``, ``x.to(0)``, ``model.to(rank)``),
    storages report their simulated device, and cuDNN is never asked about simulated tensors."""
    kind = s.kind
    real_device = torch.device

    class _DeviceMeta(type):
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, real_device)

        def __subclasscheck__(cls, sub: type) -> bool:
            return issubclass(sub, real_device)

        def __call__(cls, *args: Any, **kwargs: Any) -> Any:
            if len(args) == 1 and not kwargs and type(args[0]) is int:
                # torch.device(0): the current accelerator's device 0 (on a GPU build: cuda:0)
                return real_device(kind, args[0])
            return real_device(*args, **kwargs)

    class device(metaclass=_DeviceMeta):
        pass

    device.__name__ = device.__qualname__ = "device"
    device.__module__ = "torch"
    device.__doc__ = real_device.__doc__

    orig_parse_to = torch._C._nn._parse_to

    def _parse_to(*args: Any, **kwargs: Any) -> Any:
        if args and type(args[0]) is int:
            args = (real_device(kind, args[0]), *args[1:])
        if type(kwargs.get("device")) is int:
            kwargs = {**kwargs, "device": real_device(kind, kwargs["device"])}
        # Without torch functions: the simulation's mode would see ``device=`` and treat the
        # parser as a factory (``Module.to(device="cuda")`` then parsed to the CPU).
        with torch._C.DisableTorchFunction():
            return orig_parse_to(*args, **kwargs)

    real_storage_device = torch._C.StorageBase.device  # type: ignore[attr-defined]

    torch_dir = os.path.dirname(torch.__file__) + os.sep

    def _storage_device(self: Any) -> torch.device:
        # torch's own storage code (clone, copies, pickling) builds new storages on
        # ``self.device``: it must keep seeing the real one
        if not sys._getframe(1).f_code.co_filename.startswith(torch_dir):
            d = _tags.storage_device(self)
            if d is not None:
                return d
        return real_storage_device.__get__(self)

    import torch.backends.cudnn as cudnn

    orig_acceptable = cudnn.is_acceptable

    def is_acceptable(tensor: torch.Tensor) -> bool:
        # A simulated tensor is computed by CPU kernels, never by cuDNN: RNN modules then skip
        # flattening their weights for cuDNN (no warning on a CPU wheel, and no call into
        # aten::_cudnn_rnn_flatten_weight on a CUDA wheel).  The numbers do not change.
        if _modes.dev_of(tensor) is not None:
            return False
        return bool(orig_acceptable(tensor))

    orig_group = torch._C._group_tensors_by_device_and_dtype

    def _group_tensors_by_device_and_dtype(tensorlistlist: Any, with_indices: bool = False) -> Any:
        # torch's C++ grouping keys by the real (CPU) device; fused optimizers, GradScaler
        # and clip_grad_norm_ then move found_inf / norms to "cpu".  Key by the simulated one.
        first = tensorlistlist[0] if tensorlistlist else []
        if not any(t is not None and _modes.dev_of(t) is not None for t in first):
            return orig_group(tensorlistlist, with_indices)
        res: dict[Any, Any] = {}
        for (dev, dtype), (lists, idxs) in orig_group(tensorlistlist, True).items():
            for j, i in enumerate(idxs):
                t = lists[0][j]
                d = _modes.dev_of(t) if t is not None else None
                lists_out, idx_out = res.setdefault(
                    (d if d is not None else dev, dtype), ([[] for _ in lists], [])
                )
                for k, lst in enumerate(lists):
                    if j < len(lst):  # an empty list (e.g. no amsgrad state) stays empty
                        lists_out[k].append(lst[j])
                idx_out.append(i)
        if not with_indices:
            for _lists, idx_out in res.values():
                idx_out.clear()
        return res

    orig_script_fn_call = torch._C.ScriptFunction.__call__
    orig_script_method_call = torch._C.ScriptMethod.__call__

    def script_function_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _modes.script_call(orig_script_fn_call, self, args, kwargs)

    def script_method_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _modes.script_call(orig_script_method_call, self, args, kwargs)

    return [
        (torch._C, "_group_tensors_by_device_and_dtype", _group_tensors_by_device_and_dtype),
        (torch._C.ScriptFunction, "__call__", script_function_call),
        (torch._C.ScriptMethod, "__call__", script_method_call),
        (torch, "device", device),
        (torch._C._nn, "_parse_to", _parse_to),
        (torch.UntypedStorage, "device", property(_storage_device)),
        (cudnn, "is_acceptable", is_acceptable),
    ]


_SIM_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _output_patches(s: Any) -> list[tuple[Any, str, Any]]:
    """No output a GPU would not print: warnings shown at the user's line, not ours, and
    the profiler not asked for CUDA activity it cannot record."""
    from torchferry._internal.frames import user_frame

    orig_show = warnings.showwarning

    def showwarning(
        message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None
    ) -> None:
        # A warning raised in torch (Python or C++) during a call the simulation's function
        # mode made is attributed to the mode's frame: show it at the user's line instead,
        # as it is shown without the simulation.
        if os.path.abspath(filename).startswith(_SIM_DIR):
            f = user_frame(1)
            if f is not None:
                filename, lineno, line = f.f_code.co_filename, f.f_lineno, None
        orig_show(message, category, filename, lineno, file, line)

    out: list[tuple[Any, str, Any]] = [(warnings, "showwarning", showwarning)]
    if not s.spec.sync_debug:  # CUDA activity: only the cuda kind has a profiler for it
        return out
    import torch.profiler as tprof
    import torch.profiler.profiler as tprof_mod

    base = tprof_mod.profile
    cuda_activity = torch.profiler.ProfilerActivity.CUDA

    class profile(base):  # type: ignore[misc, valid-type]
        """``torch.profiler.profile``: CUDA activity is dropped (no CUDA kernel runs; asking
        for it makes the CPU build print a C++ warning on every op)."""

        def __init__(self, *args: Any, activities: Any = None, **kwargs: Any) -> None:
            if activities is not None:
                activities = [a for a in activities if a != cuda_activity] or [
                    torch.profiler.ProfilerActivity.CPU
                ]
            super().__init__(*args, activities=activities, **kwargs)

    profile.__name__ = profile.__qualname__ = "profile"
    profile.__module__ = base.__module__
    out.append((tprof, "profile", profile))
    out.append((tprof_mod, "profile", profile))
    return out
