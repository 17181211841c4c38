"""Functions of the run that read a checkpoint with the ``map_location`` a parameter gives.

``def load(path, map_location=None): return torch.load(path, map_location)`` passes its
parameter on: a call ``load(p)`` that leaves it to its default None runs ``torch.load``
without ``map_location``.  :func:`wrapped_load` says whether a function of the run is such
a wrapper -- directly, or through another one it hands the parameter to (by position or by
keyword, as Python binds it) -- and which parameter it is.  Only where the parameter
defaults to None, is never rebound in the function and is read nowhere else (no test
``if map_location is None:`` choosing another value), and the function is not decorated
(a decorator may bind the call otherwise).

>>> import ast
>>> tree = ast.parse("import torch\\ndef load(f, map_location=None):\\n"
...                  "    return torch.load(f, map_location)\\n")
>>> fn = tree.body[1]
>>> _map_param(fn, tree.body[1].body[0].value, lambda n: "torch.load")
'map_location'
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from torchferry.check.api import Evidence
from torchferry.check.flow.binding import default_of
from torchferry.check.flow.converted import param_names
from torchferry.check.flow.libfacts import checkpoint_load
from torchferry.check.names import kwarg

if TYPE_CHECKING:
    from torchferry.check.api import Context
    from torchferry.check.flow import FileFlow

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: how many wrappers deep a load is followed
_DEPTH = 3


@dataclass(frozen=True)
class WrappedLoad:
    """A function that loads with its parameter ``param`` (index ``index`` among
    :func:`param_names`) as ``map_location``; ``steps``: where it hands the parameter on,
    down to the load itself (the last step)."""

    param: str
    index: int
    steps: tuple[Evidence, ...]


def callee(ff: FileFlow, call: ast.Call) -> tuple[FileFlow, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The function of the run defined at a file's top level that ``call`` names
    (``load(p)``, ``serialization.load(p)``), with the file that defines it."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in ff.defs:
        found: tuple[FileFlow, ast.AST] | None = (ff, ff.defs[func.id])
    elif isinstance(func, (ast.Name, ast.Attribute)):
        q = ff.qualname(func)
        found = ff.resolve(q) if q else None
    else:
        return None
    if found is None:
        return None
    owner, fn = found
    if not isinstance(fn, _FUNCS) or owner.defs.get(fn.name) is not fn:
        return None
    return owner, fn


def wrapped_load(ctx: Context, owner: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                 depth: int = 0) -> WrappedLoad | None:
    """The parameter of ``fn`` (defined at the top level of ``owner``) that it passes as the
    ``map_location`` of a checkpoint load, itself or through another such function; None
    when there is none (see the module docstring)."""
    memo = _MEMO.setdefault(owner, {})
    key = (id(fn), id(ctx.flow))  # (the evidence names the files the checked one is not)
    if key in memo:
        return memo[key]
    memo[key] = None  # (a recursive wrapper ends here)
    found = _find(ctx, owner, fn, depth) if depth < _DEPTH and not fn.decorator_list else None
    memo[key] = found
    return found


#: :func:`wrapped_load`'s answers per file's analysis (dropped with it)
_MEMO: weakref.WeakKeyDictionary[FileFlow, dict[tuple[int, int], WrappedLoad | None]] = weakref.WeakKeyDictionary()


def _find(ctx: Context, owner: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef,
          depth: int) -> WrappedLoad | None:
    octx = ctx if owner is ctx.flow else ctx.of_file(owner)
    for call in _own_calls(fn):
        param = _map_param(fn, call, owner.qualname)
        if param is not None:
            if _exempt(octx, call):
                continue
            shown = octx.text(call.func)
            step = _at(octx, owner, ctx, call, f"`{shown}(...)` here loads with `map_location={param}`")
            return _if_passed_only(fn, param, (step,))
        inner = callee(owner, call)
        if inner is None:
            continue
        down = wrapped_load(ctx, inner[0], inner[1], depth + 1)
        if down is None:
            continue
        param = _passed_as(fn, call, inner[1], down.index)
        if param is not None:
            step = _at(octx, owner, ctx, call,
                       f"`{param}` is passed on here as `{inner[1].name}`'s `{down.param}`")
            return _if_passed_only(fn, param, (step, *down.steps))
    return None


def _own_calls(fn: ast.AST) -> Iterator[ast.Call]:
    """The calls in ``fn``'s body, not in functions, lambdas or classes nested in it."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        if isinstance(n, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.Call):
            yield n
        stack.extend(ast.iter_child_nodes(n))


