"""Module moved inside a loop.

## What it does
Flags `model.to(...)` and `model.cuda()` on a module inside a `for` or `while` loop, when
the module was created (or received) outside the loop. Loops over several models
(`for m in models: m.to(device)`) are fine, and so is a move under a guard on the loop
counter or an interval (`if epoch == 0:`, `if step % 100 == 0:`).

## Why is this bad
"Moving inside the hot loop unnecessarily. Shipping the model every batch ... drowns the
GPU's speed in ferry rides. Move the model once." After the first iteration the call is a
no-op at best; if the loop alternates devices it copies every parameter each time.

## Example
```python
for inputs, labels in loader:
    model.to(device)
    loss = criterion(model(inputs.to(device)), labels.to(device))
```

## Use instead
```python
model.to(device)
for inputs, labels in loader:
    loss = criterion(model(inputs.to(device)), labels.to(device))
```

## Fix safety
No fix: where the move belongs (before the loop, before the optimizer is built) needs a
human.

## Known limits
Only receivers known to be modules are checked: instances of the file's `nn.Module`
subclasses and of `torch.nn` layers, torchvision/timm/transformers models, `self.<attr>`
assigned such in `__init__`, and names such as `model` or `net` whose origin is unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchferry.check.analysis import MODULE, Model, pos, short
from torchferry.check.api import Context, Finding

CODE = "FRY008"
NAME = "move-in-loop"
# the fix in one line: also what `ferry run --trips` says for a module moved on every step
HINT = "move the model once, before the loop"
FIX = "none"


def check(ctx: Context) -> Iterable[Finding]:
    m: Model = ctx.model
    for meth in ("to", "cuda"):
        for site in m.calls_by_tail.get(meth, ()):
            if not site.ctx.loops:
                continue
            func = site.node.func
            if not isinstance(func, ast.Attribute):
                continue
            recv = func.value
            f = m.fact(recv, site.ctx)
            if f is None or f.kind != MODULE:
                continue
            loop = site.ctx.loops[-1]
            if m.guarded(site.ctx, loop):
                continue  # ``if epoch == 0:`` / ``if step % 100 == 0:``: not every iteration
            if isinstance(recv, ast.Name):
                b = m.binding(recv.id, site.ctx.scope, pos(recv))
                if b is not None and b.pos >= pos(loop) and b.how != "param":
                    continue  # bound inside the loop: a different module each time
            elif not (isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name)
                      and recv.value.id == site.ctx.scope.self_name):
                continue
            yield ctx.finding(
                CODE, site.node,
                f"`{short(m.text(site.node))}` moves the module on every iteration of the loop; "
                + HINT,
            )
