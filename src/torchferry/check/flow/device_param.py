"""Does a module class of the run put its weights where a constructor argument says?

``Transformer(..., device=device)`` reads as a model built on ``device``, and a rule stays
quiet about a model built so.  Many classes of research code take ``device`` only to keep
it (``self.device = device``) for the tensors their methods make (``torch.arange(n)
.to(self.device)``, ``torch.zeros(n, device=self.device)``), or to hand it on to their
submodules, which do the same: their weights stay where ``nn.Module`` made them, on the
CPU.  :func:`ignores_for_weights` answers, from the class's code alone, whether the value
bound to one parameter of ``__init__`` can place anything but such tensors: it may only be
kept on attributes of ``self`` that the methods read as the place of a tensor they make
(``.to(self.device)`` of a value not rooted at ``self``, ``device=`` of a ``torch``
factory outside ``__init__``), or handed to a class of the run whose ``__init__`` does the
same with it.  Anything else (``nn.Linear(4, 2, device=device)``, ``self.to(device)``,
``super().__init__(device)``, a base or a subclass of the run, a rebinding, an unknown
call) is taken to place the weights.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = '''
... import torch
... from torch import nn
... class Enc(nn.Module):
...     def __init__(self, n, device):
...         super().__init__()
...         self.fc = nn.Linear(n, n)
...         self.device = device
...     def forward(self, x):
...         return self.fc(x) + torch.arange(x.shape[1]).to(self.device)
... class Placed(nn.Module):
...     def __init__(self, device):
...         super().__init__()
...         self.fc = nn.Linear(4, 4, device=device)
... '''
>>> ff = FileFlow(ast.parse(src), "m.py")
>>> enc, placed = (ff.class_info(st) for st in ff.tree.body[2:])
>>> ignores_for_weights(ff, enc, "device"), ignores_for_weights(ff, placed, "device")
(True, False)
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.converted import bound_arguments, param_names

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: how many classes one question follows (the argument handed on to submodules)
_MAX_CLASSES = 8

_MOVES = frozenset({"to", "cuda"})


def ignores_for_weights(
    ff: FileFlow, cls: ClassInfo, name: str, seen: set[int] | None = None
) -> bool:
    """Does ``cls``'s ``__init__`` keep the value of its parameter ``name`` only as the place
    of tensors its methods make, never of its weights (see the module's docstring)?"""
    seen = set() if seen is None else seen
    init = cls.methods.get("__init__")
    if (
        init is None
        or cls.bases
        or id(cls.node) in seen
        or len(seen) >= _MAX_CLASSES
        or name not in param_names(init)[1:]
        or _subclassed(ff, cls)
    ):
        return False
    seen.add(id(cls.node))
    parents = _parents(init)
    kept: set[str] = set()
    for node in ast.walk(init):
        if not isinstance(node, ast.Name) or node.id != name or node is init:
            continue
        if not isinstance(node.ctx, ast.Load):
            return False  # (rebound)
        up = parents.get(id(node))
        attr = _kept_as(up, node)
        if attr is not None:
            kept.add(attr)
        elif not _handed_on(ff, parents, up, node, seen):
            return False
    return all(_read_as_tensor_place(cls, attr) for attr in kept)


def _parents(fn: ast.AST) -> dict[int, ast.AST]:
    return {id(ch): p for p in ast.walk(fn) for ch in ast.iter_child_nodes(p)}


def _subclassed(ff: FileFlow, cls: ClassInfo) -> bool:
    """Does a class of the file name ``cls`` among its bases (its ``__init__`` may use the
    value another way)?"""
    return cls.node.name in ff.base_names()


def _kept_as(up: ast.AST | None, node: ast.Name) -> str | None:
    """``self.<attr> = node``: the attribute's name."""
    if isinstance(up, ast.Assign) and up.value is node and len(up.targets) == 1:
        t = up.targets[0]
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
            return t.attr
    return None


def _handed_on(
    ff: FileFlow, parents: dict[int, ast.AST], up: ast.AST | None, node: ast.Name, seen: set[int]
) -> bool:
    """Is ``node`` an argument of a constructor of a class of the run that keeps it only
    as the place of tensors (``DecoderBlock(n, device)``)?"""
    if isinstance(up, ast.keyword):
        up = parents.get(id(up))
    if not isinstance(up, ast.Call):
        return False
    other = ff.class_called(up)
    if other is None or not other.is_module:
        return False
    init = other.methods.get("__init__")
    if init is None:
        return False
    params = param_names(init)
    bound = bound_arguments(up, params)
    index = next((i for i, a in bound.items() if a is node), None)
    return index is not None and ignores_for_weights(ff, other, params[index], seen)


def _read_as_tensor_place(cls: ClassInfo, attr: str) -> bool:
    """Is every read of ``self.<attr>`` in the class's methods the place of a tensor the
    method makes: ``x.to(self.<attr>)`` with ``x`` not rooted at ``self``, or ``device=``
    of a ``torch`` call outside ``__init__`` whose result is not kept on ``self``?"""
    for fname, fn in cls.methods.items():
        parents = _parents(fn)
        for node in ast.walk(fn):
            if not (
                isinstance(node, ast.Attribute)
                and node.attr == attr
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and isinstance(node.ctx, ast.Load)
            ):
                continue
            up = parents.get(id(node))
            if isinstance(up, ast.Call) and _a_tensor_moved(up, node, _self_locals(fn)):
                continue
            if isinstance(up, ast.keyword) and up.arg == "device" and fname != "__init__":
                call = parents.get(id(up))
                if (
                    isinstance(call, ast.Call)
                    and _torch_call(call)
                    and not _kept_on_self(parents, call)
                ):
                    continue
            return False
    return True


def _a_tensor_moved(call: ast.Call, node: ast.expr, selfish: frozenset[str]) -> bool:
    """``x.to(node)`` or ``x.cuda(node)`` with ``x`` not rooted at ``self`` nor at a local
    bound to a value rooted at ``self`` (``selfish``)."""
    f = call.func
    return (
        isinstance(f, ast.Attribute)
        and f.attr in _MOVES
        and call.args[:1] == [node]
        and not _rooted_at_self(f.value, selfish)
    )


def _self_locals(fn: ast.AST) -> frozenset[str]:
    """The names ``fn`` binds, anywhere, to a value rooted at ``self`` (``m = self.fc``), or
    more than once, or by a statement other than a plain assignment (a loop, a ``with``)."""
    stores: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    plain = {
        t.id
        for node in ast.walk(fn)
        if isinstance(node, ast.Assign) and not _rooted_at_self(node.value, frozenset({"self"}))
        for t in node.targets
        if isinstance(t, ast.Name) and stores[t.id] == 1
    }
    return frozenset(stores.keys() - plain)


def _rooted_at_self(e: ast.expr, selfish: frozenset[str] = frozenset()) -> bool:
    """Does ``e`` start from ``self``, ``super()`` or a name of ``selfish``?  (An expression
    that starts from an operation, ``(a != b).unsqueeze(1)``, computes a tensor.)"""
    while True:
        if isinstance(e, ast.Attribute | ast.Subscript | ast.Starred):
            e = e.value
        elif isinstance(e, ast.Call):
            e = e.func
        else:
            return isinstance(e, ast.Name) and e.id in ("self", "super", *selfish)


def _torch_call(call: ast.Call) -> bool:
    """A call of a ``torch`` function by its plain name (``torch.zeros``), not of
    ``torch.nn``."""
    f = call.func
    return (
        isinstance(f, ast.Attribute)
        and isinstance(f.value, ast.Name)
        and f.value.id == "torch"
        and f.attr[:1].islower()
    )


def _kept_on_self(parents: dict[int, ast.AST], call: ast.Call) -> bool:
    """May what ``call`` makes end up on ``self``: assigned to an attribute of it, or handed
    to a method of it (``self.register_buffer("pe", ...)``, ``self.w.copy_(...)``)?"""
    node: ast.AST = call
    while True:
        up = parents.get(id(node))
        if up is None or isinstance(up, ast.stmt):
            break
        if isinstance(up, ast.Call) and _rooted_at_self(up.func):
            return True
        node = up
    targets = (
        up.targets
        if isinstance(up, ast.Assign)
        else [up.target]
        if isinstance(up, ast.AnnAssign | ast.AugAssign)
        else []
    )
    return any(_rooted_at_self(t) for t in targets)
