"""Stand-ins for ``torch.<kind>`` (``torch.cuda``, ``torch.xpu``: the kind's ``api_module``)
and ``torch.accelerator`` while a simulation is active: which stand-in goes where (a kind's
own further API, such as ``torch.mps``'s, is its ``own_api`` in ``sim/kinds/<name>.py``).

``patches(state)`` returns (module, attribute, replacement) triples; the session swaps
them in on entry and puts the exact original objects back on exit.  The stand-ins
themselves are module-level functions and classes in ``sim/standins/``, given the
simulation's :class:`~torchferry.sim.state.SimState` here (``bind``, ``bound_class``).
"""

from __future__ import annotations

from typing import Any

import torch

from torchferry.sim.standins import (
    autocast,
    bind,
    bound_class,
    devices,
    legacy,
    memory,
    rng,
    seams,
    streams,
)
from torchferry.sim.standins.devices import (
    SIM_ARCH_LIST,
    SIM_CAPABILITY,
    SIM_TOTAL_MEMORY,
    SimulatedDeviceProperties,
)
from torchferry.sim.state import SimState

__all__ = ["SIM_ARCH_LIST", "SIM_CAPABILITY", "SIM_TOTAL_MEMORY", "SimulatedDeviceProperties", "patches"]

Patches = list[tuple[Any, str, Any]]

# stand-ins that take the simulation's state, by the torch.cuda-style name they stand for
_STATEFUL = {
    "device_count": devices.device_count,
    "current_device": devices.current_device,
    "set_device": devices.set_device,
    "get_device_name": devices.get_device_name,
    "get_device_properties": devices.get_device_properties,
    "get_device_capability": devices.get_device_capability,
    "synchronize": devices.synchronize,
    "stream": streams.stream,
    "current_stream": streams.current_stream,
    "default_stream": streams.default_stream,
    "set_stream": streams.set_stream,
    "memory_allocated": memory.memory_allocated,
    "max_memory_allocated": memory.max_memory_allocated,
    "memory_reserved": memory.memory_allocated,
    "max_memory_reserved": memory.max_memory_allocated,
    "reset_peak_memory_stats": memory.reset_peak_memory_stats,
    "reset_max_memory_allocated": memory.reset_peak_memory_stats,
    "mem_get_info": memory.mem_get_info,
    "manual_seed": rng.manual_seed,
    "manual_seed_all": rng.manual_seed_all,
    "seed": rng.seed,
    "seed_all": rng.seed_all,
    "set_per_process_memory_fraction": memory.set_per_process_memory_fraction,
    "get_per_process_memory_fraction": memory.get_per_process_memory_fraction,
    "initial_seed": rng.initial_seed,
    "get_rng_state": rng.get_rng_state,
    "set_rng_state": rng.set_rng_state,
    "get_rng_state_all": rng.get_rng_state_all,
    "set_rng_state_all": rng.set_rng_state_all,
    "set_sync_debug_mode": devices.set_sync_debug_mode,
    "get_sync_debug_mode": devices.get_sync_debug_mode,
}
# stand-ins that need no state
_STATELESS = {
    "is_available": devices.is_available,
    "is_initialized": devices.is_available,
    "init": devices.noop,
    "_lazy_init": devices.noop,
    "empty_cache": memory.empty_cache,
    "ipc_collect": devices.noop,
    "get_arch_list": devices.get_arch_list,
    "is_bf16_supported": devices.is_bf16_supported,
    "is_current_stream_capturing": devices.is_current_stream_capturing,
    "Event": streams.Event,
}
_SYNC_DEBUG = ("set_sync_debug_mode", "get_sync_debug_mode")
# torch.accelerator (torch >= 2.6): name -> the torch.cuda-style name it is
_ACCELERATOR = {
    "is_available": "is_available",
    "device_count": "device_count",
    "current_device_index": "current_device",
    "current_device_idx": "current_device",
    "set_device_index": "set_device",
    "set_device_idx": "set_device",
    "synchronize": "synchronize",
    "current_stream": "current_stream",
    "set_stream": "set_stream",
    "empty_cache": "empty_cache",
    "memory_allocated": "memory_allocated",
    "max_memory_allocated": "max_memory_allocated",
    "memory_reserved": "memory_reserved",
    "max_memory_reserved": "max_memory_reserved",
    "reset_peak_memory_stats": "reset_peak_memory_stats",
    "get_memory_info": "mem_get_info",
}


