"""Each simulated device kind, described once.

Everything that differs between simulating ``cuda``, ``mps`` and ``xpu`` lives in one
:class:`DeviceKind` here, and the session, the torch.cuda-style stand-ins
(``cuda_api``), the function mode (``modes``), the per-operator checker
(``aten_check``), the pytest plugin and the launcher read it instead of comparing kind
names.  Adding a kind is adding an entry to :data:`KINDS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torchferry._internal.vocabulary import SIMULATED_KINDS
from torchferry.errors import UsageError

__all__ = ["DeviceKind", "KINDS", "NAMES", "spec"]

_ORDINAL_CUDA = (
    "CUDA error: invalid device ordinal\n"
    "GPU device may be out of range, do you have enough GPUs?\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
)


def _cuda_ordinal_error(count: int) -> Exception:
    import torch

    # torch.AcceleratorError is the class torch >= 2.8 raises for it
    return getattr(torch, "AcceleratorError", RuntimeError)(_ORDINAL_CUDA)


def _own_ordinal_error(name: str) -> Callable[[int], Exception]:
    def make(count: int) -> Exception:
        # torchferry's own text: real mps/xpu ordinal errors were not checked on hardware
        return RuntimeError(
            f"{name.upper()} error: invalid device ordinal (torchferry simulates "
            f"{count} {name} device{'s' if count > 1 else ''})"
        )

    return make


def _cuda_present() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def _mps_present() -> bool:
    import torch

    return bool(torch.backends.mps.is_available())


def _xpu_present() -> bool:
    import torch

    xpu = getattr(torch, "xpu", None)
    return bool(xpu is not None and xpu.is_available())


@dataclass(frozen=True)
class DeviceKind:
    """What simulating one kind of accelerator means.

    * ``name``: the device type (``torch.device(name)``); ``backend``: its dispatch key
      name, as in generated wrapper names (``wrapper_CUDA_addmm``).
    * ``api_module``: the ``torch.<module>`` that gets the torch.cuda-style stand-ins
      (``None``: the kind's own small API, ``mps_api``, goes to ``torch.mps``).
    * ``max_count``: how many devices a machine can have (``None``: no limit), and the
      message for asking more.
    * ``refuses_float64``: float64 tensors cannot live there (MPS).
    * ``autocast_dtype``: ``torch.autocast(name)``'s default lower-precision dtype name.
    * ``sync_debug``: ``set_sync_debug_mode`` exists and flags host syncs (CUDA).
    * ``graphs``: ``torch.<module>`` has CUDA-graph APIs to refuse (CUDA).
    * ``distributed``: ``init_process_group("nccl")`` and FSDP are simulated/refused.
    * ``data_parallel``: ``nn.DataParallel`` / ``torch.cuda.comm`` run over its devices.
    * ``ordinal_error(count)``: the exception a device index past ``count`` raises.
    * ``present()``: is a real device of this kind here (the simulation then refuses)?
    * ``type_names``: ``Tensor.type("torch.<name>.FloatTensor")`` names this device type
      (``options_from_string`` in torch/csrc/utils/tensor_types.cpp knows the
      ``torch.cuda.`` and ``torch.xpu.`` prefixes; other names are looked up as CPU types).
    """

    name: str
    backend: str
    api_module: str | None
    max_count: int | None
    refuses_float64: bool
    autocast_dtype: str
    sync_debug: bool
    graphs: bool
    distributed: bool
    data_parallel: bool
    ordinal_error: Callable[[int], Exception]
    present: Callable[[], bool]
    type_names: bool

    def check_count(self, count: int) -> None:
        if self.max_count is not None and count > self.max_count:
            raise UsageError(
                f"simulate: a Mac has one MPS device; count must be 1 for {self.name!r}"
                if self.name == "mps"
                else f"simulate: at most {self.max_count} {self.name} devices, not {count}"
            )

    def autocast_torch_dtype(self) -> Any:
        import torch

        return getattr(torch, self.autocast_dtype)


KINDS: dict[str, DeviceKind] = {
    "cuda": DeviceKind(
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
        ordinal_error=_cuda_ordinal_error,
        present=_cuda_present,
        type_names=True,
    ),
    "mps": DeviceKind(
        name="mps",
        backend="MPS",
        api_module=None,
        max_count=1,
        refuses_float64=True,
        autocast_dtype="float16",
        sync_debug=False,
        graphs=False,
        distributed=False,
        data_parallel=False,
        ordinal_error=_own_ordinal_error("mps"),
        present=_mps_present,
        type_names=False,
    ),
    "xpu": DeviceKind(
        name="xpu",
        backend="XPU",
        api_module="xpu",
        max_count=None,
        refuses_float64=False,
        autocast_dtype="bfloat16",
        sync_debug=False,
        graphs=False,
        distributed=False,
        data_parallel=True,
        ordinal_error=_own_ordinal_error("xpu"),
        present=_xpu_present,
        type_names=True,
    ),
}

# The names come from the vocabulary (the CLI's --simulate choices use the same tuple);
# a spec for each name, and none for another.
NAMES: tuple[str, ...] = SIMULATED_KINDS
if set(KINDS) != set(NAMES):  # pragma: no cover - a programming error, caught on import
    raise AssertionError(f"sim/kinds.py: specs {sorted(KINDS)} != vocabulary {sorted(NAMES)}")


def spec(name: str) -> DeviceKind:
    """The :class:`DeviceKind` called ``name`` (KeyError for an unknown kind).

    >>> spec("mps").refuses_float64, spec("cuda").backend
    (True, 'CUDA')
    """
    return KINDS[name]


def backend_of(device_type: str) -> str:
    """The dispatch-key name of a device type (``"cuda"`` -> ``"CUDA"``)."""
    k = KINDS.get(device_type)
    return k.backend if k is not None else device_type.upper()
