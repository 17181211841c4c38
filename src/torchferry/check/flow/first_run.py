"""A call's first run in a loop.

The interpretation of a loop joins every round, so in::

    input = torch.randint(n, (1, 1))                  # on the CPU
    for i in range(steps):
        output = model(input)                         # the first round: on the CPU
        input = torch.cat([input, next_token(output)])

``input`` at the call "may be" wherever any round leaves it.  Its first run, though, sees
what the state before the loop holds; :attr:`ScopeResult.first_calls` keeps the call as
the first round interpreted it, and :func:`first_run` says when that is the call's first
run: the call is in the loop's body on every round (each test around it in the loop
reads no name the loop binds) and nothing in the loop skips ahead to a later round (no
``continue``, nor a ``break`` of a loop nested in the outermost one, after which the
outer loop's next round starts the inner one again).  A ``break`` of the outermost loop
ends it: the call then either ran on the first round or never runs, so its first run is
still the first round's (``while True: out = model(idx); ...; if done: break``).
"""

from __future__ import annotations

import ast
from typing import Any

from torchferry.check.flow.events import CallEvent, ScopeResult

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_TESTS = (ast.If, ast.While, ast.IfExp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
#: nodes that hold no name, no jump and no call: constants, the load/store contexts, the
#: operators (about a third of a function's nodes), never put on a walk of this module
_INERT = frozenset({ast.Constant, ast.Load, ast.Store, ast.Del, ast.Pass, ast.Import,
                    ast.ImportFrom, ast.alias, *ast.operator.__subclasses__(),
                    *ast.unaryop.__subclasses__(), *ast.cmpop.__subclasses__(),
                    *ast.boolop.__subclasses__()})
#: nodes that hold no call, so lie on no path :meth:`_Scope.path` is asked for (it is asked
#: about calls only): left out of the parent map
_LEAVES = _INERT | {ast.Name, ast.Break, ast.Continue, ast.Global, ast.Nonlocal}


def first_run(res: ScopeResult, call: ast.Call) -> CallEvent | None:
    """The call as its first run sees it, when it is in a loop of ``res``'s scope and that
    first round surely runs it (see the module docstring); None otherwise."""
    event = res.first_calls.get(id(call))
    last = res.calls.get(id(call))
    if event is None or last is None or event is last or (
            event.func == last.func and event.args == last.args and event.keywords == last.keywords):
        return None  # (not in a loop, or every round sees the same)
    scope = _scope(res.node)
    path = scope.path(call)
    if path is None:
        return None
    loops = [k for k, n in enumerate(path) if isinstance(n, _LOOPS)]
    if not loops:
        return None
    if any(scope.jumps(path[k], k != loops[0]) for k in loops):
        return None
    outer = loops[0]
    # (the names the loop binds are found only when a test stands on the way)
    tests = [n for k, n in enumerate(path[outer + 1:], outer + 1)
             if isinstance(n, _TESTS) and path[k + 1] is not n.test]
    if tests:
        bound = scope.bound(path[outer])
        if any(_reads(n.test) & bound for n in tests):
            return None
    return event


class _Scope:
    """One scope's tree as :func:`first_run` reads it: each node's parent (nested scopes
    not entered), and each loop's bound names and jumps, found once for all its calls."""

    def __init__(self, root: ast.AST) -> None:
        self.root = root
        self.parent: dict[int, ast.AST] = {}
        parent = self.parent
        todo: list[Any] = [root]
        add, node_type, leaves, scopes = todo.append, ast.AST, _LEAVES, _SCOPES
        for node in todo:  # (the list grows while it is read; :func:`_children` inlined)
            for name in node._fields:
                v = getattr(node, name, None)
                for child in v if type(v) is list else (v,):
                    if type(child) in leaves or not isinstance(child, node_type):
                        continue
                    parent[id(child)] = node
                    if not isinstance(child, scopes):
                        add(child)
        self._bound: dict[int, set[str]] = {}
        self._jumps: dict[tuple[int, bool], bool] = {}

    def path(self, target: ast.Call) -> list[ast.AST] | None:
        """The nodes from the root down to the call ``target`` (None: not in this scope)."""
        out: list[ast.AST] = [target]
        node = self.parent.get(id(target))
        while node is not None:
            out.append(node)
            node = self.parent.get(id(node))
        return out[::-1] if len(out) > 1 and out[-1] is self.root else None

    def bound(self, loop: ast.AST) -> set[str]:
        """:func:`_bound`, once per loop."""
        got = self._bound.get(id(loop))
        if got is None:
            got = self._bound[id(loop)] = _bound(loop)
        return got

    def jumps(self, loop: ast.AST, breaks: bool) -> bool:
        """:func:`_jumps`, once per loop and question."""
        got = self._jumps.get((id(loop), breaks))
        if got is None:
            got = self._jumps[(id(loop), breaks)] = _jumps(loop, breaks)
        return got


#: the scopes :func:`first_run` read last, by their root's id (a rule asks about each call
#: of a scope in turn, and FRY014 goes over a file's scopes twice); emptied past
#: :data:`_KEEP_SCOPES`
_scopes: dict[int, _Scope] = {}
_KEEP_SCOPES = 64


def _scope(root: ast.AST) -> _Scope:
    got = _scopes.get(id(root))
    if got is None or got.root is not root:
        if len(_scopes) >= _KEEP_SCOPES:
            _scopes.clear()
        got = _scopes[id(root)] = _Scope(root)
    return got


def _children(node: ast.AST) -> list[ast.AST]:
    """:func:`ast.iter_child_nodes` as a list, without its generators."""
    out: list[ast.AST] = []
    for name in node._fields:
        v = getattr(node, name, None)
        if type(v) is list:
            out.extend(x for x in v if isinstance(x, ast.AST))
        elif isinstance(v, ast.AST):
            out.append(v)
    return out


def _walk_body(loop: ast.AST) -> list[ast.AST]:
    """The nodes of a loop's body (not of its ``else``, nor of nested scopes)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(getattr(loop, "body", []))
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(c for c in _children(n) if type(c) not in _INERT and not isinstance(c, _SCOPES))
    return out


def _jumps(loop: ast.AST, breaks: bool = True) -> bool:
    """Does a ``continue`` of this loop (not of a loop nested in it) appear in its body, or,
    with ``breaks``, a ``break``?"""
    todo: list[ast.AST] = list(getattr(loop, "body", []))
    jumps = (ast.Break, ast.Continue) if breaks else (ast.Continue,)
    while todo:
        n = todo.pop()
        if isinstance(n, jumps):
            return True
        if isinstance(n, _LOOPS):
            todo.extend(n.orelse)  # (its body's jumps are its own)
        elif not isinstance(n, _SCOPES):
            todo.extend(c for c in _children(n) if type(c) not in _INERT)
    return False


def _bound(loop: ast.AST) -> set[str]:
    """The names a loop binds: its target, and whatever its body assigns."""
    out = _reads(loop.target) if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
    for n in _walk_body(loop):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
    return out


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
