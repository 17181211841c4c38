"""NumPy, matplotlib or scikit-learn on a tensor that may live on an accelerator.

## What it does
Flags `.numpy()`, `np.array(t)` / `np.asarray(t)` (any `numpy` function given the tensor),
and matplotlib or scikit-learn calls given a tensor that may live on an accelerator
without a `.cpu()` first. "May live on an accelerator" means the tensor came out of a
model, or was moved with `.to(device)` / `.cuda()`, or was created with `device=device`,
or is a value of the `state_dict()` of a module moved to the device (`model.cuda()`,
`model = Net().to(device)`) -- or was computed from such a tensor. A layer with weights built here without a device
(`conv = nn.Conv2d(3, 8, 3)`) and never moved, passed on or stored anywhere in the file
computes on the CPU (unless the file sets a default device or a CUDA default tensor type):
its output is not flagged. A list or tuple of such tensors handed to
NumPy (`np.sum(final, 0)` where `final = [x]` and `final.append(...)` added more, in the same
scope, or a list comprehension of such tensors) is flagged too: NumPy converts each item. Quiet where the author handled the device:
in one branch of a test on the accelerator whose other branch calls `.cpu()`
(`t.numpy() if not train_on_gpu else t.cpu().numpy()`), and, for the output of a model called
on inputs of unknown origin, in a notebook (or the module-level code of a script) that never
names an accelerator or a device and calls nothing that could move a model there (`.to`,
`torch.load`, `prepare`, `from_pretrained`...); a function of a Python file may be handed a
model its caller moved, so it is still flagged there.

## Why is this bad
"NumPy only understands CPU memory." `.numpy()` on a CUDA tensor raises "can't convert
cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory
first.", and matplotlib and scikit-learn call NumPy under the hood. The code works on a
CPU-only machine and crashes on the first GPU run. A model output that is still part of
the autograd graph also needs `.detach()` ("Can't call numpy() on Tensor that requires
grad").

## Example
```python
out = model(x.to(device))
preds = out.argmax(dim=1).numpy()
plt.plot(out[0])
```

## Use instead
```python
out = model(x.to(device))
preds = out.argmax(dim=1).cpu().numpy()
plt.plot(out[0].detach().cpu())
```

## Fix safety
Offered only where the value is taken for a tensor (not a batch item, not the output of
a model called on inputs of unknown origin, which may be a list or a PIL image). Safe only
where it is a tensor by construction in the same scope: made there by a torch factory
(`torch.ones`, `torch.tensor`, ...) or a value of the `state_dict()` of a `torch.nn` layer
built there, and changed since only by operations that always return a tensor
(arithmetic with tensors or numbers written there, `.to()`, `.detach()`, `.argmax()`...);
for the receiver of `.numpy()` (which fails on anything else anyway) also the output of a
`torch.nn` layer built there. Then `.cpu()` is a no-op for a tensor already on the CPU,
and `.detach()` (added when the tensor may require grad) only drops the graph that NumPy
cannot use anyway. Everywhere else the fix is unsafe: a parameter (annotated
`torch.Tensor` or not), a global, an attribute or a function's return may be a NumPy
array, on which `.cpu()` raises AttributeError. A list of tensors gets no fix
(`torch.stack` would change what NumPy returns for ragged items).

## Known limits
Tensors whose origin the analysis cannot see (function parameters, attributes of unknown
objects) are not flagged; neither are pandas calls or `ax.plot(...)` on an axes object.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchferry.check.analysis import TENSOR, Ctx, Fact, Model, Site, needs_parens, short
from torchferry.check.api import Context, Finding, Fix
from torchferry.check.flow.safety import tensor_by_construction
from torchferry.check.names import AVAIL_NAME

CODE = "FRY003"
NAME = "numpy-on-accelerator"
FIX = "safe"  # only on tensors made in the same scope, else unsafe

_LIBS = ("numpy.", "matplotlib.", "sklearn.", "seaborn.")
# numpy functions that look at an object's type or shape, never its memory
_NO_DATA = frozenset({"isscalar", "ndim", "shape", "size", "iscomplexobj", "isrealobj",
                      "result_type", "dtype", "can_cast", "issubdtype", "isinstance"})


def check(ctx: Context) -> Iterable[Finding]:
    m: Model = ctx.model
    for site in m.calls_by_tail.get("numpy", ()):
        call = site.node
        func = call.func
        if not isinstance(func, ast.Attribute) or call.keywords or call.args:
            continue  # ``.numpy(force=True)`` copies to the CPU itself
        f = m.fact(func.value, site.ctx)
        if f is not None and f.on_device and not _quiet(ctx, m, site, f):
            yield _finding(ctx, m, site, func.value, f, f"`{short(m.text(call))}`", True)
    for site in m.calls:
        call = site.node
        if not call.args:
            continue
        q = m.qualname(call.func)
        if q is None or not q.startswith(_LIBS) or q.rsplit(".", 1)[-1] in _NO_DATA:
            continue
        for arg in call.args:
            f = m.fact(arg, site.ctx)
            fn = short(m.text(call.func), 30)
            if f is not None and f.on_device and _quiet(ctx, m, site, f):
                continue
            if f is not None and f.on_device:
                yield _finding(ctx, m, site, arg, f, f"`{fn}(...)` on `{short(m.text(arg), 40)}`")
            elif f is None and _list_of_device_tensors(m, arg, site):
                what = short(m.text(arg), 40)
                yield ctx.finding(
                    CODE, call,
                    f"`{fn}(...)` on `{what}`, a list of tensors that may still be on the "
                    "accelerator: NumPy converts each one and only reads CPU memory; combine "
                    f"them with torch first (`torch.stack({what})`) or bring each home "
                    f"(`[t.cpu() for t in {what}]`)",
                )


def _quiet(ctx: Context, m: Model, site: Site, f: Fact) -> bool:
    """The author handled the device here, or nothing in the file can reach one."""
    if _home_in_other_branch(m, site):
        return True
    # a notebook, or a script's module-level code, is the whole program: where it never
    # names a device, nothing it runs is on one (a library function may be handed a model
    # its caller moved, so function bodies of a Python file still count)
    whole_program = bool(ctx.cell_starts) or site.ctx.scope.kind == "module"
    return f.guessed and whole_program and _no_accelerator_in_file(ctx, m)


def _home_in_other_branch(m: Model, site: Site) -> bool:
    """``np.squeeze(t.numpy()) if not train_on_gpu else np.squeeze(t.cpu().numpy())``, or the
    same as an ``if`` statement: one branch of a test on the accelerator brings the tensor
    home with ``.cpu()``, so this branch is the one taken on the CPU."""
    parents = m.parents(site.stmt)
    child: ast.AST = site.node
    up = parents.get(id(child))
    while up is not None and up is not site.stmt:
        if isinstance(up, ast.IfExp) and child is not up.test:
            other = up.orelse if child is up.body else up.body
            if m.mentions_availability(up.test) and _calls_cpu(other):
                return True
        child, up = up, parents.get(id(up))
    for ifnode, in_body in site.ctx.ifs:
        other_branch = ifnode.orelse if in_body else ifnode.body
        if m.mentions_availability(ifnode.test) and any(_calls_cpu(st) for st in other_branch):
            return True
    return False


def _calls_cpu(node: ast.AST) -> bool:
    return any(isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and
               x.func.attr == "cpu" for x in ast.walk(node))


# calls that may put a model or its inputs on an accelerator without naming one
_MAY_MOVE = ("to", "load", "prepare", "from_pretrained", "to_empty", "set_default_device",
             "set_default_tensor_type", "DataParallel", "DistributedDataParallel")


def _no_accelerator_in_file(ctx: Context, m: Model) -> bool:
    """Nothing in the file names an accelerator or a device (no ``cuda``/``gpu``/``device``/
    ``mps``/``xpu`` identifier, keyword or literal) or calls what may move a model there
    (``.to``, ``torch.load``, ``accelerator.prepare``...): a model called on inputs of
    unknown origin is then on the CPU (the udacity exercise notebooks)."""
    memo = m.rule_memo.setdefault(CODE, {})
    key = id(m)
    r = memo.get(key)
    if r is None:
        words = [n.id for n in ctx.nodes.get(ast.Name, ()) if isinstance(n, ast.Name)]
        words += [n.attr for n in ctx.nodes.get(ast.Attribute, ()) if isinstance(n, ast.Attribute)]
        words += [n.arg for n in ctx.nodes.get(ast.keyword, ())
                  if isinstance(n, ast.keyword) and n.arg]
        r = not m.accel_consts and not any(m.calls_by_tail.get(n) for n in _MAY_MOVE) and \
            not any(AVAIL_NAME.search(w) for w in words)
        memo[key] = r
    return r


def _list_of_device_tensors(m: Model, arg: ast.expr, site: Site) -> bool:
    """A list or tuple display holding a tensor that may be on the accelerator, or a name
    bound to one in this scope (``final = [x]``), counting the tensors ``final.append(...)``
    added to it before this point (DHCN's ``np.sum(final, 0)``).  Guessed facts do not count."""

    def device_tensor(e: ast.expr, ctx: Ctx) -> bool:
        f = m.fact(e, ctx)
        return f is not None and f.on_device and not f.guessed

    if isinstance(arg, (ast.List, ast.Tuple)):
        return any(not isinstance(e, ast.Starred) and device_tensor(e, site.ctx) for e in arg.elts)
    if isinstance(arg, ast.ListComp):  # ``[criterion(out[j], target) for j in ...]``
        return device_tensor(arg.elt, site.ctx)
    if not isinstance(arg, ast.Name):
        return False
    scope = site.ctx.scope
    b = m.binding(arg.id, scope, site.pos)
    if b is None or b.how != "expr" or not isinstance(b.value, (ast.List, ast.Tuple)):
        return False
    if any(not isinstance(e, ast.Starred) and device_tensor(e, b.ctx) for e in b.value.elts):
        return True
    for s in m.calls_by_tail.get("append", ()):
        func = s.node.func
        if s.ctx.scope is scope and s.pos < site.pos and isinstance(func, ast.Attribute) and \
                isinstance(func.value, ast.Name) and func.value.id == arg.id and \
                len(s.node.args) == 1 and m.binding(arg.id, scope, s.pos) is b and \
                device_tensor(s.node.args[0], s.ctx):
            return True
    return False


def _finding(ctx: Context, m: Model, site: Site, tensor: ast.expr, f: Fact, what: str,
             numpy_receiver: bool = False) -> Finding:
    add = ".detach().cpu()" if f.grad else ".cpu()"
    if needs_parens(tensor):
        edits = (ctx.edit(tensor, f"({m.text(tensor)}){add}"),)
    else:
        edits = (ctx.insert_after(tensor, add),)
    # ``.cpu()`` only on a value taken for a tensor: a batch item or the output of a model
    # called on inputs of unknown origin may be a list, a dict or a PIL image; and safe
    # only on a tensor by construction in this scope (an annotated parameter may be handed
    # NumPy arrays by every caller: ``.cpu()`` would raise AttributeError there)
    fix = None
    if f.kind == TENSOR and not f.guessed:
        safe = tensor_by_construction(ctx.flow, tensor, numpy_receiver)
        fix = Fix(edits, safe, f"Insert `{add}`")
    origin = "may still be on the accelerator"
    return ctx.finding(
        CODE, site.node,
        f"{what}: the tensor {origin} and NumPy only reads CPU memory; "
        f"bring it home first with `{add}`",
        fix,
    )
