"""Non-blocking copy to the host read before a synchronize.

## What it does
Flags `t.to("cpu", non_blocking=True)` (also `device="cpu"`, `torch.device("cpu")` or a
CPU device variable) whose data is read -- a method or attribute of it, arithmetic,
indexing, printing, `float()`, a NumPy or torch function, directly, through the name it
was assigned to, or in a function of the same file it is passed to -- before any `synchronize()` or event `wait()` / `synchronize()` in the
same function. A blocking copy to the host in between (`u.cpu()`, `u.to("cpu")`) counts as
a synchronize: it waits for the stream, and so for the earlier copy queued on it.
`non_blocking=` may also be a call of a small pure function of the run (one `return` of an
expression) that the code shows returns True for the arguments given
(`non_blocking=TorchDevice.get_non_blocking(TorchDevice.CPU_DEVICE)` with
`return False if to_device.type == "mps" else True`), and the CPU target a class attribute
or module-level name bound once to `torch.device("cpu")`.

## Why is this bad
A non-blocking device-to-host copy returns immediately, before the data has arrived. Until
the stream is synchronised the CPU tensor holds garbage (often zeros): PyTorch's own
pinned-memory tutorial shows `cuda_t.to("cpu", non_blocking=True).mean()` returning wrong
values, and Lightning shipped that bug in its prediction writer (#11287). Only host-to-device
copies are safe without a synchronize.

## Example
```python
preds = logits.argmax(-1).to("cpu", non_blocking=True)
print(preds.tolist())
```

## Use instead
```python
preds = logits.argmax(-1).to("cpu", non_blocking=True)
torch.cuda.synchronize()
print(preds.tolist())
# or simply: preds = logits.argmax(-1).cpu()
```

## Fix safety
No fix: where to synchronise (right away, or after more work has been queued to overlap
with the copy) is a performance decision.

## Known limits
A blocking copy in between is taken to wait for the non-blocking one; it does not if it
runs on another stream, or if its tensor is already on the CPU (a no-op that waits for
nothing). Only literal CPU targets and device variables and attributes known to be the CPU
are recognised; a target that is a parameter (`model.to(target_device, ...)`) is not, even
where every caller passes the CPU. A computed `non_blocking=` counts only where the function
is one `return` (a function at a file's top level, or a static or class method of a class
without bases called on the class) and its arguments are literals, `torch.device(...)` of
literals, or names and class attributes of the same file bound once to one; a constant
imported by name from another file is not followed. A copy passed straight to a function of the same file (`f(copy)`, `self.method(copy)`) counts when
that function reads the parameter before a synchronize of its own; one that function hands
on again, a method of a base class, or a copy that is returned or stored in a container is
not followed (a pipeline that synchronises later is the usual reason to write it). Reads are
ordered by their position in the source, so a read in an earlier line of a loop body is
not connected to a later iteration's copy.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchferry.check.api import Context, Finding
from torchferry.check.flow.queries import is_cpu_device, is_module
from torchferry.check.names import end_pos, header_parents, kwarg, pos, short
from torchferry.check.pure_calls import cpu_constant, known_value
from torchferry.check.scopes import Scope, ScopeKind, Site, Walker

CODE = "FRY012"
NAME = "nonblocking-to-host"
FIX = "none"


def check(ctx: Context) -> Iterable[Finding]:
    m = ctx.syntax
    for site in m.calls_by_tail.get("to", ()):
        call = site.node
        nb = kwarg(call, "non_blocking")
        if nb is None or known_value(ctx.flow, nb) is not True:
            continue  # (``True``, or a small function of the run returning True for its arguments)
        func = call.func
        if not isinstance(func, ast.Attribute):
            continue
        target = call.args[0] if call.args else kwarg(call, "device")
        if target is None or not _is_cpu(ctx, m, target):
            continue
        if is_module(ctx.flow, func.value):
            continue
        if _read_before_sync(ctx, m, site):
            yield ctx.finding(
                CODE, call,
                f"`{short(ctx.text(call))}` returns before the data has arrived; its result is "
                "read before any synchronize and may hold garbage; call `torch.cuda.synchronize()` "
                "(or an event's `.synchronize()`) before reading it, or use a blocking `.cpu()`",
            )


# reading these does not wait for the data
_METADATA = frozenset({"device", "dtype", "shape", "ndim", "is_cuda", "requires_grad", "layout",
                       "size", "dim", "numel", "element_size", "nbytes", "itemsize",
                       "is_pinned", "untyped_storage", "data_ptr", "is_contiguous"})
_CONSUMERS = frozenset({"print", "float", "int", "bool", "str", "repr", "len", "list"})


def _consumes(parent: ast.AST | None, child: ast.AST) -> bool:
    """Does ``parent`` read the data of ``child`` (rather than pass the tensor along)?"""
    if isinstance(parent, ast.Attribute):
        return parent.value is child and parent.attr not in _METADATA
    if isinstance(parent, ast.Subscript):
        return parent.value is child
    if isinstance(parent, (ast.BinOp, ast.Compare, ast.UnaryOp, ast.FormattedValue, ast.If, ast.While)):
        return True
    if isinstance(parent, ast.Call):
        fn = parent.func
        name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
        return name in _CONSUMERS or (isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name)
                                      and fn.value.id in ("np", "numpy", "torch"))
    return False


def _is_cpu(ctx: Context, m: Walker, e: ast.AST) -> bool:
    """Does the device ``e`` name the CPU: ``"cpu"``, ``torch.device("cpu")``, or a
    variable or attribute that the device-flow analysis finds is a device on the CPU only?"""
    if isinstance(e, ast.Constant):
        return e.value == "cpu"
    if isinstance(e, ast.Call) and m.qualname(e.func) == "torch.device":
        a = e.args[0] if e.args else kwarg(e, "type")
        return isinstance(a, ast.Constant) and a.value == "cpu"
    if isinstance(e, (ast.Name, ast.Attribute)):  # ``host``, ``self.host``, ``Devices.CPU``
        return is_cpu_device(ctx.flow, e) or cpu_constant(ctx.flow, e)
    return False


def _blocking_to_host(ctx: Context, m: Walker, s: Site[ast.Call]) -> bool:
    """``t.cpu()`` or ``t.to("cpu")`` without ``non_blocking=True``: a blocking copy to the
    host, which synchronises the current stream and so completes every copy queued on it
    before (gpse.py: ``batch_ptr.to('cpu', non_blocking=False)`` right after the
    non-blocking copy of ``batch_out``)."""
    call, fn = s.node, s.node.func
    if not isinstance(fn, ast.Attribute) or (call.args and fn.attr == "cpu"):
        return False
    nb = kwarg(call, "non_blocking")
    if nb is not None and not (isinstance(nb, ast.Constant) and nb.value is False):
        return False
    if fn.attr == "cpu":
        return True
    target = call.args[0] if call.args else kwarg(call, "device")
    return fn.attr == "to" and target is not None and _is_cpu(ctx, m, target)


def _read_before_sync(ctx: Context, m: Walker, site: Site) -> bool:
    """Is the copy's result read (where it is made, through the name it is bound to, or in
    the function it is handed to) before a synchronize?"""
    st = site.stmt
    parent = header_parents(st).get(id(site.node))
    if isinstance(parent, ast.Expr):
        return False  # a discarded copy is FRY002's business
    if isinstance(parent, (ast.Return, ast.Yield)):
        return False  # handed to the caller: not followed
    if isinstance(parent, ast.Call) and not _consumes(parent, site.node):
        return _callee_reads(ctx, m, site, parent)  # ``self.run_on_cpu(x.to("cpu", non_blocking=True))``
    if not (isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent is st):
        return _consumes(parent, site.node)  # ``.to("cpu", non_blocking=True).numpy()``
    targets = st.targets if isinstance(st, ast.Assign) else [st.target]
    if len(targets) != 1 or not isinstance(targets[0], ast.Name):
        return False
    return _read_in(ctx, m, site.ctx.scope, targets[0].id, end_pos(st))


def _callee_reads(ctx: Context, m: Walker, site: Site, call: ast.Call) -> bool:
    """The copy is an argument of a function of the file (``f(copy)``, ``self.method(copy)``)
    that reads that parameter's data before any synchronize of its own."""
    func = call.func
    scope = site.ctx.scope
    callee = None
    shift = 0
    if isinstance(func, ast.Name):
        callee = next((s for s in m.functions if s.name == func.id
                       and s.cls is None and s.parent is not None and s.parent.kind is ScopeKind.MODULE), None)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == scope.self_name and scope.cls is not None:
        callee, shift = scope.cls.methods.get(func.attr), 1
    fn = callee.function if callee is not None else None
    if callee is None or fn is None or fn.args.vararg is not None:
        return False
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    name = None
    for i, a in enumerate(call.args):
        if a is site.node and i + shift < len(params):
            name = params[i + shift]
    for k in call.keywords:
        if k.value is site.node:
            name = k.arg
    return name is not None and _read_in(ctx, m, callee, name, pos(fn.body[0]) - 1)


