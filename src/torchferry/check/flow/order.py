"""The order of two points of a run: can what happens at one (a move of a module) have
happened before the other (a call of the module, a tensor meeting its weights)?

A point is a node of a scope (a function, or a file's top level).  Inside one scope the
order is that of the code: a node on a later line than another comes after it, unless a
loop of the scope holds both (the later one acts on the loop's next rounds).  Between two
scopes the points are lifted to the calls that run them (:class:`Callers` says who calls a
scope) until both stand in the same invocation of one scope; a point whose scope has
callers the analysis cannot all know (another file may call it, it is handed on as a
value, it is run by ``nn.Module.__call__``) lifts nowhere, and the order is then unknown.

>>> src = "def f(m, x):\\n    y = m(x)\\n    m.cuda()\\n"
>>> fn = ast.parse(src).body[0]
>>> use, move = fn.body[0].value, fn.body[1].value
>>> surely_after(Point(fn, move), Point(fn, use), lambda scope: [])
True
>>> surely_after(Point(fn, use), Point(fn, move), lambda scope: [])
False
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import NamedTuple

from torchferry.check.flow.walk import own_nodes

#: callers followed upwards from a point
MAX_LIFT = 4
_LOOPS = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


class Point(NamedTuple):
    """A node of the run and the scope (function or module) whose code holds it."""

    scope: ast.AST
    node: ast.AST


#: the calls that run a scope (each a point of the caller), or None when they are not all known
Callers = Callable[[ast.AST], "list[Point] | None"]


def surely_after(later: Point, earlier: Point, callers: Callers) -> bool:
    """Does ``later`` happen after ``earlier`` on every path of the run, never before it?
    In one scope, by the code's order (:func:`after_in_scope`); else the two are lifted to
    the calls of their scopes (``callers``) until they meet in one invocation, and must be
    so ordered there for every pair of ways the run reaches them.  False when unknown."""
    if later.scope is earlier.scope and not after_in_scope(later.scope, later.node, earlier.node):
        return False
    up_late, up_early = _chains(later, callers), _chains(earlier, callers)
    if up_late is None or up_early is None:
        return (
            later.scope is earlier.scope
        )  # (the code's order inside the scope: all that is known)
    return all(_ordered(a, b) for a in up_late for b in up_early)


def after_in_scope(scope: ast.AST, later: ast.AST, earlier: ast.AST) -> bool:
    """Does the node ``later`` of ``scope`` come after ``earlier`` in its code: on a later
    line than ``earlier`` ends, with no loop of the scope around both?"""
    line = getattr(later, "lineno", None)
    end = getattr(earlier, "end_lineno", None) or getattr(earlier, "lineno", None)
    if line is None or end is None or line <= end:
        return False
    return not any(_holds(lp, later) and _holds(lp, earlier) for lp in _loops(scope))


def _ordered(late: list[Point], early: list[Point]) -> bool:
    """Two ways of reaching the points (outermost call first): do they meet in one
    invocation of a scope where the first comes after the second?"""
    k = 0
    while k < len(late) and k < len(early) and late[k] == early[k]:
        if _in_loop(late[k]):
            return False  # (the shared call repeats: a later round follows the earlier's move)
        k += 1
    if k >= len(late) or k >= len(early) or late[k].scope is not early[k].scope:
        return False  # (different outermost scopes, or one point runs the other's scope)
    return after_in_scope(late[k].scope, late[k].node, early[k].node)


def _chains(p: Point, callers: Callers) -> list[list[Point]] | None:
    """The ways the run reaches ``p``: each the points from the outermost scope down to
    ``p``; None when a scope's callers are not all known or lie too deep."""
    out: list[list[Point]] = []
    todo: list[tuple[Point, list[Point], int]] = [(p, [p], 0)]
    while todo:
        q, chain, depth = todo.pop()
        up = callers(q.scope)
        if up is None or up and depth >= MAX_LIFT or len(out) > 16:
            return None
        if not up:
            out.append(chain)
        for site in up:
            if any(site.scope is c.scope for c in chain):
                return None  # (recursion)
            todo.append((site, [site, *chain], depth + 1))
    return out


def _in_loop(p: Point) -> bool:
    """Is the node of ``p`` inside a loop of its scope?"""
    return any(_holds(lp, p.node) for lp in _loops(p.scope))


def _loops(scope: ast.AST) -> Iterator[ast.AST]:
    """The loops of ``scope``'s own code (not of the functions and classes it defines)."""
    return (n for n in own_nodes(scope) if isinstance(n, _LOOPS))


def _holds(outer: ast.AST, node: ast.AST) -> bool:
    """Does ``outer`` hold ``node``, by their lines and columns?"""
    start = (getattr(outer, "lineno", 0), getattr(outer, "col_offset", 0))
    end = (getattr(outer, "end_lineno", 0) or 0, getattr(outer, "end_col_offset", 0) or 0)
    at = (getattr(node, "lineno", -1), getattr(node, "col_offset", -1))
    return start <= at <= end
