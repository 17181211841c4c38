"""Tensor attribute of an `nn.Module` that is neither a parameter nor a buffer.

## What it does
Flags `self.x = <tensor>` in the `__init__` of an `nn.Module` subclass, where the value is
a tensor the module creates (`torch.zeros(...)`, `torch.tensor(...)`, `torch.arange(...)`,
`torch.from_numpy(...)` or an expression on those) and is neither an `nn.Parameter` nor
registered with `self.register_buffer`.

## Why is this bad
`model.to(device)` moves parameters and buffers -- and nothing else. A plain tensor
attribute stays on the CPU while the rest of the model goes to the GPU, and `forward`
fails with "Expected all tensors to be on the same device" the first time it uses it.
It is also missing from `state_dict()`, so it is not saved with the model.

## Example
```python
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.mask = torch.tril(torch.ones(8, 8))
```

## Use instead
```python
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(8, 8)), persistent=False)
```

## Fix safety
Unsafe: the fix registers a non-persistent buffer, so `model.to()` moves it and existing
checkpoints still load (it does not enter `state_dict`; drop `persistent=False` if it should
be saved). It fails if the statement runs before `super().__init__()`, and later
assignments to the attribute must then be tensors (or `None`).

An attribute that the class itself moves where it uses it (`self.alpha.to(x.device)`,
`self.bbox.view(...).to(x.device)`, `(self.feats if f is None else f).type_as(x)`) is
carried by hand on purpose and not flagged.

Neither is a tensor created with an explicit `device=` (placed where the author chose).

## Known limits
Only tensors created in `__init__` are checked, and an attribute registered as a buffer
anywhere in the file (e.g. by a base class) is accepted; a tensor passed in as an argument and
stored is not flagged, nor are attributes set in other methods. Base classes defined in
other files are recognised only when their name ends in `Module` or they come from
`torch.nn`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchferry.check.analysis import TENSOR, ClassInfo, Model, kwarg, short
from torchferry.check.api import Context, Finding, Fix

CODE = "FRY011"
NAME = "unregistered-tensor-attribute"
FIX = "unsafe"


def check(ctx: Context) -> Iterable[Finding]:
    m: Model = ctx.model
    registered: dict[int, set[str]] = {}
    for stmt, sctx, cls, attr in m.self_assigns:
        if not cls.is_module:
            continue
        value = getattr(stmt, "value", None)
        if value is None:
            continue
        f = m.fact(value, sctx)
        if f is None or f.kind != TENSOR or not f.made:
            continue
        if isinstance(value, ast.Call) and any(k.arg is None for k in value.keywords):
            continue  # ``**factory_kwargs`` may carry the device
        regs = registered.get(id(cls))
        if regs is None:
            regs = registered[id(cls)] = _registered_names(m, cls.node)
        if attr in regs or attr in _moved_where_used(m, cls):
            continue
        if isinstance(value, ast.Call) and kwarg(value, "device") is not None:
            continue  # created where the author chose (``device=next(model.parameters()).device``)
        fix = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            self_name = sctx.scope.self_name
            fix = Fix((ctx.edit(stmt, f'{self_name}.register_buffer("{attr}", {m.text(value)}, '
                                      'persistent=False)'),), False,
                      f'Register it: `self.register_buffer("{attr}", ...)`')
        yield ctx.finding(
            CODE, stmt,
            f"`self.{attr} = {short(m.text(value), 40)}` is a plain tensor attribute: "
            f"`model.to(device)` leaves it behind on the CPU and `state_dict()` omits it; "
            f'register it: `self.register_buffer("{attr}", ...)` (or make it an `nn.Parameter`)',
            fix,
        )


def _moved_where_used(m: Model, cls: ClassInfo) -> set[str]:
    """Attributes the class itself moves where it uses them: ``self.alpha.to(x.device)``,
    ``self.feats.type_as(x)``, ``self.t.cuda()`` -- the author chose to carry them by hand."""
    names: set[str] = set()
    for meth in ("to", "type_as", "cuda"):
        for s in m.calls_by_tail.get(meth, ()):
            func = s.node.func
            if s.ctx.scope.cls is not cls or not isinstance(func, ast.Attribute):
                continue
            self_name = s.ctx.scope.self_name
            # ``self.t.to(...)``, ``self.bbox.view(...).to(...)``,
            # ``(self.feats if feats is None else feats).type_as(x)``
            for n in ast.walk(func.value):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and \
                        n.value.id == self_name:
                    names.add(n.attr)
    return names


def _registered_names(m: Model, cls: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    # anywhere in the file: a base class may register the buffer a subclass assigns
    for meth in ("register_buffer", "register_parameter"):
        for s in m.calls_by_tail.get(meth, ()):
            call = s.node
            if call.args and isinstance(call.args[0], ast.Constant):
                names.add(str(call.args[0].value))
    return names
