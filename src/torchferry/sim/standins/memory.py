"""Memory queries: a simulated device's memory is its live storages (the CPU's), its size
``SimState.memory`` (``simulate(memory=...)`` / ``--memory``); nothing is allocated or limited.

>>> import torch
>>> from torchferry.sim import kinds
>>> from torchferry.sim.state import SimState
>>> st = SimState.new(kinds.spec("cuda"), 1, 1 << 30)
>>> memory_allocated(st), mem_get_info(st)
(0, (1073741824, 1073741824))
"""

from __future__ import annotations

from typing import Any

from torchferry.sim import tags as _tags
from torchferry.sim.standins.devices import checked_index
from torchferry.sim.state import SimState


def memory_allocated(s: SimState, device: Any = None) -> int:
    idx = checked_index(s, device)
    _tags.sweep()
    return _tags.live_bytes().get(s.devices[idx], 0)


def max_memory_allocated(s: SimState, device: Any = None) -> int:
    idx = checked_index(s, device)
    _tags.sweep()
    return max(_tags.PEAK.get(s.devices[idx], 0), memory_allocated(s, idx))


def reset_peak_memory_stats(s: SimState, device: Any = None) -> None:
    idx = checked_index(s, device)
    _tags.sweep()
    _tags.PEAK[s.devices[idx]] = _tags.live_bytes().get(s.devices[idx], 0)


def mem_get_info(s: SimState, device: Any = None) -> tuple[int, int]:
    # the simulated device's size less its live storages (the CPU's own free memory is
    # not consulted: simulate(memory=...) / --memory sets the size)
    return (max(s.memory - memory_allocated(s, device), 0), s.memory)


def empty_cache() -> None:
    return None


def set_per_process_memory_fraction(s: SimState, fraction: Any, device: Any = None) -> None:
    # torch/cuda/memory.py: the same checks and texts; the simulation has no allocator
    # to limit, so the fraction is only remembered
    idx = checked_index(s, device)
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    s.memory_fractions[idx] = fraction


def get_per_process_memory_fraction(s: SimState, device: Any = None) -> float:
    return s.memory_fractions.get(checked_index(s, device), 1.0)


def first_device_allocated(s: SimState) -> int:
    """``torch.mps.current_allocated_memory()`` / ``driver_allocated_memory()``."""
    return memory_allocated(s, 0)


def recommended_max_memory(s: SimState) -> int:
    """``torch.mps.recommended_max_memory()``: the simulated device's size."""
    return s.memory


def _stat(current: int, peak: int) -> dict[str, int]:
    return {"current": current, "peak": peak, "allocated": peak, "freed": peak - current}


def _pools(current: int, peak: int) -> dict[str, dict[str, int]]:
    return {"all": _stat(current, peak), "large_pool": _stat(current, peak),
            "small_pool": _stat(0, 0)}


def memory_stats_as_nested_dict(s: SimState, device: Any = None) -> dict[str, Any]:
    """The allocator statistics ``torch.cuda.memory_stats``/``memory_summary`` read.

    Byte counts come from the simulated device's live storages (current) and the
    observed peak; the allocation counters are not tracked and read 0.
    """
    idx = checked_index(s, device)
    cur = memory_allocated(s, idx)
    peak = max_memory_allocated(s, idx)
    out: dict[str, Any] = {
        name: _pools(cur, peak)
        for name in ("allocated_bytes", "reserved_bytes", "active_bytes", "requested_bytes")
    }
    for name in ("allocation", "segment", "active", "inactive_split", "inactive_split_bytes"):
        out[name] = _pools(0, 0)
    out["oversize_allocations"] = _stat(0, 0)
    out["oversize_segments"] = _stat(0, 0)
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
