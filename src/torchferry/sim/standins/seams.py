"""Torch internals that must see simulated devices, and output a GPU would not print.

An int means the accelerator (``torch.device(0)``, ``x.to(0)``, ``model.to(rank)``),
storages report their simulated device, cuDNN is never asked about simulated tensors,
torch's grouping of tensors by device keys by the simulated one, TorchScript calls tag
their results, warnings raised inside the simulation's frames are shown at the user's
line, the profiler is not asked for CUDA activity, and what cannot run is refused naming it.
Each function that wraps a torch original takes it as an argument (``bind`` gives it).
"""

from __future__ import annotations

import itertools
import os
import sys
from typing import Any, ClassVar

import torch

from torchferry.errors import UnsupportedFeatureError
from torchferry.sim import tags as _tags

_REAL_DEVICE = torch.device
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_SIM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def unsupported(feature: str) -> Any:
    """A function that refuses ``feature`` with :class:`UnsupportedFeatureError`."""

    def raiser(*args: Any, **kwargs: Any) -> Any:
        raise UnsupportedFeatureError(
            f"{feature} cannot run in the simulated GPU (torchferry.simulate computes on the "
            "CPU); test this part on real hardware"
        )

    return raiser


def unsupported_class(feature: str, name: str) -> type:
    """A class standing in for a torch class the simulation cannot run: usable in annotations
    (``torch.cuda.CUDAGraph | None``), ``isinstance`` checks and subclassing, as on a GPU;
    making one raises :class:`UnsupportedFeatureError` naming ``feature``."""
    refuse = unsupported(feature)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        refuse()

    return type(name, (), {"__init__": __init__, "__module__": "torch.cuda"})


class DeviceMeta(type):
    """``torch.device`` in the simulation: ``torch.device(0)`` is the accelerator's device 0
    (on a GPU build: ``cuda:0``); anything else, and ``isinstance``, is torch's."""

    _kind: str

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _REAL_DEVICE)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, _REAL_DEVICE)

    # equal to the real class: torch.fx names it `device` in generated code only when
    # `obj != torch.device` is False (torch/fx/graph.py add_global)
    def __eq__(cls, other: object) -> bool:
        return other is cls or other is _REAL_DEVICE

    __hash__ = type.__hash__

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and type(args[0]) is int:
            return _REAL_DEVICE(cls._kind, args[0])
        return _REAL_DEVICE(*args, **kwargs)


class Device(metaclass=DeviceMeta):
    """The simulation's subclass sets ``_kind``."""

    _kind: ClassVar[str]


def device_class(kind: str) -> type:
    """The ``torch.device`` stand-in of a simulation of ``kind``."""
    cls = DeviceMeta("device", (Device,), {"_kind": kind, "__module__": "torch",
                                           "__doc__": _REAL_DEVICE.__doc__})
    cls.__qualname__ = "device"
    return cls


def parse_to(orig: Any, kind: str, *args: Any, **kwargs: Any) -> Any:
    """``torch._C._nn._parse_to`` (what ``Module.to`` parses its arguments with): an int
    device is the accelerator's."""
    if args and type(args[0]) is int:
        args = (_REAL_DEVICE(kind, args[0]), *args[1:])
    if type(kwargs.get("device")) is int:
        kwargs = {**kwargs, "device": _REAL_DEVICE(kind, kwargs["device"])}
    # Without torch functions: the simulation's mode would see ``device=`` and treat the
    # parser as a factory (``Module.to(device="cuda")`` then parsed to the CPU).
    with torch._C.DisableTorchFunction():
        return orig(*args, **kwargs)


def storage_device(real_get: Any, storage: Any) -> torch.device:
    """``UntypedStorage.device``: the simulated device, except to torch's own storage code
    (clone, copies, pickling), which builds new storages on ``self.device`` and must keep
    seeing the real one."""
    if not sys._getframe(1).f_code.co_filename.startswith(_TORCH_DIR):
        d = _tags.storage_device(storage)
        if d is not None:
            return d
    return real_get(storage)


def cudnn_is_acceptable(orig: Any, tensor: torch.Tensor) -> bool:
    # A simulated tensor is computed by CPU kernels, never by cuDNN: RNN modules then skip
    # flattening their weights for cuDNN (no warning on a CPU wheel, and no call into
    # aten::_cudnn_rnn_flatten_weight on a CUDA wheel).  The numbers do not change.
    if _tags.sim_device(tensor) is not None:
        return False
    return bool(orig(tensor))


def group_tensors_by_device_and_dtype(orig: Any, tensorlistlist: Any, with_indices: bool = False) -> Any:
    """torch's C++ grouping keys by the real (CPU) device; fused optimizers, GradScaler
    and clip_grad_norm_ would then move found_inf / norms to "cpu".  Key by the simulated one."""
    dev_of = _tags.sim_device
    first = tensorlistlist[0] if tensorlistlist else []
    if not any(t is not None and dev_of(t) is not None for t in first):
        return orig(tensorlistlist, with_indices)
    res: dict[Any, Any] = {}
    for (dev, dtype), (lists, idxs) in orig(tensorlistlist, True).items():
        for j, i in enumerate(idxs):
            t = lists[0][j]
            d = dev_of(t) if t is not None else None
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


_SCRIPT_FN_CALL = torch._C.ScriptFunction.__call__
_SCRIPT_METHOD_CALL = torch._C.ScriptMethod.__call__


def script_function_call(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``ScriptFunction.__call__``: results tagged (``modes.script_call``)."""
    from torchferry.sim import modes

    return modes.script_call(_SCRIPT_FN_CALL, self, args, kwargs)


def script_method_call(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``ScriptMethod.__call__``: results tagged (``modes.script_call``)."""
    from torchferry.sim import modes

    return modes.script_call(_SCRIPT_METHOD_CALL, self, args, kwargs)


def showwarning(
    orig: Any, message: Any, category: Any, filename: str, lineno: int, file: Any = None,
    line: Any = None,
) -> None:
    """A warning raised in torch (Python or C++) during a call the simulation's function
    mode made is attributed to the mode's frame: show it at the user's line instead, as it
    is shown without the simulation."""
    from torchferry._internal.frames import user_frame

    if os.path.abspath(filename).startswith(_SIM_DIR):
        f = user_frame(1)
        if f is not None:
            filename, lineno, line = f.f_code.co_filename, f.f_lineno, None
    orig(message, category, filename, lineno, file, line)


def profile_class() -> type:
    """``torch.profiler.profile`` with CUDA activity dropped (no CUDA kernel runs; asking
    for it makes the CPU build print a C++ warning on every op)."""
    import torch.profiler.profiler as tprof_mod

    base = tprof_mod.profile
    cuda_activity = torch.profiler.ProfilerActivity.CUDA

    class profile(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, activities: Any = None, **kwargs: Any) -> None:
            if activities is not None:
                activities = [a for a in activities if a != cuda_activity] or [
                    torch.profiler.ProfilerActivity.CPU
                ]
            super().__init__(*args, activities=activities, **kwargs)

    profile.__doc__ = profile_class.__doc__
    profile.__module__ = base.__module__
    return profile


class NvtxStub:
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

