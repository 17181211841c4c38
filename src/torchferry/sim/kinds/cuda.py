"""The ``cuda`` kind: an NVIDIA GPU, with ``torch.cuda``'s API, CUDA graphs (refused),
``set_sync_debug_mode``, NCCL and ``nn.DataParallel``."""

from __future__ import annotations

from typing import Any

from torchferry.sim.kinds import DeviceKind

# torch's text for a device index past the count (c10/cuda/CUDAException)
_ORDINAL = (
    "CUDA error: invalid device ordinal\n"
    "GPU device may be out of range, do you have enough GPUs?\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
)


def _ordinal_error(count: int) -> Exception:
    import torch

    # torch.AcceleratorError is the class torch >= 2.8 raises for it
    return getattr(torch, "AcceleratorError", RuntimeError)(_ORDINAL)


def _present() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def _own_api(state: Any) -> list[tuple[Any, str, Any]]:
    """torch.cuda's own submodules: ``torch.cuda.amp.autocast``, ``memory_stats``, nvtx."""
    import torch
    import torch.cuda.memory as cuda_memory
    import torch.cuda.nvtx as nvtx

    from torchferry.sim.standins import autocast, bind, bound_class, memory, seams

    amp = bound_class(autocast.CudaAmpAutocast, state, autocast.autocast_class(state))
    return [
        (torch.cuda.amp, "autocast", amp),
        (torch.cuda.amp.autocast_mode, "autocast", amp),
        (cuda_memory, "memory_stats_as_nested_dict", bind(memory.memory_stats_as_nested_dict, state)),
        (nvtx, "_nvtx", seams.NvtxStub()),
    ]


KIND = DeviceKind(
    name="cuda",
    backend="CUDA",
    api_module="cuda",
    max_count=None,
    refuses_float64=False,
    autocast_dtype="float16",
    sync_debug=True,
    graphs=True,
    distributed=True,
    data_parallel=True,
    ordinal_error=_ordinal_error,
    present=_present,
    availability="torch.cuda.is_available()",
    type_names=True,
    own_api=_own_api,
)
