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
Unsafe: the fix adds `device=<input>.device`, naming the input the factory's result meets
(only when that input is a plain name). That is almost always the intent, but it changes
where the tensor lives for every caller.

## Known limits
Indexing (`x[torch.arange(n)]`) is not a meeting: CPU index tensors work on any device.
A result that leaves the function (returned, stored on `self`) and meets tensors elsewhere
is not followed. Parameters of other functions are not assumed to be tensors, even when
used as `x.shape` (NumPy arrays look the same). Zero-dimensional tensors (which mix with any device) are not
distinguished from others.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchferry.check.analysis import (
    DEVICE_FACTORIES,
    MODULE,
    Fact,
    Model,
    Scope,
    Site,
    add_keyword,
    kwarg,
    pos,
)
from torchferry.check.api import Context, Finding, Fix

CODE = "FRY010"
NAME = "factory-without-device"
FIX = "unsafe"


def check(ctx: Context) -> Iterable[Finding]:
    m: Model = ctx.model
    cands: dict[int, list[Site]] = {}
    scopes: dict[int, Scope] = {}
    for name in DEVICE_FACTORIES:
        for site in m.calls_by_tail.get(name, ()):
            scope = site.ctx.scope
            if scope.kind != "function":
                continue
            call = site.node
            q = m.qualname(call.func)
            if q != "torch." + name or kwarg(call, "device") is not None:
                continue
            if id(call) in m.move_receivers or any(k.arg is None for k in call.keywords):
                continue
            cands.setdefault(id(scope), []).append(site)
            scopes[id(scope)] = scope
    for key, sites in cands.items():
        scope = scopes[key]
        found: dict[int, tuple[Site, ast.AST]] = {}
        targets = {id(s.node): s for s in sites}
        for meet in _meetings(m, scope):
            for a in meet[0]:
                f = m.fact(a, meet[2])
                if f is None or f.kind != "tensor" or f.cpu_new is None or id(f.cpu_new) not in targets:
                    continue
                others = [b for b in meet[1] if b is not a]
                partner = next((b for b in others if _is_param_name(b) or _dev(m.fact(b, meet[2]))), None)
                if partner is not None and id(f.cpu_new) not in found:
                    found[id(f.cpu_new)] = (targets[id(f.cpu_new)], partner)
        for site, partner in sorted(found.values(), key=lambda x: x[0].pos):
            call = site.node
            fix = None
            shown = "x"
            if type(partner) is ast.Name:
                shown = partner.id
                edit = add_keyword(ctx, call, f"device={partner.id}.device")
                if edit is not None:
                    fix = Fix((edit,), False, f"Pass `device={partner.id}.device`")
            fname = m.qualname(call.func)
            yield ctx.finding(
                CODE, call,
                f"`{fname}(...)` without `device=` is built on the CPU but meets "
                f"`{partner.id if type(partner) is ast.Name else m.text(partner)[:40]}`, which "
                "may be on an accelerator; create it there: "
                f"`device={shown}.device`",
                fix,
            )


def _is_param_name(node: ast.AST) -> bool:
    return type(node) is ast.Name and node.col_offset == 0 and node.end_col_offset == len(node.id) \
        and getattr(node, "_param", False)


def _dev(f: Fact | None) -> bool:
    return f is not None and f.sure_tensor and f.dev and f.cpu_new is None


def _meetings(m: Model, scope: Scope) -> Iterable[tuple[list[ast.AST], list[ast.AST], object]]:
    """(operands to test, all operands, ctx) for each place where tensors meet."""
    scope.sort()
    for s in scope.ops:
        n = s.node
        if type(n) is ast.BinOp:
            ops = [n.left, n.right]
        else:
            ops = [n.left, *n.comparators]
        yield ops, ops, s.ctx
    for s in scope.calls:
        call = s.node
        args: list[ast.AST] = []
        for a in call.args:
            if type(a) in (ast.List, ast.Tuple):
                args.extend(a.elts)
            elif type(a) is not ast.Starred:
                args.append(a)
        args.extend(k.value for k in call.keywords if k.arg is not None)
        if not args:
            continue
        func = call.func
        q = m.qualname(func) or ""
        if q.startswith("torch."):
            if q[6:] in DEVICE_FACTORIES or q[6:] in ("tensor", "as_tensor", "device", "load", "save"):
                continue
            yield args, args, s.ctx
            continue
        if type(func) is ast.Attribute:
            recv = m.fact(func.value, s.ctx)
            if recv is not None and recv.tensorlike:
                yield args, [func.value, *args], s.ctx
                continue
        f = m.fact(func, s.ctx)
        if f is not None and f.kind == MODULE:
            if len(args) > 1:
                yield args, args, s.ctx
            elif type(func) is ast.Attribute and type(func.value) is ast.Name and \
                    func.value.id == scope.self_name and scope.cls is not None and scope.cls.is_module:
                # a submodule of a module: its parameters live where the inputs do
                yield args, [*args, *_tensor_params(m, scope)], s.ctx


def _tensor_params(m: Model, scope: Scope) -> list[ast.AST]:
    out: list[ast.AST] = []
    fn = scope.node
    for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
        if a.arg == scope.self_name:
            continue
        lst = scope.binds.get(a.arg)
        if lst and lst[0][1].how == "param":
            f = m.binding_fact(lst[0][1])
            if f is not None and f.tensorlike:
                name = ast.Name(a.arg, ast.Load(), lineno=fn.lineno, col_offset=0,
                                end_lineno=fn.lineno, end_col_offset=len(a.arg))
                name._param = True
                out.append(name)
                break
    return out


__all__ = ["check", "pos"]
