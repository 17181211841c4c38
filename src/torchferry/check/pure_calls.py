"""What a small pure function of the run returns for the arguments a call gives it.

``def get_non_blocking(to_device): return False if to_device.type == "mps" else True``
called as ``get_non_blocking(CPU_DEVICE)``, with ``CPU_DEVICE = torch.device("cpu")``,
returns True: :func:`known_value` works that out from the code.  It knows literals
(strings, numbers, booleans, None, tuples of them), ``torch.device(...)`` of literals, a
module-level name or a class attribute bound once to one of those (and assigned nowhere
else in its file), a device's ``type`` and ``index``, comparisons, ``not`` / ``and`` /
``or``, conditional expressions, and calls of a function of the run whose body is one
``return`` of such an expression (after a docstring): a function defined at a file's top
level, or a static or class method called on its class (``TorchDevice.get_non_blocking(d)``),
not decorated otherwise.  Anything else is unknown (:data:`UNKNOWN`), never guessed.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = '''
... import torch
... CPU = torch.device("cpu")
... def nb(d):
...     "Non-blocking except towards MPS."
...     return False if d.type == "mps" else True
... x = nb(CPU)
... '''
>>> ff = analyze(ast.parse(src), "<example>")
>>> known_value(ff, ff.tree.body[-1].value)
True
>>> known_value(ff, ast.parse("nb(device)").body[0].value) is UNKNOWN
True
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from torchferry.check.flow.binding import bind, default_of
from torchferry.check.flow.converted import param_names

if TYPE_CHECKING:
    from torchferry.check.flow import FileFlow

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: how many calls deep a value is followed
_DEPTH = 4


class _Unknown:
    """The value of an expression the code does not establish."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class Device:
    """A ``torch.device`` the code writes out: its type and index."""

    type: str
    index: int | None = None


def known_value(ff: FileFlow, node: ast.expr) -> object:
    """The value of ``node`` (an expression of ``ff``'s file) as far as the code
    establishes it, or :data:`UNKNOWN`."""
    return _value(ff, node, {}, 0)


def cpu_constant(ff: FileFlow, node: ast.expr) -> bool:
    """Is ``node`` a constant the code establishes as the CPU: ``torch.device("cpu")``, or a
    module-level name or a class attribute bound once to it (``TorchDevice.CPU_DEVICE``)?"""
    v = known_value(ff, node)
    return isinstance(v, Device) and v.type == "cpu"


def _value(ff: FileFlow, node: ast.expr, env: dict[str, object], depth: int) -> object:
    if depth > _DEPTH:
        return UNKNOWN
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, (str, int, float, bool, type(None))) else UNKNOWN
    if isinstance(node, ast.Tuple):
        items = [_value(ff, e, env, depth) for e in node.elts]
        return UNKNOWN if any(i is UNKNOWN for i in items) else tuple(items)
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        bound = _module_constant(ff, node.id)
        return _value(ff, bound, {}, depth + 1) if bound is not None else UNKNOWN
    if isinstance(node, ast.Attribute):
        return _attribute(ff, node, env, depth)
    if isinstance(node, ast.Call):
        return _call(ff, node, env, depth)
    return _operator(ff, node, env, depth)


