"""A layer with parameters constructed inside `forward` (or a Lightning `*_step`).

## What it does
Flags the construction of an `nn.Module` layer that has parameters or buffers
(`nn.Linear`, `nn.Conv2d`, `nn.BatchNorm2d`, `nn.LayerNorm`, `nn.Embedding`, `nn.LSTM`,
`nn.MultiheadAttention`..., or a module class of the same file whose `__init__` creates
such layers or an `nn.Parameter`) inside the `forward` method of an `nn.Module`
subclass, or inside `training_step` / `validation_step` / `test_step` / `predict_step`
of a `LightningModule`, or inside a method of the class that one of those calls on `self`
(`self.decode(x)`, to any depth; an override in a subclass is the one that runs, so a
base's `forward` calling `self.decode` reaches the subclass's `decode`), or inside a
module-level function of the same file that one of those calls by name
(`return output_head(x, self.num_tokens)`, to any depth).

## Why is this bad
The layer is made anew on every call: its weights are fresh random numbers each time, the
optimizer (built from `model.parameters()` before the first call) never sees them, so they
never learn, and they are created on the CPU, so `model.to(device)` cannot move them -- on
a GPU the call fails with "Input type (torch.cuda.FloatTensor) and weight type
(torch.FloatTensor) should be the same", or, with `.to(x.device)` added, silently trains
nothing and pays an allocation and a host-to-device copy per call.

## Example
```python
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3)

    def forward(self, x):
        head = nn.Linear(32, 10)
        return head(self.conv1(x).mean((2, 3)))
```

## Use instead
```python
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.conv1(x).mean((2, 3)))
```

## Fix safety
No fix: where the layer belongs (and how big it is) needs the author.

## Known limits
Layers without parameters (`nn.ReLU()`, `nn.Dropout()`, `nn.MaxPool2d()`, `nn.Flatten()`,
`nn.Upsample()`...) are not flagged: making them per call is wasteful but harmless. A
construction under an `if` that tests for `None`, `hasattr`/`getattr` or an attribute of
`self` (a lazy, once-only initialisation such as `if self.proj is None:`, or a lookup
in a mapping kept elsewhere, `if key not in _LAYERS:`) is not flagged, nor are modules
built by classes from other files, nor by functions that only `__init__` (or no step)
calls (`self.body = make_layer(...)`). A method is followed only through calls on `self`
in the same file, a function only through a call by its name where the file binds that
name once (not through a base class of another file, a nested function, a function of
another file, a call under such a guard, or into a decorated method or function, which
may cache its result: `@singleton("projector")`, `@lru_cache`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import replace

from torchferry.check.api import Context, Finding
from torchferry.check.flow.evidence import at
from torchferry.check.flow.modclass import has_parameters, param_layer
from torchferry.check.scopes import ClassInfo, Scope, ScopeKind, Site, Walker

CODE = "FRY015"
NAME = "module-in-forward"
FIX = "none"

STEP_METHODS = ("forward", "training_step", "validation_step", "test_step", "predict_step")


def _lazy_guard(site: Site[ast.Call], self_name: str | None) -> bool:
    """Is the construction under an ``if`` that makes it a once-only initialisation?"""
    for if_stmt, _in_body in site.ctx.ifs:
        for node in ast.walk(if_stmt.test):
            if isinstance(node, ast.Constant) and node.value is None:
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in ("hasattr", "getattr", "isinstance"):
                return True
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id == (self_name or "self"):
                return True
            if isinstance(node, ast.Compare) and _cache_test(node):
                return True
    return False


def _cache_test(node: ast.Compare) -> bool:
    """``key not in _LAYERS`` (a lookup in a mapping kept elsewhere: a cache filled once),
    not ``kind in ("a", "b")`` (a choice among values written out)."""
    return any(isinstance(op, (ast.In, ast.NotIn)) and
               not isinstance(right, (ast.Tuple, ast.List, ast.Set, ast.Constant))
               for op, right in zip(node.ops, node.comparators, strict=True))


def _lookup(m: Walker, cls: ClassInfo, name: str, seen: set[str] | None = None) -> Scope | None:
    """The method ``name`` as an instance of ``cls`` finds it: its own, else a base's of
    the same file (depth first, as Python's MRO does for single inheritance)."""
    scope = cls.methods.get(name)
    if scope is not None:
        return scope
    seen = seen if seen is not None else set()
    seen.add(cls.name)
    for b in cls.bases:
        base = m.classes.get(b)
        if base is not None and b not in seen:
            found = _lookup(m, base, name, seen)
            if found is not None:
                return found
    return None


def _self_name(scope: Scope) -> str | None:
    """The name a method gives its instance (None for a function outside a class)."""
    fn = scope.function
    return fn.args.args[0].arg if fn is not None and fn.args.args and scope.cls is not None else None


def _reached(m: Walker, cls: ClassInfo) -> list[tuple[Scope, str, tuple[ast.Call, ...]]]:
    """The step methods of ``cls`` (its own or inherited) and every method of the class
    they call on ``self`` (``self.decode(x)``, to any depth, resolved on ``cls``: an
    override in a subclass is the one that runs), and every module-level function of the
    file they call by name (``output_head(x, n)``), each with the step it runs in.  A call
    under a once-only guard (``if self.head is None: self._build()``) does not count."""
    out: list[tuple[Scope, str, tuple[ast.Call, ...]]] = []
    funcs = _module_functions(m)
    seen: set[int] = set()
    todo: list[tuple[Scope, str, tuple[ast.Call, ...]]] = []
    for step in STEP_METHODS:
        scope = _lookup(m, cls, step)
        if scope is not None:
            todo.append((scope, step, ()))
    while todo:
        scope, step, path = todo.pop(0)
        if id(scope) in seen:
            continue
        seen.add(id(scope))
        out.append((scope, step, path))
        self_name = _self_name(scope)
        for site in scope.calls:
            func = site.node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                    func.value.id == self_name and func.attr != "__init__" and \
                    site.ctx.scope is scope and not _lazy_guard(site, self_name):
                callee = _lookup(m, cls, func.attr)
            else:
                callee = _callee(m, funcs, scope, site, self_name)
            fn = callee.function if callee is not None else None
            if callee is not None and fn is not None and not fn.decorator_list:
                # (a decorated function may run once: ``@singleton("projector")`` caches it)
                todo.append((callee, step, (*path, site.node)))
    return out


def _callee(m: Walker, funcs: dict[str, Scope], scope: Scope, site: Site[ast.Call],
            self_name: str | None) -> Scope | None:
    """The function of the file that ``site`` calls from ``scope``: a method of the class
    called on ``self`` (resolved on the instance's class by the caller), or a module-level
    function called by its name (``output_head(x, n)``) where the file binds that name once
    and no function around the call binds it.  None for any other call, or one under a
    once-only guard."""
    func = site.node.func
    if site.ctx.scope is not scope or _lazy_guard(site, self_name):
        return None
    if isinstance(func, ast.Name):
        if _bound_in_function(scope, func.id) or len(m.module_scope.binds.get(func.id, ())) != 1:
            return None
        return funcs.get(func.id)
    return None


def _module_functions(m: Walker) -> dict[str, Scope]:
    """The file's module-level functions by name."""
    return {f.name: f for f in m.functions if f.parent is m.module_scope}


def _bound_in_function(scope: Scope, name: str) -> bool:
    """Does ``scope`` or a function around it bind ``name`` (``for i, (code, GBlock) in
    enumerate(zip(codes, self.GBlock))``, a comprehension's target)?  Then ``name(...)``
    calls that local value, not the file's class of the same name."""
    s: Scope | None = scope
    while s is not None and s.kind is ScopeKind.FUNCTION:
        if name in s.binds or any(name in names for _, _, names, _, _ in s.comps):
            return True
        s = s.parent
    return False


def check(ctx: Context) -> Iterable[Finding]:
    m = ctx.syntax
    done: set[int] = set()
    for cls in m.class_list:
        if not cls.is_module:
            continue
        for scope, step, path in _reached(m, cls):
            fn = scope.function
            method = fn.name if fn is not None else step
            self_name = _self_name(scope)
            for site in scope.calls:
                call = site.node
                if site.ctx.scope is not scope or id(call) in done:
                    continue  # a nested function or class: it may run once
                layer = param_layer(m, call)
                if layer is None and isinstance(call.func, ast.Name) and \
                        not _bound_in_function(scope, call.func.id):
                    other = m.classes.get(call.func.id)
                    if other is not None and other.is_module and has_parameters(m, other):
                        layer = other.name
                if layer is None or _lazy_guard(site, self_name):
                    continue
                done.add(id(call))
                where = f"`{method}`" if method == step else f"`{method}` (which `{step}` calls)"
                f = ctx.finding(
                    CODE,
                    call,
                    f"`{layer}(...)` is constructed inside {where}: every call makes new, "
                    "untrained parameters on the CPU that the optimizer never sees and "
                    "`model.to(device)` cannot move; create it once in `__init__` "
                    f"(`self.{layer.lower()} = {layer}(...)`) and use it here",
                )
                if path:  # the calls from the step to this method
                    steps = tuple(at(ctx, c, f"`{step}` reaches `{ctx.text(c.func)}(...)` here")
                                  for c in path)
                    f = replace(f, evidence=(*steps, at(ctx, call, f"`{layer}(...)` is built here")))
                yield f
