"""Discarded tensor move.

## What it does
Flags a tensor's `.to(...)`, `.cuda()`, `.cpu()`, `.float()`, `.half()`, `.double()`,
`.bfloat16()` or `.type(...)` written as a bare statement, so that its result is thrown away.
The receiver must be known to be a tensor: something created by a tensor factory, returned
by a model or a torch function, an item of a DataLoader batch, a parameter annotated
`Tensor`, a `forward` input, an item of the tuple a function of the same file returns
(`t, weights = sampler.sample(n)` where the file's one `sample` method returns two tensors
it made), or a name that is later passed as is to a model or loss
(`inputs.to(device)` ... `model(inputs)`), or a name in the `else` of an `if`/`elif` chain
whose other branches turn it into a tensor (`if isinstance(eye, np.ndarray): eye =
torch.from_numpy(eye).to(device)` ... `else: eye.to(device)`). Modules (`model.to(device)` is in place) and objects whose
`.to` works in place (a tokenizer's `BatchEncoding`, a PyG `Data`) are not flagged. Neither is
the last expression of a notebook cell: IPython displays its value (`y_preds.cpu()` shows the
CPU copy), unless a trailing `;` silences it.

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
Unsafe. When the receiver is a plain name the fix assigns the result back
(`x = x.to(device)`), which is what the statement was meant to do -- but it changes what
the program computes: the tensor now lives on the device (or has the new dtype), so the
code after it runs there, and a model that was never moved either now fails on a GPU
(udacity's `problem_unittests.py`: `if train_on_gpu: x.cuda()` then `D(x)` with `D` on the
CPU), and a discarded `.half()` assigned back computes in float16. Review it.
Attribute and subscript receivers (`batch["x"].to(device)`) are reported without a fix.

## Known limits
A receiver whose origin the analysis cannot see (a function parameter without a `Tensor`
annotation, an attribute of an unknown object) is not flagged. A notebook cell that ends with
`x.to(device)`, meant as a move, only displays the copy and is not flagged either: the
displayed value counts as used. `obj.sample(...)` on an object the analysis cannot place is
taken for the file's own `sample` method when exactly one class of the file defines it; a
library object with a method of the same name returning tensors the same way would be read
the same (a module returned there is never flagged: its item must surely be a tensor).
"""

from __future__ import annotations

import ast
import bisect
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
FIX = "unsafe"


def check(ctx: Context) -> Iterable[Finding]:
    m: Model = ctx.model
    last_in_cell = _last_in_cell(ctx)
    for site in m.expr_stmts:
        if id(site.stmt) in last_in_cell:
            continue  # a notebook cell's last expression is displayed: its value is used
        call = site.node
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in MOVE_METHODS:
            continue
        if func.attr == "type" and not call.args and not call.keywords:
            continue  # ``x.type()`` returns the type name: pointless, but not a move
        f = m.fact(func.value, site.ctx)
        if f is None:
            if not _fed_to_a_model(m, site, func.value) and \
                    not _tensor_in_the_other_branches(m, site, func.value):
                continue
        elif not f.sure_tensor:
            # a parameter only guessed to be a tensor (used as ``x.shape``) counts where the
            # other branches of its if/elif chain make it one
            if not (f.tensorlike and _tensor_in_the_other_branches(m, site, func.value)):
                continue
        text = short(m.text(call))
        recv = func.value
        fix = None
        if isinstance(recv, ast.Name):
            fix = Fix((ctx.insert_before(site.stmt, f"{recv.id} = "),), False,
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


def _last_in_cell(ctx: Context) -> set[int]:
    """For a notebook, the ``id`` of each cell's last statement when it is an expression
    that IPython displays (``ast_node_interactivity="last_expr"``): the cell's last
    top-level statement, not followed by a ``;``, which silences the display."""
    starts = ctx.cell_starts
    if not starts:
        return set()
    out: set[int] = set()
    body = ctx.tree.body
    for i, stmt in enumerate(body):
        if not isinstance(stmt, ast.Expr):
            continue
        end = stmt.end_lineno or stmt.lineno
        k = bisect.bisect_right(starts, end)  # the cells starting after this line
        next_cell = starts[k] if k < len(starts) else 1 << 62
        if i + 1 < len(body) and body[i + 1].lineno < next_cell:
            continue  # more code follows in the same cell
        line = ctx.lines[end - 1] if 0 < end <= len(ctx.lines) else ""
        _, _, _, end_col = ctx.span(stmt)
        if line[end_col:].lstrip().startswith(";"):
            continue  # ``x.cpu();``: computed, not displayed
        out.add(id(stmt))
    return out


def _tensor_in_the_other_branches(m: Model, site: Site, recv: ast.expr) -> bool:
    """In the ``else`` of an ``if``/``elif`` chain whose other branches turn the same name
    into a tensor (``if isinstance(eye, np.ndarray): eye = torch.from_numpy(eye).to(device)``
    ... ``else: eye.to(device)``): the chain normalises the value into a tensor, and this
    branch is the one where it already is one (neural_renderer PR 52)."""
    if not isinstance(recv, ast.Name) or MODEL_NAME.match(recv.id) or m.graph_lib():
        return False
    for ifnode, in_body in site.ctx.ifs:
        if in_body:
            continue
        for st in ifnode.body:
            if isinstance(st, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == recv.id for t in st.targets):
                b = m.binding(recv.id, site.ctx.scope, end_pos(st))
                f = m.binding_fact(b) if b is not None and b.stmt is st else None
                if f is not None and f.sure_tensor:
                    return True
    return False


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
