"""Module moved inside a loop.

## What it does
Flags `model.to(...)` and `model.cuda()` on a module inside a `for` or `while` loop, when
the module was created (or received) outside the loop. Loops over several models
(`for m in models: m.to(device)`) are fine, and so is a move under a guard on the loop
counter or an interval (`if epoch == 0:`, `if step % 100 == 0:`), a loop over devices that
moves the model to each one on purpose (`for device in ["cpu", "cuda"]: model.to(device)`),
a move followed by `break`, `return` or `raise` in the same iteration (it runs once), and
a move in an `except` handler (a fallback that runs only for the iterations that failed).

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

from torchferry.check.api import Context, Finding
from torchferry.check.flow.queries import is_module
from torchferry.check.names import end_pos, pos, short
from torchferry.check.scopes import How
from torchferry.check.training_loops import guarded

CODE = "FRY008"
NAME = "move-in-loop"
# the fix in one line: also what `ferry run --trips` says for a module moved on every step
HINT = "move the model once, before the loop"
FIX = "none"


def check(ctx: Context) -> Iterable[Finding]:
    m = ctx.syntax
    for meth in ("to", "cuda"):
        for site in m.calls_by_tail.get(meth, ()):
            if not site.ctx.loops:
                continue
            func = site.node.func
            if not isinstance(func, ast.Attribute):
                continue
            recv = func.value
            if not is_module(ctx.flow, recv):
                continue
            loop = site.ctx.loops[-1]
            if guarded(site.ctx, loop):
                continue  # ``if epoch == 0:`` / ``if step % 100 == 0:``: not every iteration
            if _moves_to_loop_target(site.node, loop):
                continue  # ``for device in ["cpu", "cuda"]: model.to(device)``: on purpose
            if _leaves_loop_after(loop.body, site.stmt):
                continue  # ``model.to(p.device); break``: runs once, not on every iteration
            if _in_handler(loop, site.stmt):
                continue  # ``except OutOfMemoryError: model.to("cpu")``: only when it failed
            if isinstance(recv, ast.Name):
                b = m.binding(recv.id, site.ctx.scope, pos(recv))
                if b is not None and b.pos >= pos(loop) and b.how is not How.PARAM:
                    continue  # bound inside the loop: a different module each time
            elif not (isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name)
                      and recv.value.id == site.ctx.scope.self_name):
                continue
            yield ctx.finding(
                CODE, site.node,
                f"`{short(ctx.text(site.node))}` moves the module on every iteration of the loop; "
                + HINT,
            )


def _moves_to_loop_target(call: ast.Call, loop: ast.AST) -> bool:
    """Does the move's destination name the loop's own variable?  Then every iteration
    moves to another device: the loop is over devices, not a hot loop with a stray move."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    targets = {x.id for x in ast.walk(loop.target) if isinstance(x, ast.Name)}
    args = [*call.args, *(k.value for k in call.keywords)]
    return any(isinstance(x, ast.Name) and x.id in targets for a in args for x in ast.walk(a))


_EXITS = (ast.Break, ast.Return, ast.Raise)


def _leaves_loop_after(block: list[ast.stmt], stmt: ast.stmt) -> bool:
    """Is ``stmt`` (somewhere in ``block``, a loop's body, outside any nested loop) followed
    in its own block or an enclosing one by an unconditional ``break``/``return``/``raise``?
    Then the loop ends right after it runs: it runs at most once per entry into the loop."""
    at = pos(stmt)
    for i, st in enumerate(block):
        if not pos(st) <= at <= end_pos(st):
            continue
        if any(isinstance(later, _EXITS) for later in block[i + 1:]):
            return True
        if st is stmt:
            return False
        subs: list[list[ast.stmt]] = []
        if isinstance(st, (ast.If, ast.With, ast.AsyncWith)):
            subs = [st.body, getattr(st, "orelse", [])]
        elif isinstance(st, ast.Try) or (hasattr(ast, "TryStar") and isinstance(st, ast.TryStar)):
            subs = [st.body, st.orelse, st.finalbody, *(h.body for h in st.handlers)]
        elif isinstance(st, ast.Match):
            subs = [c.body for c in st.cases]
        return any(_leaves_loop_after(b, stmt) for b in subs)
    return False


def _in_handler(loop: ast.AST, stmt: ast.stmt) -> bool:
    """Is ``stmt`` inside an ``except`` handler of a ``try`` in ``loop``'s body?  It runs only
    for the iterations whose ``try`` body raised (torch_geometric's SentenceTransformer:
    the CPU fallback for a batch that ran out of GPU memory)."""
    at = pos(stmt)
    for node in ast.walk(loop):
        if isinstance(node, ast.ExceptHandler) and pos(node) <= at <= end_pos(node):
            return True
    return False
