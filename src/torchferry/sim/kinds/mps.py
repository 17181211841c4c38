"""The ``mps`` kind: an Apple GPU (one per Mac), without float64, with ``torch.mps``'s own
small API and ``torch.backends.mps``."""

from __future__ import annotations

from typing import Any

from torchferry.sim.kinds import DeviceKind, own_ordinal_error


def _present() -> bool:
    import torch

    return bool(torch.backends.mps.is_available())


def _own_api(state: Any) -> list[tuple[Any, str, Any]]:
    """``torch.backends.mps`` and ``torch.mps``: name -> stand-in."""
    import torch

    from torchferry.sim.standins import bind, devices, memory, rng, streams

    stateful = {
        "device_count": devices.device_count,
        "manual_seed": rng.manual_seed,
        "seed": rng.seed,
        "get_rng_state": rng.mps_get_rng_state,
        "set_rng_state": rng.mps_set_rng_state,
        "current_allocated_memory": memory.first_device_allocated,
        "driver_allocated_memory": memory.first_device_allocated,
        "recommended_max_memory": memory.recommended_max_memory,
    }
    plain = {
        "is_available": devices.is_available,
        "synchronize": devices.noop,
        "empty_cache": memory.empty_cache,
        "Event": streams.Event,
    }
    out: list[tuple[Any, str, Any]] = [
        (torch.backends.mps, "is_available", devices.is_available),
        (torch.backends.mps, "is_built", devices.is_available),
    ]
    out += [(torch.mps, name, bind(fn, state)) for name, fn in stateful.items()]
    out += [(torch.mps, name, fn) for name, fn in plain.items()]
    return out


KIND = DeviceKind(
    name="mps",
    backend="MPS",
    api_module=None,
    max_count=1,
    count_error="simulate: a Mac has one MPS device; count must be 1 for {name!r}",
    refuses_float64=True,
    autocast_dtype="float16",
    sync_debug=False,
    graphs=False,
    distributed=False,
    data_parallel=False,
    ordinal_error=own_ordinal_error("mps"),  # the real text was not checked on hardware
    present=_present,
    availability="torch.backends.mps.is_available()",
    type_names=False,
    own_api=_own_api,
)
