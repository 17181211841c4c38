"""`torch.load` without `map_location`.

## What it does
Flags `torch.load(...)` calls that pass no `map_location` (neither as keyword nor as the
second positional argument).

## Why is this bad
"`torch.load(path)` tries to restore tensors to their original device and fails on
machines without one." A checkpoint saved on a GPU box cannot be loaded on a CPU-only
machine (or a Mac) without `map_location`: torch raises "Attempting to deserialize object
on a CUDA device but torch.cuda.is_available() is False".

## Example
```python
state = torch.load("checkpoint.pt")
model.load_state_dict(state)
```

## Use instead
```python
state = torch.load("checkpoint.pt", map_location="cpu")
model.load_state_dict(state)
model.to(device)
```

## Fix safety
Safe: `map_location="cpu"` loads every tensor to host memory, which works on every machine;
`load_state_dict` then copies the values into the parameters wherever the model lives.
Code that relied on the loaded tensors being on the GPU needs a `.to(device)` afterwards.

## Known limits
Calls that pass `**kwargs` are not flagged (the keyword may be inside). Wrappers around
`torch.load` are not followed.
"""

from __future__ import annotations

from collections.abc import Iterable

from torchferry.check.analysis import Model, has_star_kwargs, kwarg
from torchferry.check.api import Context, Finding, Fix

CODE = "FRY004"
NAME = "load-without-map-location"
FIX = "safe"


def check(ctx: Context) -> Iterable[Finding]:
    m: Model = ctx.model
    for site in m.calls_by_tail.get("load", ()):
        call = site.node
        if m.qualname(call.func) != "torch.load" or has_star_kwargs(call):
            continue
        if len(call.args) >= 2 or kwarg(call, "map_location") is not None:
            continue
        edit = ctx.add_keyword(call, 'map_location="cpu"')
        fix = Fix((edit,), True, 'Add `map_location="cpu"`') if edit is not None else None
        yield ctx.finding(
            CODE, call,
            "`torch.load` without `map_location` restores tensors to the device they were saved "
            "from and fails on machines without it; pass `map_location=\"cpu\"` (then move to "
            "`device`)",
            fix,
        )
