"""Whether an attribute's stored value is replaced before anything else can read it.

A method that stores ``self.<attr> = <value>`` hands that value to the object's other
methods only if no later statement of the same method replaces it first::

    if log_sampling:
        self.bands = 2.0 ** torch.linspace(0.0, m, n)     # replaced below, on every path
    else:
        self.bands = torch.linspace(1.0, 2.0 ** m, n)
    self.bands = self.bands.tolist()                      # what the other methods read

:func:`overwritten_after` finds that later store from the method's statements: a store
of the same attribute as a statement of the block that holds the first store, or of an
enclosing block after the statement that holds it, with nothing that may leave the
method in between (``return``, ``raise``; also ``break`` and ``continue``, which a loop's
later statements are not known to undo).  Whether the first value survives in it
(``self.b.cuda()`` keeps it, moved; ``self.b.tolist()`` keeps only numbers) is the
caller's question.

A method that reads ``self.<attr>`` may likewise rebind it first from values that do not
come from its earlier one (``self.weight = w.reshape(o, i)`` of ``w =
self.calculate_weights(t)``): :func:`fresh_value` tells such a value, followed through the
method's local names and the class's methods it calls.

>>> import ast
>>> src = '''
... def __init__(self, log):
...     if log:
...         self.b = make()
...     else:
...         self.b = other()
...     self.b = self.b.tolist()
...     self.c = make()
...     if log:
...         return
...     self.c = None
... '''
>>> fn = ast.parse(src).body[0]
>>> first, c = fn.body[0].body[0], fn.body[2]
>>> ast.unparse(overwritten_after(fn, first, "self", "b")), overwritten_after(fn, c, "self", "c")
('self.b.tolist()', None)
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from torchferry.check.flow.walk import SCOPES, own_nodes

#: local names followed back through their bindings
_MAX_DEPTH = 3
_LEAVES = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def overwritten_after(fn: ast.AST, stmt: ast.stmt, self_name: str, attr: str) -> ast.expr | None:
    """The value of the store of ``<self_name>.<attr>`` that follows the store ``stmt`` of
    ``fn``, as a statement, on every path that goes on through the method (see the
    module's docstring); None where there is none or ``stmt`` is not a statement of
    ``fn``'s own blocks."""
    later = _next_store(fn, stmt, self_name, attr)
    return later.value if later is not None else None  # type: ignore[attr-defined]


def later_stores(fn: ast.AST, stmt: ast.stmt, self_name: str, attr: str) -> list[ast.stmt]:
    """The stores of ``<self_name>.<attr>`` that follow the statement ``stmt`` of ``fn`` one
    after the other, each on every path that goes on through the method from the one
    before (:func:`overwritten_after`), in the order they run.

    >>> import ast
    >>> src = '''
    ... def __init__(self, n, flag):
    ...     self.w = make(n)
    ...     self.w = self.w.view(1, -1)
    ...     if flag:
    ...         self.w = other()
    ...     self.w = wrap(self.w)
    ... '''
    >>> fn = ast.parse(src).body[0]
    >>> [ast.unparse(st.value) for st in later_stores(fn, fn.body[0], "self", "w")]
    ['self.w.view(1, -1)', 'wrap(self.w)']
    """
    out: list[ast.stmt] = []
    later = _next_store(fn, stmt, self_name, attr)
    while later is not None:
        out.append(later)
        later = _next_store(fn, later, self_name, attr)
    return out


def _next_store(fn: ast.AST, stmt: ast.stmt, self_name: str, attr: str) -> ast.stmt | None:
    """The statement of :func:`overwritten_after`."""
    path = _path(getattr(fn, "body", []), stmt)
    if path is None:
        return None
    for block, index in reversed(path):
        for st in block[index + 1:]:
            if _stores(st, self_name, attr):
                return st
            if _may_leave(st):
                return None
    return None


def fresh_value(fn: ast.AST, value: ast.expr, self_name: str, attr: str,
                method: Callable[[str], ast.AST | None], depth: int = 0) -> bool:
    """Does ``value``, an expression of ``fn``, hold nothing of ``<self_name>.<attr>``'s
    earlier value?  It names the attribute nowhere, every local name it reads is a
    parameter of ``fn`` or bound in ``fn`` only by assignments of such values
    (:data:`_MAX_DEPTH` names deep), and every method of the object it calls
    (``self.calculate_weights(t)``, found with ``method``) names the attribute nowhere in
    its body, and no call is given the object itself (``helper(self)``).  A value that is
    not known to be fresh is not.

    >>> import ast
    >>> fn = ast.parse("def forward(self, x):\\n    w = self.calc(x)\\n    v = self.w + 1\\n").body[0]
    >>> calc = ast.parse("def calc(self, t):\\n    return self.coeffs * t\\n").body[0]
    >>> fresh = [fresh_value(fn, ast.Name(n, ast.Load()), "self", "w", {"calc": calc}.get) for n in "wv"]
    >>> fresh
    [True, False]
    """
    if depth > _MAX_DEPTH:
        return False
    params = {a.arg for a in _args(fn)}
    for n in ast.walk(value):
        if _names_attr(n, self_name, attr) or isinstance(n, (ast.Lambda, ast.NamedExpr)):
            return False
        if isinstance(n, ast.Call) and any(isinstance(x, ast.Name) and x.id == self_name for x in (
                *n.args, *(k.value for k in n.keywords))):
            return False  # (``helper(self)`` may hand back the attribute)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                isinstance(n.func.value, ast.Name) and n.func.value.id == self_name:
            body = method(n.func.attr)
            if body is None or any(isinstance(x, ast.Attribute) and x.attr == attr for x in ast.walk(body)):
                return False
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id != self_name \
                and n.id not in params and not _fresh_name(fn, n.id, self_name, attr, method, depth):
            return False
    return True


def _fresh_name(fn: ast.AST, name: str, self_name: str, attr: str,
                method: Callable[[str], ast.AST | None], depth: int) -> bool:
    """Is every binding of the local ``name`` in ``fn`` a plain assignment of a fresh
    value (:func:`fresh_value`)?  A name ``fn`` never binds is a global or a builtin."""
    for n in own_nodes(fn):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del)):
            bound = _assignment_of(fn, n)
            if bound is None or not fresh_value(fn, bound, self_name, attr, method, depth + 1):
                return False
    return True


