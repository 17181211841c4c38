"""Part of a batch moved to the device, another part left behind.

## What it does
In a loop over a DataLoader, flags an item of the batch (a loop target such as `labels`
in `for inputs, labels in loader`, or `batch[1]`, `batch["y"]`) that is used unmoved in a
model or loss call, a loss function, arithmetic or a comparison together with tensors that
are on the device -- while other items of the same batch were moved with `.to(device)` /
`.cuda()` in that loop.

## Why is this bad
"It nearly always means one tensor missed the ferry -- often the labels while the inputs
made it." The loss call fails with "Expected all tensors to be on the same device" on a GPU
machine, and only there: on a CPU-only machine every tensor is on the CPU and the bug hides.

## Example
```python
for inputs, labels in loader:
    inputs = inputs.to(device)
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
Unsafe: the fix moves the item the same way as the others -- a `labels = labels.to(device)`
line after the other item's move, or `labels.to(device)` at the use. An item that must stay
on the CPU (sequence lengths for `pack_padded_sequence`, file names) would be wrong to move;
such items are rarely passed to a loss, but check.

## Known limits
Only loops over a DataLoader (or a name such as `train_loader`) are checked. Items used in
indexing or passed to functions other than modules, losses and torch functions are not
considered meetings.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchferry.check.analysis import (
    BATCH,
    MODULE,
    Ctx,
    Fact,
    Model,
    Site,
    end_pos,
    indent_of,
    pos,
)
from torchferry.check.api import Context, Edit, Finding, Fix

CODE = "FRY013"
NAME = "partial-batch-move"
FIX = "unsafe"


def check(ctx: Context) -> Iterable[Finding]:
    m: Model = ctx.model
    moves: dict[int, list[Site]] = {}  # loop id -> moves of its batch items
    for meth in ("to", "cuda"):
        for site in m.calls_by_tail.get(meth, ()):
            func = site.node.func
            if not isinstance(func, ast.Attribute):
                continue
            f = m.fact(func.value, site.ctx)
            if f is None or f.kind != BATCH or f.loop is None:
                continue
            res = m.fact(site.node, site.ctx)
            if res is None or not res.dev:
                continue
            moves.setdefault(id(f.loop), []).append(site)
    if not moves:
        return
    reported: set[int] = set()
    for loop, lctx in m.loops:
        sites = moves.get(id(loop))
        if not sites:
            continue
        scope = lctx.scope
        lo, hi = pos(loop), end_pos(loop)
        for s in scope.calls_between(lo, hi):
            args = _meeting_args(m, s)
            if args is None:
                continue
            yield from _check_meeting(ctx, m, args, s.ctx, loop, sites, reported)
        for op in scope.ops_between(lo, hi):
            n = op.node
            ops: list[ast.AST] = [n.left, n.right] if isinstance(n, ast.BinOp) else [n.left, *n.comparators]
            yield from _check_meeting(ctx, m, ops, op.ctx, loop, sites, reported)


def _meeting_args(m: Model, s: Site) -> list[ast.AST] | None:
    call = s.node
    func = call.func
    args = [a for a in call.args if not isinstance(a, ast.Starred)]
    args += [k.value for k in call.keywords if k.arg is not None]
    if len(args) < 2:
        return None
    q = m.qualname(func) or ""
    if q.startswith("torch.nn.functional.") or (q.startswith("torch.") and q.count(".") == 1):
        if "pack" in q:
            return None
        return args
    f = m.fact(func, s.ctx)
    if f is not None and f.kind == MODULE:
        return args
    return None


def _unmoved_item(f: Fact | None, loop: ast.AST) -> bool:
    return f is not None and f.kind == BATCH and not f.whole and f.loop is loop


def _check_meeting(ctx: Context, m: Model, args: list[ast.AST], actx: Ctx, loop: ast.AST,
                   moves: list[Site], reported: set[int]) -> Iterable[Finding]:
    facts = [m.fact(a, actx) for a in args]
    if not any(f is not None and f.sure_tensor and f.dev for f in facts):
        return
    for a, f in zip(args, facts, strict=True):
        if not _unmoved_item(f, loop) or id(a) in reported:
            continue
        reported.add(id(a))
        name = m.text(a)
        # prefer a move whose result was kept (``x = x.to(device)``) as the model to follow
        move = next((s for s in moves if isinstance(s.stmt, ast.Assign)), moves[0])
        how = m.text(move.node)[len(m.text(move.node.func.value)):]
        yield ctx.finding(
            CODE, a,
            f"`{name}` is used unmoved next to tensors that went to the device (the batch's "
            f"other items were moved: `{m.text(move.node)}`); it missed the ferry: move it "
            f"with the others: `{name}{how}`",
            _fix(ctx, m, a, name, how, move, actx),
        )


def _fix(ctx: Context, m: Model, use: ast.AST, name: str, how: str, move: Site,
         actx: Ctx) -> Fix | None:
    st = move.stmt
    if isinstance(use, ast.Name) and isinstance(st, ast.Assign) and len(st.targets) == 1 \
            and st.value is move.node and isinstance(st.targets[0], ast.Name):
        b = m.binding(use.id, actx.scope, pos(use))
        line = ctx.lines[st.lineno - 1]
        ind = indent_of(line)
        end_line = st.end_lineno or st.lineno
        rest = ctx.lines[end_line - 1][ctx.char_col(end_line, st.end_col_offset or 0):].strip()
        if b is not None and b.pos <= pos(st) and ctx.char_col(st.lineno, st.col_offset) == len(ind) \
                and (not rest or rest.startswith("#")) and end_line < len(ctx.lines):
            text = f"{ind}{name} = {name}{how}\n"
            at = end_line + 1
            return Fix((Edit(at, 0, at, 0, text),), False, f"Move `{name}` with the others")
    return Fix((ctx.edit(use, f"{name}{how}"),), False, f"Move `{name}` with the others")
