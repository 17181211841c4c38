"""The ``xpu`` kind: an Intel GPU, with ``torch.xpu``'s torch.cuda-style API."""

from __future__ import annotations

from torchferry.sim.kinds import DeviceKind, own_ordinal_error


def _present() -> bool:
    import torch

    xpu = getattr(torch, "xpu", None)
    return bool(xpu is not None and xpu.is_available())


KIND = DeviceKind(
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
    ordinal_error=own_ordinal_error("xpu"),  # the real text was not checked on hardware
    present=_present,
    availability="torch.xpu.is_available()",
    type_names=True,
)