def _assignment_of(fn: ast.AST, target: ast.Name) -> ast.expr | None:
    """The value of the plain assignment ``target = <value>`` (one target, no unpacking)."""
    for n in own_nodes(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and n.targets[0] is target:
            return n.value
        if isinstance(n, ast.AnnAssign) and n.target is target:
            return n.value
    return None


def _args(fn: ast.AST) -> list[ast.arg]:
    a = getattr(fn, "args", None)
    if not isinstance(a, ast.arguments):
        return []
    return [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x is not None)]


def _path(block: list[ast.stmt], stmt: ast.stmt) -> list[tuple[list[ast.stmt], int]] | None:
    """The blocks from ``block`` down to the one holding ``stmt``, each with the index of
    the statement that holds it; None when it is not there (or only in a nested scope)."""
    for i, st in enumerate(block):
        if st is stmt:
            return [(block, i)]
        if isinstance(st, SCOPES):
            continue
        for inner in _blocks(st):
            found = _path(inner, stmt)
            if found is not None:
                return [(block, i), *found]
    return None


def _blocks(st: ast.stmt) -> list[list[ast.stmt]]:
    out = [getattr(st, f, None) for f in ("body", "orelse", "finalbody")]
    out.extend(h.body for h in getattr(st, "handlers", []))
    out.extend(c.body for c in getattr(st, "cases", []))
    return [b for b in out if isinstance(b, list) and b and isinstance(b[0], ast.stmt)]


def _stores(st: ast.stmt, self_name: str, attr: str) -> bool:
    targets = st.targets if isinstance(st, ast.Assign) else [st.target] \
        if isinstance(st, ast.AnnAssign) and st.value is not None else []
    return any(_names_attr(t, self_name, attr) for t in targets)


def _may_leave(st: ast.stmt) -> bool:
    """Can ``st`` leave the method or the loop around it (outside nested scopes)?  Only
    statements leave, so only the blocks of statements are walked, not the expressions."""
    todo = [st]
    while todo:
        s = todo.pop()
        if isinstance(s, _LEAVES):
            return True
        if not isinstance(s, SCOPES):
            for block in _blocks(s):
                todo.extend(block)
    return False


def _names_attr(n: ast.AST, self_name: str, attr: str) -> bool:
    return isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name) \
        and n.value.id == self_name
