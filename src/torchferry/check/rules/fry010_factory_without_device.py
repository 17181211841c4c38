"""Tensor factory without `device=` where it meets tensors that may be on the device.

## What it does
Inside a function that receives tensors -- the `forward` of an `nn.Module`, or any function
whose parameters are annotated `Tensor` -- flags a factory
(`torch.zeros`, `ones`, `empty`, `full`, `arange`, `rand*`, `eye`, `linspace`, ...) called
without `device=`, when its result (directly or through a local name) meets those tensors:
in arithmetic or a comparison, or as an argument next to them in a call
(`torch.cat([x, pad])`, `x.masked_fill(mask, 0)`, `self.rnn(x, h0)`).

## Why is this bad
The factory builds its tensor on the CPU, whatever device the inputs are on. The function
works in CPU tests and fails on the first GPU run with "Expected all tensors to be on the
same device" -- the lessons' "freshly created tensor inside the loop" that "missed the
ferry": masks, position indices, RNN initial states.

## Example
```python
class Tagger(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1])
        x = self.embed(tokens) + self.embed(positions)
        h0 = torch.zeros(1, tokens.size(0), x.size(-1))
        return self.rnn(x, h0)
```

## Use instead
```python
class Tagger(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.embed(tokens) + self.embed(positions)
        h0 = torch.zeros(1, tokens.size(0), x.size(-1), device=tokens.device)
        return self.rnn(x, h0)
```

## Fix safety
Unsafe: the fix adds `device=<input>.device`, naming the tensor the factory's result meets
when that is a plain name already bound where the factory is called (never one bound
later in the function), else the function's first tensor parameter. That is almost always the intent, but it changes
where the tensor lives for every caller.

A pinned host buffer (`torch.empty(n, pin_memory=True)`) and a copy between devices
(`gpu_buf.copy_(cpu_buf, non_blocking=True)`) are deliberate and not flagged.

## Known limits
Indexing (`x[torch.arange(n)]`) is not a meeting: CPU index tensors work on any device.
A result that leaves the function (returned, stored on `self`) and meets tensors elsewhere
is not followed. Parameters of other functions are not assumed to be tensors, even when
used as `x.shape` (NumPy arrays look the same). Zero-dimensional tensors (which mix with any device) are not
distinguished from others.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from torchferry.check.analysis import (
    DEVICE_FACTORIES,
    MODULE,
    TENSOR,
    Ctx,
    Fact,
    Model,
    Scope,
    Site,
    kwarg,
)
from torchferry.check.api import Context, Finding, Fix

CODE = "FRY010"
NAME = "factory-without-device"
FIX = "unsafe"

_CROSS_DEVICE_METHODS = frozenset({"copy_", "to", "type_as", "new_tensor"})
_NOT_MEETINGS = frozenset({"tensor", "as_tensor", "device", "load", "save"})


class Meeting(NamedTuple):
    """A place where tensors meet: an operator, or a call taking several tensors."""

    operands: Sequence[ast.AST]  # where a CPU-built tensor may appear
    partners: Sequence[ast.AST]  # what it meets there
    ctx: Ctx
    module: ast.AST | None = None  # a submodule it is passed to (``self.embed(pos)``)


def check(ctx: Context) -> Iterable[Finding]:
    m: Model = ctx.model
    # 1. device-less factories inside functions, not immediately moved
    sites: dict[int, Site[ast.Call]] = {}
    scopes: dict[int, Scope] = {}  # where to look for meetings
    for name in sorted(DEVICE_FACTORIES | {"tensor", "as_tensor"}):
        for site in m.calls_by_tail.get(name, ()):
            scope = site.ctx.scope
            call = site.node
            if scope.kind != "function" or m.qualname(call.func) != "torch." + name:
                continue
            if kwarg(call, "device") is not None or any(k.arg is None for k in call.keywords):
                continue
            if kwarg(call, "pin_memory") is not None:
                continue  # a pinned host staging buffer lives on the CPU on purpose
            if id(call) in m.move_receivers:  # ``torch.zeros(n).to(x.device)``: FRY009's
                continue
            if name in ("tensor", "as_tensor") and not (
                    call.args and isinstance(call.args[0], (ast.List, ast.Tuple, ast.ListComp))):
                continue  # only data written out here (a scalar mixes with any device)
            sites[id(call)] = site
            scopes[id(scope)] = scope
            if scope.cls is not None:  # a helper method's result meets tensors in ``forward``
                for sibling in scope.cls.methods.values():
                    scopes[id(sibling)] = sibling
    if not sites:
        return
    # 2. where their results meet tensors that may be on the device
    found: dict[int, tuple[Site[ast.Call], ast.AST, str | None]] = {}
    for scope in scopes.values():
        for meet in _meetings(m, scope):
            for a in meet.operands:
                f = m.fact(a, meet.ctx)
                if f is None or f.kind != TENSOR or f.cpu_new is None:
                    continue
                made = sites.get(id(f.cpu_new))
                if made is None or id(f.cpu_new) in found:
                    continue
                home = made.ctx.scope  # the fix edits the factory there
                partner = next((b for b in meet.partners if b is not a and _dev(m.fact(b, meet.ctx))),
                               None)
                if partner is not None:
                    input_name = partner.id if isinstance(partner, ast.Name) and home is scope \
                        else _tensor_input(m, home)
                    found[id(f.cpu_new)] = (made, partner, input_name)
                elif meet.module is not None:
                    found[id(f.cpu_new)] = (made, meet.module, _tensor_input(m, home))
    for site, partner, input_name in sorted(found.values(), key=lambda x: x[0].pos):
        home = site.ctx.scope
        if input_name is not None and m.binding(input_name, home, site.pos) is None:
            # bound only later (``input_t`` of a loop below): name a parameter instead
            input_name = _tensor_input(m, home)
        yield _finding(ctx, m, site.node, partner, input_name)


def _finding(ctx: Context, m: Model, call: ast.Call, partner: ast.AST,
             input_name: str | None) -> Finding:
    fname = m.qualname(call.func)
    fix = None
    if input_name is not None:
        edit = ctx.add_keyword(call, f"device={input_name}.device")
        if edit is not None:
            fix = Fix((edit,), False, f"Pass `device={input_name}.device`")
    where = f"device={input_name or '<input>'}.device"
    return ctx.finding(
        CODE, call,
        f"`{fname}(...)` without `device=` is built on the CPU but meets "
        f"`{m.text(partner)[:40]}`, which may be on an accelerator; create it there: `{where}`",
        fix,
    )


def _dev(f: Fact | None) -> bool:
    """On the device for a reason we can see (not only "a model returned it")."""
    return f is not None and f.sure_tensor and f.dev and not f.guessed and f.cpu_new is None


def _meetings(m: Model, scope: Scope) -> Iterable[Meeting]:
    scope.sort()
    for op in scope.ops:
        n = op.node
        ops = [n.left, n.right] if isinstance(n, ast.BinOp) else [n.left, *n.comparators]
        yield Meeting(ops, ops, op.ctx)
    for s in scope.calls:
        call = s.node
        args: list[ast.AST] = []
        for a in call.args:
            if isinstance(a, (ast.List, ast.Tuple)):  # torch.cat([x, pad])
                args.extend(a.elts)
            elif not isinstance(a, ast.Starred):
                args.append(a)
        args.extend(k.value for k in call.keywords if k.arg is not None)
        if not args:
            continue
        func = call.func
        q = m.qualname(func) or ""
        if q.startswith("torch."):  # torch.where(mask, x, y), F.cross_entropy(p, t, weight=w)
            if q[6:] not in DEVICE_FACTORIES and q[6:] not in _NOT_MEETINGS:
                yield Meeting(args, args, s.ctx)
            continue
        if isinstance(func, ast.Attribute) and func.attr in _CROSS_DEVICE_METHODS:
            continue  # ``gpu_buf.copy_(cpu_buf, non_blocking=True)`` copies across devices
        if isinstance(func, ast.Attribute):  # x.masked_fill(mask, 0)
            recv = m.fact(func.value, s.ctx)
            if recv is not None and recv.tensorlike:
                yield Meeting(args, [func.value, *args], s.ctx)
                continue
        f = m.fact(func, s.ctx)
        if f is None or f.kind != MODULE:
            continue
        if len(args) > 1:  # self.rnn(x, h0)
            yield Meeting(args, args, s.ctx)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id == scope.self_name and scope.cls is not None and scope.cls.is_module:
            # self.embed(positions): a submodule's parameters live where the model does
            yield Meeting(args, [], s.ctx, module=func)


def _tensor_input(m: Model, scope: Scope) -> str | None:
    """The first tensor parameter of a method (for the fix's ``device=<input>.device``)."""
    fn = scope.function
    if fn is None:
        return None
    for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
        if a.arg == scope.self_name:
            continue
        lst = scope.binds.get(a.arg)
        if lst and lst[0][1].how == "param":
            f = m.binding_fact(lst[0][1])
            if f is not None and f.tensorlike:
                return a.arg
    return None
