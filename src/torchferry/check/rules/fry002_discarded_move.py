"""Discarded tensor move.

## What it does
Flags a tensor's `.to(...)`, `.cuda()`, `.cpu()`, `.float()`, `.half()`, `.double()`,
`.bfloat16()` or `.type(...)` written as a bare statement, so that its result is thrown away.
The receiver must be known to be a tensor: something created by a tensor factory, returned
by a model or a torch function, an item of a DataLoader batch, a parameter annotated
`Tensor`, a `forward` input, or a name that is later passed as is to a model or loss
(`inputs.to(device)` ... `model(inputs)`). Modules (`model.to(device)` is in place) and objects whose
`.to` works in place (a tokenizer's `BatchEncoding`, a PyG `Data`) are not flagged.

## Why is this bad
"`.to()` returns a new tensor on the target device; it does not move the original.
`x.to(device)` alone, without the `=`, is the most common single-line GPU bug in existence:
it computes a copy and throws it away." The tensor stays where it was and the next
operation fails with "Expected all tensors to be on the same device" -- or, for a dtype
cast, silently keeps the old dtype.

## Example
```python
for inputs, labels in loader:
    inputs.to(device)
    labels.to(device)
    loss = criterion(model(inputs), labels)
```

## Use instead
```python
for inputs, labels in loader:
    inputs = inputs.to(device)
    labels = labels.to(device)
    loss = criterion(model(inputs), labels)
```

## Fix safety
Safe when the receiver is a plain name: the fix assigns the result back
(`x = x.to(device)`), which is what the statement was meant to do. Attribute and subscript
receivers (`batch["x"].to(device)`) are reported without a fix.

## Known limits
A receiver whose origin the analysis cannot see (a function parameter without a `Tensor`
annotation, an attribute of an unknown object) is not flagged.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchferry.check.analysis import (
    MODEL_NAME,
    MODULE,
    MOVE_METHODS,
    Model,
    Site,
    end_pos,
    short,
)
from torchferry.check.api import Context, Finding, Fix

CODE = "FRY002"
NAME = "discarded-move"
FIX = "safe"


def check(ctx: Context) -> Iterable[Finding]:
    m: Model = ctx.model
    for site in m.expr_stmts:
        call = site.node
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in MOVE_METHODS:
            continue
        if func.attr == "type" and not call.args and not call.keywords:
            continue  # ``x.type()`` returns the type name: pointless, but not a move
        f = m.fact(func.value, site.ctx)
        if f is None:
            if not _fed_to_a_model(m, site, func.value):
                continue
        elif not f.sure_tensor:
            continue
        text = short(m.text(call))
        recv = func.value
        fix = None
        if isinstance(recv, ast.Name):
            fix = Fix((ctx.insert_before(site.stmt, f"{recv.id} = "),), True,
                      f"Assign the result: `{recv.id} = {text}`")
            hint = f"assign it: `{recv.id} = {text}`"
        else:
            hint = f"assign it: `{short(m.text(recv))} = {text}`"
        what = "copied, not moved" if func.attr in ("to", "cuda", "cpu") else "converted into a new tensor"
        yield ctx.finding(
            CODE, call,
            f"`{text}` result is discarded: tensors are {what}; {hint}",
            fix,
        )


def _fed_to_a_model(m: Model, site: Site, recv: ast.expr) -> bool:
    """An unknown name that is later passed, as is, to a model or loss call in the same
    function is data, not a module (``inputs.to(device)`` ... ``model(inputs)``)."""
    if not isinstance(recv, ast.Name) or MODEL_NAME.match(recv.id) or m.graph_lib():
        return False
    b = m.binding(recv.id, site.ctx.scope, site.pos)
    for s in site.ctx.scope.calls_between(end_pos(site.stmt), 1 << 62):
        if not any(isinstance(a, ast.Name) and a.id == recv.id for a in s.node.args):
            continue
        if m.binding(recv.id, s.ctx.scope, s.pos) is not b:
            return False  # rebound in between: a different value
        f = m.fact(s.node.func, s.ctx)
        if f is not None and f.kind == MODULE:
            return True
    return False
