"""Layers an ``nn.Module`` keeps in a plain Python container, where no module registers them.

``self.convs = [nn.Conv2d(1, 8, k) for k in (3, 4, 5)]`` in ``__init__`` builds layers with
weights, but a list is not a module: ``model.to(device)`` leaves those weights on the CPU
and ``model.parameters()`` does not list them (never trained, never saved in the state
dict).  :func:`unregistered_layers` finds such attributes of the file's module classes when
the code itself establishes it: the container is written out in ``__init__`` holding only
layer constructions (``[...]``, a comprehension, a dict of them, or ``[]`` grown with
``.append(nn.Linear(...))``), and the class names the attribute only to call its items
(``for conv in self.convs: conv(x)``, ``self.convs[0](x)``, ``[c(x) for c in self.convs]``,
also of a slice of it, ``for conv in self.convs[1:]``: a slice of a list holds the same
layers), to take ``len`` of it or to grow it -- nothing wraps it in ``nn.ModuleList``, hands it on,
moves it or registers its items (``add_module``, ``register_module``, ``setattr``), and no
other code of the file names the attribute.

>>> import ast
>>> from torchferry.check.scopes import Walker
>>> src = '''
... import torch.nn as nn
... class Net(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.convs = [nn.Conv2d(1, 8, k) for k in (3, 4)]
...     def forward(self, x):
...         return [conv(x) for conv in self.convs]
... '''
>>> [(u.attr, u.kind.value, [c.lineno for c in u.calls]) for u in unregistered_layers(Walker(ast.parse(src)))]
[('convs', 'list', [8])]
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass

from torchferry.check.flow.modclass import has_parameters, param_layer
from torchferry.check.names import self_attr
from torchferry.check.scopes import ClassInfo, Walker

#: calls on a class's ``self`` that may register anything as a submodule
_REGISTERING = frozenset({"add_module", "register_module", "setattr", "register_parameter"})


class Container(enum.Enum):
    """The plain container a module keeps its layers in."""

    LIST = "list"
    TUPLE = "tuple"
    DICT = "dict"


@dataclass(frozen=True)
class UnregisteredLayers:
    """``self.<attr>`` of the module class ``cls``: a plain container of layers with
    weights, built by ``stmt`` in ``__init__``; ``calls``: the calls of its items in the
    class's methods."""

    cls: ClassInfo
    attr: str
    kind: Container
    stmt: ast.stmt
    calls: tuple[ast.Call, ...]
    #: the ``torch.nn`` layers built into it (``Conv2d``...; None for a module class of the file)
    layers: frozenset[str | None]


def unregistered_layers(m: Walker) -> list[UnregisteredLayers]:
    """The plain containers of layers of the file's module classes (see the module's
    docstring) whose items the class calls."""
    found = []
    for stmt, _ctx, cls, attr in m.self_assigns:
        value = getattr(stmt, "value", None)
        if not cls.is_module or value is None or not isinstance(stmt, ast.Assign):
            continue
        got = _container_of_layers(m, cls, attr, value)
        if got is None:
            continue
        calls = _item_calls(m, cls, attr, stmt)
        if calls:
            kind, items = got
            layers = frozenset(param_layer(m, i) for i in items if isinstance(i, ast.Call))
            found.append(UnregisteredLayers(cls, attr, kind, stmt, tuple(calls), layers))
    return found


def _container_of_layers(m: Walker, cls: ClassInfo, attr: str,
                         value: ast.expr) -> tuple[Container, list[ast.expr]] | None:
    """The kind of container ``value`` is, and its items, when it holds layer
    constructions only."""
    if isinstance(value, (ast.List, ast.Tuple)):
        items: list[ast.expr] = list(value.elts)
        kind = Container.LIST if isinstance(value, ast.List) else Container.TUPLE
        if not items and kind is Container.LIST:
            items = _appended(cls, attr)
    elif isinstance(value, ast.ListComp):
        items, kind = [value.elt], Container.LIST
    elif isinstance(value, ast.Dict):
        items, kind = [v for v in value.values if v is not None], Container.DICT
        if len(items) != len(value.values):
            return None  # (``{**other}`` may hold anything)
    elif isinstance(value, ast.DictComp):
        items, kind = [value.value], Container.DICT
    else:
        return None
    if items and all(_weighted_layer(m, item) for item in items):
        return kind, items
    return None


def _appended(cls: ClassInfo, attr: str) -> list[ast.expr]:
    """What ``__init__`` appends to ``self.<attr>`` (``self.convs.append(nn.Conv2d(...))``)."""
    init = cls.methods.get("__init__")
    if init is None:
        return []
    return [
        call.args[0] for call in (s.node for s in init.calls)
        if isinstance(call.func, ast.Attribute) and call.func.attr == "append"
        and self_attr(call.func.value) == attr and len(call.args) == 1 and not call.keywords
    ]


def _weighted_layer(m: Walker, item: ast.expr) -> bool:
    """Is ``item`` the construction of a layer with weights: a ``torch.nn`` layer that owns
    parameters, or a module class of the file that creates some?"""
    if not isinstance(item, ast.Call):
        return False
    if param_layer(m, item) is not None:
        return True
    func = item.func
    if isinstance(func, ast.Name) and func.id in m.classes:
        other = m.classes[func.id]
        return other.is_module and has_parameters(m, other)
    return False


