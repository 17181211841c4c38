"""The calls of a function that another file hands to a function of the run as an argument.

``run_train(model, loss_func, metric_func, ..., validate_epoch=validate_epoch_burgers)``
in ``ex1_burgers.py``, where ``run_train`` (a function of the run) does nothing with its
parameter ``validate_epoch`` but call it, ``validate_epoch(model, metric_func,
valid_loader, device)``: each such call is a call of ``validate_epoch_burgers``, its
arguments bound to that function's parameters.  A file that names a function other than
in a call hid its calls (:meth:`Project.foreign_calls
<torchferry.check.flow.project.Project.foreign_calls>` gives up); where every such name is
this hand-off, :func:`handed_calls` gives those calls back, so that what a parameter of
the function is can be asked of every call of the run, as for a direct call.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.converted import param_names
from torchferry.check.flow.lattice import Value

if TYPE_CHECKING:
    from torchferry.check.flow.events import CallEvent, ScopeResult
    from torchferry.check.flow.program import FileFlow
    from torchferry.check.flow.project import ForeignCall, Project

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def handed_calls(project: Project, other: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                 refs: set[int]) -> list[ForeignCall] | None:
    """Every call of ``fn`` that the names ``refs`` of the file ``other`` (interpreted
    whole) hand on: each is an argument, by position or by keyword, of a call of
    ``other`` resolved to a function ``g`` of the run defined at its file's top level,
    whose parameter it binds is only ever called in ``g`` itself (never read otherwise,
    rebound or used in a nested scope); then each call of that parameter in ``g`` is a
    call of ``fn``, with its arguments bound by ``fn``'s parameters.  None when one name
    is anything else, or a call spreads ``*args``/``**kwargs``."""
    params = param_names(fn)
    out: list[ForeignCall] = []
    for ref in refs:
        found = _handed_to(project, other, ref)
        if found is None:
            return None
        gff, g, j = found
        calls = _calls_of_param(gff, g, j)
        if calls is None:
            return None
        for res, c in calls:
            bound = _bound(c, params)
            if bound is None:
                return None
            out.append((gff, res, id(c.node), bound))
    return out


def _handed_to(project: Project, other: FileFlow, ref: int
               ) -> tuple[FileFlow, ast.FunctionDef | ast.AsyncFunctionDef, int] | None:
    """The function of the run (its file, itself) and the number of its parameter that the
    argument ``ref`` of a call of ``other`` binds, or None."""
    sites = [(key, call_id, res) for key, found in other.calls_into.items() for call_id, (res, _) in found.items()]
    local = [((other.path, getattr(g, "name", ""), getattr(g, "lineno", 0)), call_id, res)
             for g in other.defs.values() for call_id, (res, _) in other.call_sites.get(id(g), {}).items()]
    for (path, name, line), call_id, res in sites + local:
        c = res.calls.get(call_id)
        at = _position(c.node, ref) if c is not None else None
        if at is None:
            continue
        gff = other if path == other.path else project.file_flow(path)
        g = gff.defs.get(name) if gff is not None else None
        if gff is None or not isinstance(g, _FUNCS) or g.lineno != line or g.decorator_list:
            return None
        params = param_names(g)
        j = at if isinstance(at, int) else params.index(at) if at in params else None
        if j is None or j >= len(params) or g.args.vararg is not None and j >= len(g.args.posonlyargs + g.args.args):
            return None
        return gff, g, j
    return None


def _position(call: ast.Call, ref: int) -> int | str | None:
    """Where ``call`` takes the node ``ref``: its position (before any ``*args``), or its
    keyword; None when it is not one of its arguments."""
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return None
        if id(a) == ref:
            return i
    return next((k.arg for k in call.keywords if id(k.value) == ref and k.arg is not None), None)


def _calls_of_param(gff: FileFlow, g: ast.FunctionDef | ast.AsyncFunctionDef, j: int
                    ) -> list[tuple[ScopeResult, CallEvent]] | None:
    """The calls of ``g``'s parameter ``j`` in ``g``'s interpretation, when every other
    use of its name in ``g`` is none of a read, a binding or a nested scope's; else None."""
    name = param_names(g)[j]
    called: set[int] = set()
    for node in ast.walk(g):
        if node is not g and isinstance(node, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)):
                return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            called.add(id(node.func))
    names = [n for n in ast.walk(g) if isinstance(n, ast.Name) and n.id == name]
    if any(id(n) not in called for n in names):
        return None
    res = gff.result(g)
    calls = [c for c in res.calls.values() if id(c.node.func) in called]
    return [(res, c) for c in calls] if len(calls) == len(called) else None


def _bound(c: CallEvent, params: tuple[str, ...]) -> dict[str, Value] | None:
    """The arguments of the call ``c`` by the number of the parameter of ``params`` each
    binds; None when it spreads ``*args`` or ``**kwargs``, or names no such parameter."""
    if any(isinstance(a, ast.Starred) for a in c.node.args) or len(c.args) > len(params):
        return None
    bound = {str(k): a for k, a in enumerate(c.args)}
    for k, v in c.keywords:
        if k not in params:
            return None
        bound[str(params.index(k))] = v
    return bound
