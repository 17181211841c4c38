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
reads no name the loop binds) and nothing in the loop skips ahead (no ``break`` or
``continue``).
"""

from __future__ import annotations

import ast

from torchferry.check.flow.events import CallEvent, ScopeResult

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_TESTS = (ast.If, ast.While, ast.IfExp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def first_run(res: ScopeResult, call: ast.Call) -> CallEvent | None:
    """The call as its first run sees it, when it is in a loop of ``res``'s scope and that
    first round surely runs it (see the module docstring); None otherwise."""
    event = res.first_calls.get(id(call))
    last = res.calls.get(id(call))
    if event is None or last is None or event is last or (
            event.func == last.func and event.args == last.args and event.keywords == last.keywords):
        return None  # (not in a loop, or every round sees the same)
    path = _path(res.node, call)
    if path is None:
        return None
    loops = [k for k, n in enumerate(path) if isinstance(n, _LOOPS)]
    if not loops:
        return None
    outer = loops[0]
    bound = _bound(path[outer])
    if any(_jumps(path[k]) for k in loops):
        return None
    for k in range(outer + 1, len(path)):
        n = path[k]
        if isinstance(n, _TESTS) and _reads(n.test) & bound and path[k + 1] is not n.test:
            return None
    return event


def _path(root: ast.AST, target: ast.AST) -> list[ast.AST] | None:
    """The nodes from ``root`` down to ``target`` (not entering nested scopes)."""
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(root, [root])]
    while stack:
        node, path = stack.pop()
        for child in ast.iter_child_nodes(node):
            if child is target:
                return [*path, child]
            if not isinstance(child, _SCOPES):
                stack.append((child, [*path, child]))
    return None


def _walk_body(loop: ast.AST) -> list[ast.AST]:
    """The nodes of a loop's body (not of its ``else``, nor of nested scopes)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(getattr(loop, "body", []))
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(c for c in ast.iter_child_nodes(n) if not isinstance(c, _SCOPES))
    return out


def _jumps(loop: ast.AST) -> bool:
    """Does a ``break`` or ``continue`` of this loop (not of a loop nested in it) appear in
    its body?"""
    todo: list[ast.AST] = list(getattr(loop, "body", []))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Break, ast.Continue)):
            return True
        if isinstance(n, _LOOPS):
            todo.extend(n.orelse)  # (its body's jumps are its own)
        elif not isinstance(n, _SCOPES):
            todo.extend(ast.iter_child_nodes(n))
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