def _map_param(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call,
               qualname: Callable[[ast.AST], str | None]) -> str | None:
    """The parameter of ``fn`` defaulting to None that ``call``, a checkpoint load, is given
    as its ``map_location`` (by keyword, or at its position with no ``*args`` before)."""
    fact = checkpoint_load(qualname(call.func))
    if fact is None:
        return None
    arg = kwarg(call, "map_location")
    if arg is None and len(call.args) > fact.map_at and \
            not any(isinstance(a, ast.Starred) for a in call.args[:fact.map_at + 1]):
        arg = call.args[fact.map_at]
    if not isinstance(arg, ast.Name) or not _defaults_to_none(fn, arg.id):
        return None
    return arg.id


def _passed_as(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call,
               inner: ast.FunctionDef | ast.AsyncFunctionDef, index: int) -> str | None:
    """The parameter of ``fn`` defaulting to None that ``call`` binds to ``inner``'s
    parameter ``index`` (a ``**kw`` spread cannot bind it again: Python refuses that)."""
    names = param_names(inner)
    target = names[index]
    arg = next((k.value for k in call.keywords if k.arg == target), None)
    positional = len(inner.args.posonlyargs) + len(inner.args.args)
    if arg is None and index < positional and len(call.args) > index and \
            not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        arg = call.args[index]
    if not isinstance(arg, ast.Name) or not _defaults_to_none(fn, arg.id):
        return None
    return arg.id


def _defaults_to_none(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Is ``name`` a parameter of ``fn`` whose default is None?"""
    d = default_of(fn.args, name)
    return isinstance(d, ast.Constant) and d.value is None


def _if_passed_only(fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str,
                    steps: tuple[Evidence, ...]) -> WrappedLoad | None:
    """The wrapped load, where ``param`` is never rebound in ``fn`` and read only where it
    is passed on (as a load's ``map_location`` or another wrapper's argument)."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and n.id == param and not isinstance(n.ctx, ast.Load):
            return None
        if isinstance(n, (ast.Global, ast.Nonlocal)) and param in n.names:
            return None
    reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == param]
    passed = [n for c in _own_calls(fn) for n in [*c.args, *(k.value for k in c.keywords)]
              if isinstance(n, ast.Name) and n.id == param]
    if len(reads) != len(passed) or any(isinstance(n, _FUNCS) and n is not fn
                                        and param in param_names(n) for n in ast.walk(fn)):
        return None
    return WrappedLoad(param, param_names(fn).index(param), steps)


def _exempt(octx: Context, call: ast.Call) -> bool:
    """Is the wrapper's load one FRY004 keeps quiet on where it stands (a dataset's method,
    an XLA-only path, a load under a test on the accelerator)?"""
    from torchferry.check.loads import dataset_method, device_chosen, xla_only

    m = octx.syntax
    tail = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    site = next((s for s in m.calls_by_tail.get(tail, ()) if s.node is call), None)
    return site is None or dataset_method(m, site) or xla_only(m, site) or device_chosen(m, site)


def _at(octx: Context, owner: FileFlow, ctx: Context, node: ast.AST, message: str) -> Evidence:
    """An evidence step at ``node`` of ``owner`` (its path named when not the checked file)."""
    line, col, _, _ = octx.span(node)
    ev = Evidence(message, line, col)
    return ev if octx is ctx else replace(ev, path=owner.path)
