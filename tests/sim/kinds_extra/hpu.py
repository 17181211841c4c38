"""A device kind written as a file of ``torchferry/sim/kinds/`` would be: ``hpu`` (Intel
Gaudi), which this torch build knows as a device type but has no ``torch.hpu`` module for."""

from __future__ import annotations

from torchferry.sim.kinds import DeviceKind, own_ordinal_error

KIND = DeviceKind(
    name="hpu",
    backend="HPU",
    api_module=None,
    max_count=8,
    refuses_float64=False,
    autocast_dtype="bfloat16",
    sync_debug=False,
    graphs=False,
    distributed=False,
    data_parallel=False,
    ordinal_error=own_ordinal_error("hpu"),
    present=lambda: False,
    availability="torch.hpu.is_available()",
    type_names=False,
)