def _operator(ff: FileFlow, node: ast.expr, env: dict[str, object], depth: int) -> object:
    """Comparisons, ``not``, ``and`` / ``or`` and conditional expressions of known values."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left = _value(ff, node.left, env, depth)
        right = _value(ff, node.comparators[0], env, depth)
        return _compare(node.ops[0], left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = _value(ff, node.operand, env, depth)
        return UNKNOWN if v is UNKNOWN else not v
    if isinstance(node, ast.BoolOp):
        last: object = UNKNOWN
        for e in node.values:
            last = _value(ff, e, env, depth)
            if last is UNKNOWN or bool(last) is isinstance(node.op, ast.Or):
                return last  # (``or`` stops at a true value, ``and`` at a false one)
        return last
    if isinstance(node, ast.IfExp):
        test = _value(ff, node.test, env, depth)
        if test is UNKNOWN:
            return UNKNOWN
        return _value(ff, node.body if test else node.orelse, env, depth)
    return UNKNOWN


def _compare(op: ast.cmpop, left: object, right: object) -> object:
    """``left op right`` where both are known and of a kind Python compares plainly (a
    device only with a device)."""
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if isinstance(op, (ast.In, ast.NotIn)):
        if isinstance(right, str) and isinstance(left, str) or isinstance(right, tuple) and \
                all(isinstance(x, Device) == isinstance(left, Device) for x in right):
            return (left in right) is isinstance(op, ast.In)
        return UNKNOWN
    if isinstance(left, Device) != isinstance(right, Device):
        return UNKNOWN  # (``torch.device("cpu") == "cpu"`` is torch's business)
    if isinstance(op, ast.Eq):
        return left == right
    if isinstance(op, ast.NotEq):
        return left != right
    if isinstance(op, (ast.Is, ast.IsNot)) and (left is None or right is None or isinstance(left, bool)):
        return (left is right) is isinstance(op, ast.Is)
    return UNKNOWN


def _attribute(ff: FileFlow, node: ast.Attribute, env: dict[str, object], depth: int) -> object:
    """A device's ``type`` / ``index``, or a class attribute bound once to a constant."""
    base = node.value
    if not (isinstance(base, ast.Name) and base.id not in env and _class_of(ff, base) is not None):
        v = _value(ff, base, env, depth)
        if isinstance(v, Device) and node.attr in ("type", "index"):
            return getattr(v, node.attr)
        return UNKNOWN
    found = _class_of(ff, base)
    assert found is not None
    owner, cls = found
    bound = _class_constant(owner, cls, node.attr)
    return _value(owner, bound, {}, depth + 1) if bound is not None else UNKNOWN


def _call(ff: FileFlow, node: ast.Call, env: dict[str, object], depth: int) -> object:
    """``torch.device(...)`` of known values, or what a small pure function returns."""
    if ff.qualname(node.func) == "torch.device" and not node.keywords and 1 <= len(node.args) <= 2:
        args = [_value(ff, a, env, depth) for a in node.args]
        return _device(args)
    found = _function(ff, node.func)
    if found is None:
        return UNKNOWN
    owner, fn, first = found
    body = _returned(fn)
    binding = bind(fn, node, first) if body is not None else None
    if body is None or binding is None:
        return UNKNOWN
    names = param_names(fn)
    inner: dict[str, object] = {}
    for i, arg in binding.args.items():
        inner[names[i]] = _value(ff, arg.node, env, depth + 1)
    for i in binding.defaulted:
        default = default_of(fn.args, names[i])
        inner[names[i]] = _value(owner, default, {}, depth + 1) if default is not None else UNKNOWN
    return _value(owner, body, inner, depth + 1)


def _device(args: list[object]) -> object:
    """``torch.device("cpu")``, ``torch.device("cuda:1")``, ``torch.device("cuda", 0)``."""
    if not isinstance(args[0], str) or args[0] != args[0].strip():
        return UNKNOWN
    kind, _, index = args[0].partition(":")
    if len(args) == 2:
        if index or not isinstance(args[1], int) or isinstance(args[1], bool):
            return UNKNOWN
        return Device(kind, args[1])
    if index and not index.isdigit():
        return UNKNOWN
    return Device(kind, int(index) if index else None)