def _read_in(ctx: Context, m: Walker, scope: Scope, name: str, after: int) -> bool:
    """Is ``name`` read in ``scope`` after position ``after`` before a synchronize?"""
    first_sync = None
    for s in scope.calls_between(after, 1 << 62):
        fn = s.node.func
        if isinstance(fn, ast.Attribute) and fn.attr in ("synchronize", "wait"):
            first_sync = s.pos
            break
        if _blocking_to_host(ctx, m, s):
            first_sync = s.pos  # waits for the stream, the earlier copy included
            break
    first_read = None
    rebound = None  # reads after the name is assigned again concern another tensor
    func = scope.function
    body = func.body if func is not None else getattr(scope.node, "body", [])
    for top in body:
        if end_pos(top) < after:
            continue
        for n in ast.walk(top):
            for c in ast.iter_child_nodes(n):
                if not isinstance(c, ast.Name) or c.id != name or pos(c) <= after:
                    continue
                if isinstance(c.ctx, ast.Store):
                    if rebound is None or pos(c) < rebound:
                        rebound = pos(c)
                elif _consumes(n, c) and (first_read is None or pos(c) < first_read):
                    first_read = pos(c)
    if first_read is None or (rebound is not None and rebound < first_read):
        return False
    return first_sync is None or first_read < first_sync
