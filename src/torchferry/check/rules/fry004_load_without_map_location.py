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
Safe only where the loaded object goes straight into `load_state_dict(...)` (the fix adds
`map_location="cpu"`) -- as its argument, or through a name used for nothing else:
`load_state_dict` copies the values into the parameters wherever the model lives, so the
result is exactly the same. Anywhere else it is unsafe: a whole pickled model, cached
embeddings or a tensor used directly would come back on the CPU, and the next GPU
operation would fail ("Expected all tensors to be on the same device").

## Known limits
Calls that pass `**kwargs` are not flagged (the keyword may be inside). Wrappers around
`torch.load` are not followed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchferry.check.analysis import Model, Site, has_star_kwargs, kwarg
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
        fix = None
        if edit is not None:
            fix = Fix((edit,), _feeds_load_state_dict(m, site), 'Add `map_location="cpu"`')
        yield ctx.finding(
            CODE, call,
            "`torch.load` without `map_location` restores tensors to the device they were saved "
            "from and fails on machines without it; pass `map_location=\"cpu\"` (then move to "
            "`device`)",
            fix,
        )


def _is_lsd_arg(m: Model, node: ast.AST, stmt: ast.AST) -> bool:
    parent = m.parents(stmt).get(id(node))
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and \
        parent.func.attr == "load_state_dict" and bool(parent.args) and parent.args[0] is node


def _feeds_load_state_dict(m: Model, site: Site[ast.Call]) -> bool:
    """Does the loaded object go straight into ``load_state_dict`` (and nowhere else)?"""
    call, stmt = site.node, site.stmt
    if _is_lsd_arg(m, call, stmt):
        return True
    if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)):
        return False
    name = stmt.targets[0].id
    scope = site.ctx.scope
    if name not in scope.binds or len(scope.binds[name]) != 1:
        return False  # rebound somewhere: its other values are not followed
    uses = 0
    for site2 in m.calls_by_tail.get("load_state_dict", ()):
        if site2.ctx.scope is scope and site2.node.args and isinstance(site2.node.args[0], ast.Name) \
                and site2.node.args[0].id == name:
            uses += 1
    if uses == 0:
        return False
    loads = sum(1 for n in ast.walk(scope.node) if isinstance(n, ast.Name) and n.id == name
                and isinstance(n.ctx, ast.Load))
    return loads == uses
