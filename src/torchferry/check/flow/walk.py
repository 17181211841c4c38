r"""The nodes and statements of a scope's own code: one walk for every analysis of the flow.

A scope (a module, a function, a class, a lambda) holds the code of the scopes it defines,
which runs at another time (when they are called) or not at all; most questions about a
scope ("does it store this name?", "which loops does it run?") are about its own code
alone.  :func:`own_nodes` walks that code, :func:`statements` its statements only.  Both
go depth first, last child first (a stack of :func:`ast.iter_child_nodes`), so that an
analysis that stops at the first answer finds the same one every time.

>>> src = "def f(x):\n    y = x\n    def g():\n        z = 1\n    return y\n"
>>> fn = ast.parse(src).body[0]
>>> [type(n).__name__ for n in own_nodes(fn) if isinstance(n, ast.stmt)]
['Return', 'Assign']
>>> [type(n).__name__ for n in own_nodes(fn, defs=True) if isinstance(n, ast.stmt)]
['Return', 'FunctionDef', 'Assign']
>>> [type(s).__name__ + str(s.lineno) for s in statements(fn)]
['Return5', 'Assign2']
>>> sorted(type(s).__name__ + str(s.lineno) for s in statements(fn, nested=True))
['Assign2', 'Assign4', 'FunctionDef3', 'Return5']
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

#: the nodes that open a scope of their own: their code is not that of the scope around them
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
#: nodes that are no statement but hold a block of them
_HOLDERS = (ast.ExceptHandler, ast.match_case)


def own_nodes(scope: ast.AST, *, defs: bool = False) -> Iterator[ast.AST]:
    """The nodes of ``scope``'s own code (not ``scope`` itself), depth first, last child
    first; the functions, classes and lambdas it defines are yielded themselves when
    ``defs`` (never what they hold: their arguments' defaults and decorators neither).

    >>> fn = ast.parse("def f():\\n    g = lambda: h(1)\\n").body[0]
    >>> [type(n).__name__ for n in own_nodes(fn)]
    ['Assign', 'Name', 'Store', 'arguments']
    >>> [type(n).__name__ for n in own_nodes(fn, defs=True)]
    ['Assign', 'Lambda', 'Name', 'Store', 'arguments']
    """
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, SCOPES):
            if defs:
                yield node
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def statements(scope: ast.AST, *, nested: bool = False) -> Iterator[ast.stmt]:
    """The statements of ``scope``'s own code, depth first, last first, from a walk of the
    statement lists alone (expressions hold none), not those of ``except`` handlers and
    ``case`` blocks; with ``nested``, every statement of ``scope`` instead: those of the
    functions and classes it defines (and the definitions), of the handlers and the
    ``case`` blocks too.

    >>> src = "try:\\n    a = 1\\nexcept E:\\n    b = 2\\n"
    >>> [s.lineno for s in statements(ast.parse(src))], [s.lineno for s in statements(ast.parse(src), nested=True)]
    ([1, 2], [1, 4, 2])
    """
    todo = _blocks(scope, nested)
    while todo:
        st = todo.pop()
        if not nested and isinstance(st, SCOPES):
            continue
        yield st
        todo.extend(_blocks(st, nested))


def _blocks(node: ast.AST, handlers: bool) -> list[ast.stmt]:
    """The statements directly in the blocks of ``node`` (``body``, ``orelse``, ...), in the
    order of :func:`ast.iter_child_nodes`; with ``handlers``, those of its ``except``
    handlers and ``case`` blocks too, in their place.

    >>> [type(s).__name__ for s in _blocks(ast.parse("if a:\\n    x = 1\\nelse:\\n    pass\\n").body[0], False)]
    ['Assign', 'Pass']
    """
    out: list[ast.stmt] = []
    stmt = ast.stmt
    for name in node._fields:
        v = getattr(node, name, None)
        if type(v) is not list:
            continue
        for x in v:
            if isinstance(x, stmt):
                out.append(x)
            elif handlers and isinstance(x, _HOLDERS):
                out.extend(x.body)
    return out
