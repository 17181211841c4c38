"""``nn.DataParallel`` and ``torch.cuda.comm`` over simulated devices.

The real modules run unchanged: ``nn.DataParallel`` (its device checks, ``replicate``,
``scatter``/``gather`` autograd functions, ``parallel_apply``) is PyTorch's own Python
code.  What a CPU-only build lacks is the native layer under it, replaced here:

* ``torch._C._scatter`` / ``_gather`` / ``_broadcast`` / ``_broadcast_coalesced``
  (torch/csrc/cuda/comm.cpp): the same chunking, the same "same device returns the
  input itself" rule, copies tagged with their destination device;
* ``comm.reduce_add`` (Python in torch, but it asserts on ``.device`` and runs in the
  backward pass, where the simulation's function mode is not active): the same sum,
  root operand first, tagged with the destination;
* ``parallel_apply``'s worker threads: the simulation belongs to one thread, so the
  replicas run one after the other in the calling thread (same results; a GPU would
  overlap them);
* the background copy streams of ``Scatter`` come from the simulated ``Stream``.

Numbers are the CPU's; each replica computes its chunk exactly as a single device
would, and gradients are summed across replicas as on GPUs.
"""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable, Sequence
from typing import Any

import torch

from torchferry.sim import modes as _modes
from torchferry.sim import tags as _tags

__all__ = ["patches"]


def _index(t: torch.Tensor) -> int:
    d = _modes.dev_of(t)
    return -1 if d is None else (d.index if d.index is not None else 0)


def patches(s: Any) -> list[tuple[Any, str, Any]]:
    """(module, attribute, replacement) triples for the session to swap in."""
    import torch.nn.parallel._functions as functions
    import torch.nn.parallel.comm as comm
    import torch.nn.parallel.parallel_apply  # noqa: F401

    # the package's __init__ binds the name parallel_apply to the function: take the module
    papply = sys.modules["torch.nn.parallel.parallel_apply"]

    kind = s.kind

    def dev(idx: int) -> torch.device:
        if not 0 <= idx < s.count:
            raise s.ordinal_error()
        return s.devices[idx]

    def copy_to(t: torch.Tensor, idx: int, op: str) -> torch.Tensor:
        """``t`` on device ``idx`` (-1: the CPU): ``t`` itself when already there."""
        src = _index(t)
        if src == idx:
            return t
        with torch._C.DisableTorchFunction():
            out = t.clone()
        _modes.transfer(
            op,
            _modes._CPU if src < 0 else dev(src),
            _modes._CPU if idx < 0 else dev(idx),
            t.nelement() * t.element_size(),
            False,
        )
        _tags.retag(out, None if idx < 0 else dev(idx))
        return out

    def _scatter(
        tensor: torch.Tensor,
        devices: Sequence[int],
        chunk_sizes: Sequence[int] | None = None,
        dim: int = 0,
        streams: Any = None,
    ) -> list[torch.Tensor]:
        with torch._C.DisableTorchFunction():
            if chunk_sizes:
                chunks = list(tensor.split_with_sizes(list(chunk_sizes), dim))
            else:
                chunks = list(tensor.chunk(len(devices), dim))
        return [copy_to(c, int(devices[i]), "scatter") for i, c in enumerate(chunks)]

    def _gather(
        tensors: Sequence[torch.Tensor], dim: int = 0, destination: int | None = None
    ) -> torch.Tensor:
        if not tensors:
            raise RuntimeError("Expected at least one tensor to gather from")
        idx = s.current if destination is None else int(destination)
        if idx >= 0:
            dev(idx)
        with torch._C.DisableTorchFunction():
            out = torch.cat(list(tensors), dim)
        for t in tensors:
            if _index(t) != idx:
                _modes.transfer(
                    "gather",
                    _modes._CPU if _index(t) < 0 else dev(_index(t)),
                    _modes._CPU if idx < 0 else dev(idx),
                    t.nelement() * t.element_size(),
                    False,
                )
        _tags.retag(out, None if idx < 0 else dev(idx))
        return out

    def _broadcast(tensor: torch.Tensor, devices: Sequence[int]) -> list[torch.Tensor]:
        return [copy_to(tensor, int(d), "broadcast") for d in devices]

    def _broadcast_coalesced(
        tensors: Sequence[torch.Tensor], devices: Sequence[int], buffer_size: int = 10485760
    ) -> list[list[torch.Tensor]]:
        if not devices:
            raise RuntimeError("Expected at least one device to broadcast to")
        first = int(devices[0])
        for t in tensors:
            if _index(t) != first:
                raise RuntimeError(f"All tensors must be on devices[0]: {first}")
        outs = [list(tensors)]
        with torch.no_grad():
            for d in devices[1:]:
                outs.append([copy_to(t, int(d), "broadcast") for t in tensors])
        return outs

    def reduce_add(inputs: Sequence[torch.Tensor], destination: Any = None) -> torch.Tensor:
        from torch._utils import _get_device_index

        dest = _get_device_index(destination, optional=True)
        input_size = inputs[0].size()
        root = 0
        for i, inp in enumerate(inputs):
            if _index(inp) == dest:
                root = i
            if inp.size() != input_size:
                got = "x".join(str(x) for x in inp.size())
                expected = "x".join(str(x) for x in input_size)
                raise ValueError(f"input {i} has invalid size: got {got}, but expected {expected}")
        with torch._C.DisableTorchFunction():
            result = inputs[root].clone()
            for i, other in enumerate(inputs):
                if i != root:
                    result.add_(other)
        _tags.retag(result, dev(dest))
        return result

    stream_cache: dict[int, Any] = {}

    def _get_stream(device: torch.device) -> Any:
        if device.type == "cpu":
            return None
        idx = device.index if device.index is not None else s.current
        if idx not in stream_cache:
            stream_cache[idx] = getattr(torch, kind).Stream(idx)
        return stream_cache[idx]

    thread_shim = types.SimpleNamespace(Thread=_InlineThread, Lock=threading.Lock)

    out: list[tuple[Any, str, Any]] = [
        (torch._C, "_scatter", _scatter),
        (torch._C, "_gather", _gather),
        (torch._C, "_broadcast", _broadcast),
        (torch._C, "_broadcast_coalesced", _broadcast_coalesced),
        (comm, "reduce_add", reduce_add),
        (functions, "_get_stream", _get_stream),
        (papply, "threading", thread_shim),
    ]
    return out


class _InlineThread:
    """``threading.Thread`` for ``parallel_apply``: runs the worker in the calling thread
    (the one the simulation belongs to), one replica after the other."""

    def __init__(self, target: Callable[..., Any], args: tuple = (), **kwargs: Any) -> None:
        self._target = target
        self._args = args

    def start(self) -> None:
        self._target(*self._args)

    def join(self, timeout: float | None = None) -> None:
        return None