def _item_calls(m: Walker, cls: ClassInfo, attr: str, built: ast.stmt) -> list[ast.Call]:
    """The calls of ``self.<attr>``'s items in ``cls``, or [] where any use of the attribute
    (in the class or, by its name, anywhere else in the file) is not one of those of the
    module's docstring, or the class may register submodules by other means."""
    node = cls.node
    parents = {id(c): p for p in ast.walk(node) for c in ast.iter_child_nodes(p)}
    uses = [n for n in ast.walk(node) if self_attr(n) == attr]
    if _named_elsewhere(m.tree, node, attr) or _registers(node):
        return []  # (named outside the class, or items may be registered)
    calls: list[ast.Call] = []
    for use in uses:
        parent = parents.get(id(use))
        if parent is built or _grown(parent, parents, use):
            continue
        if isinstance(parent, ast.Subscript) and parent.value is use and \
                isinstance(parent.slice, ast.Slice):
            use, parent = parent, parents.get(id(parent))  # ``self.<attr>[1:]``: the same layers
        if _called_subscript(use, parent, parents, calls) or _len_of(use, parent):
            continue
        if not _iterated_and_called(use, parent, parents, calls):
            return []
    return calls


def _named_elsewhere(tree: ast.Module, cls: ast.ClassDef, attr: str) -> bool:
    """Does any code of the file, ``cls`` included, name ``.<attr>`` of anything but a
    ``self`` (``model.blocks``, ``other.blocks`` in a method of ``cls``)?"""
    return any(
        isinstance(n, ast.Attribute) and n.attr == attr
        and not (isinstance(n.value, ast.Name) and n.value.id == "self")
        for n in ast.walk(tree)
    )


def _registers(node: ast.ClassDef) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in _REGISTERING:
                return True
    return False


def _grown(parent: ast.AST | None, parents: dict[int, ast.AST], use: ast.AST) -> bool:
    """``self.<attr>.append(layer)`` (what :func:`_appended` read)."""
    return isinstance(parent, ast.Attribute) and parent.attr == "append" and \
        isinstance(parents.get(id(parent)), ast.Call) and parents[id(parent)].func is parent  # type: ignore[attr-defined]


def _called_subscript(use: ast.AST, parent: ast.AST | None, parents: dict[int, ast.AST],
                      calls: list[ast.Call]) -> bool:
    """``self.<attr>[k](...)``: an item called."""
    if not (isinstance(parent, ast.Subscript) and parent.value is use):
        return False
    call = parents.get(id(parent))
    if isinstance(call, ast.Call) and call.func is parent:
        calls.append(call)
        return True
    return False


def _len_of(use: ast.AST, parent: ast.AST | None) -> bool:
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
        parent.func.id == "len" and parent.args == [use]


def _iterated_and_called(use: ast.AST, parent: ast.AST | None, parents: dict[int, ast.AST],
                         calls: list[ast.Call]) -> bool:
    """``for layer in self.<attr>:`` (or a comprehension's ``for``, or ``enumerate`` /
    ``zip`` of it) whose loop variable is only ever called."""
    loop = parent
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
            parent.func.id in ("enumerate", "zip", "reversed") and use in parent.args:
        loop = parents.get(id(parent))
        via: ast.AST = parent
    else:
        via = use
    if isinstance(loop, (ast.For, ast.AsyncFor)) and loop.iter is via:
        body: list[ast.AST] = list(loop.body)
    elif isinstance(loop, ast.comprehension) and loop.iter is via:
        comp = parents.get(id(loop))
        if comp is None:
            return False
        body = [comp]
    else:
        return False
    names = _loop_names(loop.target, via, use)
    if not names:
        return False
    own = {id(t) for t in ast.walk(loop.target)}
    found = []
    for n in (x for b in body for x in ast.walk(b)):
        if isinstance(n, ast.Name) and n.id in names and id(n) not in own:
            owner = parents.get(id(n))
            if not (isinstance(owner, ast.Call) and owner.func is n):
                return False  # (the layer handed on, moved, rebound, ...)
            found.append(owner)
    calls.extend(found)
    return bool(found)


def _loop_names(target: ast.expr, via: ast.AST, use: ast.AST) -> set[str]:
    """The loop variable that takes the items: ``layer`` of ``for layer in self.x``, of
    ``for i, layer in enumerate(self.x)``, or its place in ``zip(..., self.x, ...)``."""
    if via is use or isinstance(via, ast.Call) and isinstance(via.func, ast.Name) and \
            via.func.id == "reversed":
        return {target.id} if isinstance(target, ast.Name) else set()
    assert isinstance(via, ast.Call)
    if not isinstance(target, ast.Tuple):
        return set()
    at = 1 if isinstance(via.func, ast.Name) and via.func.id == "enumerate" else \
        via.args.index(use)  # type: ignore[arg-type]
    if at >= len(target.elts) or not isinstance(target.elts[at], ast.Name):
        return set()
    return {target.elts[at].id}  # type: ignore[attr-defined]