def _returned(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr | None:
    """The expression ``fn``'s body returns, where the body is that ``return`` alone (after
    a docstring) in a plain ``def``."""
    if isinstance(fn, ast.AsyncFunctionDef):
        return None
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    return body[0].value


def _named(ff: FileFlow, node: ast.expr) -> tuple[FileFlow, ast.AST] | None:
    """The function or class a name (or dotted name) of ``ff`` names in the run, defined at
    its file's top level and bound there once."""
    if isinstance(node, ast.Name) and node.id in ff.defs:
        found: tuple[FileFlow, ast.AST] | None = (ff, ff.defs[node.id])
    else:
        q = ff.qualname(node)
        found = ff.resolve(q) if q else None
    if found is None:
        return None
    owner, defn = found
    name = getattr(defn, "name", None)
    if name is None or owner.defs.get(name) is not defn or not _bound_once(owner.tree, name):
        return None
    return found


def _class_of(ff: FileFlow, node: ast.expr) -> tuple[FileFlow, ast.ClassDef] | None:
    found = _named(ff, node)
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    return found[0], found[1]


def _function(ff: FileFlow, func: ast.expr) -> tuple[FileFlow, ast.FunctionDef | ast.AsyncFunctionDef, int] | None:
    """The function a call names, undecorated at a file's top level (first parameter bound
    by the call: 0), or a ``@staticmethod`` (0) / ``@classmethod`` (1) called on its class."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        cls = _class_of(ff, func.value)
        if cls is not None:
            return _class_method(cls[0], cls[1], func.attr)
    found = _named(ff, func)
    if found is None or not isinstance(found[1], _FUNCS) or found[1].decorator_list:
        return None
    return found[0], found[1], 0


def _class_method(owner: FileFlow, cls: ast.ClassDef,
                  name: str) -> tuple[FileFlow, ast.FunctionDef | ast.AsyncFunctionDef, int] | None:
    defs = [st for st in cls.body if isinstance(st, (*_FUNCS, ast.Assign, ast.AnnAssign))
            and (getattr(st, "name", None) == name or _assigns(st, name))]
    if len(defs) != 1 or not isinstance(defs[0], _FUNCS) or len(defs[0].decorator_list) != 1:
        return None
    fn = defs[0]
    deco = fn.decorator_list[0]
    if not isinstance(deco, ast.Name) or deco.id not in ("staticmethod", "classmethod") or cls.bases:
        return None  # (a subclass or a base may define it again: only a class of its own)
    return owner, fn, 0 if deco.id == "staticmethod" else 1


def _assigns(st: ast.stmt, name: str) -> bool:
    targets = st.targets if isinstance(st, ast.Assign) else [getattr(st, "target", None)]
    return any(isinstance(t, ast.Name) and t.id == name for t in targets)


def _module_constant(ff: FileFlow, name: str) -> ast.expr | None:
    """The value of a module-level ``name = value``, the file's only binding of ``name``."""
    found = [st for st in ff.tree.body if isinstance(st, ast.Assign) and len(st.targets) == 1
             and _assigns(st, name)]
    if len(found) != 1 or not _bound_once(ff.tree, name, assigned=1):
        return None
    return found[0].value


def _class_constant(owner: FileFlow, cls: ast.ClassDef, attr: str) -> ast.expr | None:
    """The value of ``attr = value`` in ``cls``'s body, where nothing else in the file binds
    ``attr`` (no other such line, no ``X.attr = ...`` anywhere, ``cls.attr`` included)."""
    found = [st for st in cls.body if isinstance(st, ast.Assign) and len(st.targets) == 1
             and _assigns(st, attr)]
    if len(found) != 1 or any(isinstance(st, _FUNCS) and st.name == attr for st in cls.body):
        return None
    for n in ast.walk(owner.tree):
        if isinstance(n, ast.Attribute) and n.attr == attr and not isinstance(n.ctx, ast.Load):
            return None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr":
            return None
    return found[0].value


def _bound_once(tree: ast.Module, name: str, assigned: int = 0) -> bool:
    """Is ``name`` bound in the file only by its ``def`` / ``class`` (``assigned`` = 0) or
    only by ``assigned`` assignments (and never declared ``global`` in a function)?"""
    defs = stores = 0
    for n in ast.walk(tree):
        if isinstance(n, (*_FUNCS, ast.ClassDef)) and n.name == name:
            defs += 1
        elif isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            stores += 1
        elif isinstance(n, ast.alias) and (n.asname or n.name).split(".")[0] == name:
            return False
        elif isinstance(n, ast.Global) and name in n.names or isinstance(n, ast.arg) and n.arg == name:
            return False  # (a parameter of that name hides it where it is bound)
    return (defs, stores) == ((1, 0) if not assigned else (0, assigned))
