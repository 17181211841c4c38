"""Calls of a module that Python refuses, and the code after them that never runs.

``model(x, exact_trace=True)`` where no ``forward`` of the classes the model may be has
a parameter ``exact_trace`` (nor ``**kwargs``) raises ``TypeError`` before the module
computes anything: ``nn.Module.__call__`` hands its arguments to ``forward`` as they
are.  The statements after the call's in its block (and what they hold) are never
reached, so nothing they do can fail on a device.  The classes are every one the run
may build the module with (:func:`~torchferry.check.flow.passed_classes.passed_classes`);
a class of its own ``__call__``, a ``forward`` of a decorator, a call spreading ``*args``
or ``**kwargs`` (what they hold is not written out) refuses nothing.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.binding import bind
from torchferry.check.flow.events import Callee
from torchferry.check.flow.passed_classes import passed_classes

if TYPE_CHECKING:
    from torchferry.check.flow.events import CallEvent, ScopeResult
    from torchferry.check.flow.program import FileFlow

_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)


def refused_statements(ff: FileFlow, res: ScopeResult) -> list[ast.stmt]:
    """The statements of ``res`` whose whole value is a module call every class of the
    module refuses (:func:`refused`): ``out, trace = model(x, exact_trace=True)``."""
    calls = {id(c.node): c for c in res.calls.values()
             if c.callee in (Callee.MODULE, Callee.UNRESOLVED)
             and not any(isinstance(a, ast.Starred) for a in c.node.args)
             and not any(k.arg is None for k in c.node.keywords)}
    if not calls:
        return []
    out: list[ast.stmt] = []
    for st in _own_statements(res.node):
        c = calls.get(id(st.value)) if isinstance(st, _STATEMENTS) and st.value is not None else None
        if c is not None and refused(ff, res, c):
            out.append(st)
    return out


def refused(ff: FileFlow, res: ScopeResult, c: CallEvent) -> bool:
    """Does Python refuse the module call ``c`` of ``res``: every class of the run the
    called value may be is a module whose ``forward`` cannot bind the call's arguments
    (:func:`~torchferry.check.flow.binding.bind`), none defining its own ``__call__``?"""
    classes = passed_classes(ff, res, c.func)
    if not classes:
        return False
    for info in classes:
        forward = info.method("forward")
        if not info.is_module or info.method("__call__") is not None or forward is None:
            return False
        fn = forward[1]
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.decorator_list \
                or bind(fn, c.node, first=1) is not None:
            return False
    return True


def after_one(fn: ast.AST, refused_at: list[ast.stmt], node: ast.AST) -> ast.stmt | None:
    """The statement of ``refused_at`` that ``node``, a node of the function ``fn``, comes
    after in the same block (itself or a statement holding it): that statement raises, so
    ``node`` is never reached.  None when there is none."""
    if not refused_at:
        return None
    chain = _ancestors(fn, node)
    if chain is None:
        return None
    wanted = {id(st): st for st in refused_at}
    for parent, child in zip(chain, chain[1:], strict=False):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if not isinstance(block, list) or not any(s is child for s in block):
                continue
            at = next(i for i, s in enumerate(block) if s is child)
            hit = next((s for s in block[:at] if id(s) in wanted), None)
            if hit is not None:
                return hit
    return None


def _ancestors(fn: ast.AST, node: ast.AST) -> list[ast.AST] | None:
    """The nodes from ``fn`` down to ``node``, both included; None when ``node`` is not
    in ``fn``."""
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(fn, [fn])]
    while stack:
        cur, path = stack.pop()
        if cur is node:
            return path
        for child in ast.iter_child_nodes(cur):
            stack.append((child, [*path, child]))
    return None


def _own_statements(fn: ast.AST) -> list[ast.stmt]:
    """The statements of ``fn``, not of the functions and classes nested in it, in the
    order of a depth-first walk of its nodes (the last child first).  Only the blocks are
    walked: no expression holds a statement.

    >>> tree = ast.parse("def f(x):\\n    if x:\\n        y = 1\\n    else:\\n        def g(): pass\\n    return y\\n")
    >>> [type(s).__name__ for s in _own_statements(tree.body[0])]
    ['Return', 'If', 'Assign']
    """
    out: list[ast.stmt] = []
    stack = _blocks_of(fn)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(n, ast.stmt):
            out.append(n)
        stack.extend(_blocks_of(n))
    return out


#: the nodes that hold statements: statements, ``except`` clauses and ``case`` clauses
_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _blocks_of(node: ast.AST) -> list[ast.AST]:
    """The statements and clauses among ``node``'s children, in :func:`ast.iter_child_nodes`'
    order."""
    out: list[ast.AST] = []
    for field in node._fields:
        v = getattr(node, field, None)
        if type(v) is list:
            out.extend(x for x in v if isinstance(x, _HOLDERS))
    return out