def module_api(s: SimState) -> dict[str, Any]:
    """The torch.cuda-style API (``torch.cuda``, ``torch.xpu``): name -> stand-in."""
    api: dict[str, Any] = {name: bind(fn, s) for name, fn in _STATEFUL.items()}
    api.update(_STATELESS)
    device = bound_class(devices.Device, s, name="device")
    api["device"] = device
    api["device_of"] = bound_class(devices.DeviceOf, s, device, name="device_of")
    api["Stream"] = streams.stream_class(s)
    api["default_generators"] = tuple(s.generators)
    if s.spec.graphs:
        # classes in torch: libraries annotate with them (transformers: ``CUDAGraph | None``)
        api["CUDAGraph"] = seams.unsupported_class("CUDA graphs (torch.cuda.CUDAGraph)", "CUDAGraph")
        api["graph"] = seams.unsupported_class("CUDA graphs (torch.cuda.graph)", "graph")
        api["make_graphed_callables"] = seams.unsupported(
            "CUDA graphs (torch.cuda.make_graphed_callables)"
        )
    if not s.spec.sync_debug:
        for name in _SYNC_DEBUG:
            del api[name]
    return api


def _accelerator_patches(s: SimState, api: dict[str, Any]) -> Patches:
    accelerator = getattr(torch, "accelerator", None)  # torch >= 2.6
    if accelerator is None:
        return []
    acc = {name: api[of] for name, of in _ACCELERATOR.items()}
    acc["current_accelerator"] = bind(devices.current_accelerator, s)
    acc["device_index"] = bound_class(devices.DeviceIndex, s, device_class=api["device"],
                                      name="device_index")
    acc["get_device_capability"] = devices.accelerator_capability
    out: Patches = [(accelerator, name, fn) for name, fn in acc.items() if hasattr(accelerator, name)]
    if hasattr(torch._C, "_get_accelerator"):
        # what torch's own code asks (FSDP2's default mesh, DeviceMesh, DTensor)
        out.append((torch._C, "_get_accelerator", acc["current_accelerator"]))
    return out


def _autocast_patches(s: SimState) -> Patches:
    ac = autocast.autocast_class(s)
    return [
        (torch, "autocast", ac),
        (torch.amp, "autocast", ac),
        (torch, "is_autocast_enabled", bind(autocast.is_autocast_enabled, s, torch.is_autocast_enabled)),
        (torch, "get_autocast_dtype", bind(autocast.get_autocast_dtype, s, torch.get_autocast_dtype)),
    ]


def _seam_patches(s: SimState) -> Patches:
    """``torch.device(0)``, ``_parse_to``, storages, cuDNN, grouping, TorchScript calls."""
    import torch.backends.cudnn as cudnn

    real_storage_device = torch._C.StorageBase.device  # type: ignore[attr-defined]
    return [
        (torch._C, "_group_tensors_by_device_and_dtype",
         bind(seams.group_tensors_by_device_and_dtype, torch._C._group_tensors_by_device_and_dtype)),
        (torch._C.ScriptFunction, "__call__", seams.script_function_call),
        (torch._C.ScriptMethod, "__call__", seams.script_method_call),
        (torch, "device", seams.device_class(s.kind)),
        (torch._C._nn, "_parse_to", bind(seams.parse_to, torch._C._nn._parse_to, s.kind)),
        (torch.UntypedStorage, "device",
         property(bind(seams.storage_device, real_storage_device.__get__))),
        (cudnn, "is_acceptable", bind(seams.cudnn_is_acceptable, cudnn.is_acceptable)),
    ]


def _output_patches(s: SimState) -> Patches:
    """No output a GPU would not print: warnings shown at the user's line, not ours, and
    the profiler not asked for CUDA activity it cannot record."""
    import warnings

    out: Patches = [(warnings, "showwarning", bind(seams.showwarning, warnings.showwarning))]
    if s.spec.sync_debug:  # CUDA activity: only the cuda kind has a profiler for it
        import torch.profiler as tprof
        import torch.profiler.profiler as tprof_mod

        profile = seams.profile_class()
        out += [(tprof, "profile", profile), (tprof_mod, "profile", profile)]
    return out


def patches(s: SimState) -> Patches:
    """Every stand-in of a simulation with state ``s``, where it goes."""
    spec = s.spec
    s.generators = rng.new_generators(s)
    api = module_api(s)
    out: Patches = [(torch, "Generator", rng.Generator)]
    out += _autocast_patches(s)
    if spec.own_api is not None:  # the kind's own API (sim/kinds/<name>.py)
        out += spec.own_api(s)
    out += legacy.patches(s)
    out += _output_patches(s)
    if spec.data_parallel:
        from torchferry.sim import parallel

        out += parallel.patches(s)
    out += _seam_patches(s)
    mod = getattr(torch, spec.api_module, None) if spec.api_module is not None else None
    if mod is not None:
        out += [(mod, name, fn) for name, fn in api.items()]
        backend_mod = getattr(torch.backends, spec.api_module or "", None)
        if backend_mod is not None and hasattr(backend_mod, "is_built"):
            out.append((backend_mod, "is_built", devices.is_available))
    out += _accelerator_patches(s, api)
    return out
