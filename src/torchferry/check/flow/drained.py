"""Has the iteration already waited: an earlier host read of a device value in the same
iteration, with no device work queued after it.

``.item()``, ``.tolist()`` and ``float``/``int``/``bool`` of a tensor on an accelerator copy
the value to the host, which waits until the device has finished the work queued before
it (``Tensor.item`` is ``_local_scalar_dense``, a synchronous copy). A second such read
that follows with nothing queued in between waits for nothing more:

    losses.append(loss.item())       # waits for the step
    accs.append(acc.item() * 100)    # the queue is already empty

:func:`waited_before` answers that for a read, statement by statement backwards through
the loop's body, and is exact about "nothing queued in between": every statement it
steps over (and the read's own statement) may only read values to the host, do Python
arithmetic on what was read and store into a list or dict that the function binds only
to a ``[...]``/``{...}`` display (``logs["lossG"] = lossG.detach().item()``,
``accs.append(acc.item() * 100)``); any other statement may queue device work, and the
answer is no. It steps out of an ``if`` whose test calls nothing and out of a ``try``
body, never out of a ``with`` (its ``__enter__`` may do anything) or a nested loop.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from torchferry.check.flow.queries import established_tensor, on_device_tensor
from torchferry.check.scopes import How, Scope, visible_scopes

if TYPE_CHECKING:
    from torchferry.check.flow.program import FileFlow
    from torchferry.check.scopes import Site

_READS = frozenset({"item", "tolist"})
_CASTS = frozenset({"float", "int", "bool"})
_CONTAINERS = (ast.List, ast.Dict)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def waited_before(ff: FileFlow, site: Site[ast.Call], loop: ast.AST) -> bool:
    """Did the same iteration of ``loop`` read a device value to the host before the read
    ``site``, with nothing that may queue device work since (the read's own statement
    included)?"""
    scope = site.ctx.scope
    if not isinstance(loop, _LOOPS) or not _host_stmt(ff, site.stmt, scope):
        return False
    for block, idx, owner in reversed(_path(loop.body, None, site.stmt) or []):
        for st in reversed(block[:idx]):
            if not _host_stmt(ff, st, scope):
                return False
            if any(_reads_device(ff, r) for r in _reads_in(st)):
                return True
        if owner is not None and not _entered_quietly(owner, block):
            return False  # a ``with``'s ``__enter__``, a nested loop's earlier turns...
    return False


_Step = tuple[list[ast.stmt], int, ast.stmt | None]


def _path(block: list[ast.stmt], owner: ast.stmt | None, stmt: ast.stmt) -> list[_Step] | None:
    """The way from ``block`` (a block of ``owner``) down to ``stmt``, outermost first:
    each block with the index of the statement on the way and the statement that owns the
    block (``None`` if not there)."""
    for i, st in enumerate(block):
        if st is stmt:
            return [(block, i, owner)]
        for inner in _blocks(st):
            rest = _path(inner, st, stmt)
            if rest is not None:
                return [(block, i, owner), *rest]
    return None


def _blocks(st: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The blocks of statements that ``st`` holds (not those of a nested ``def``/``class``)."""
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(st, field, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            yield inner
    for h in getattr(st, "handlers", ()):
        yield h.body
    for c in getattr(st, "cases", ()):
        yield c.body


def _entered_quietly(owner: ast.stmt, block: list[ast.stmt]) -> bool:
    """Is ``block`` of ``owner`` entered with no device work on the way in: an arm of an
    ``if`` whose test calls nothing (a test of a tensor reads it, which waits), a ``try``
    body?"""
    if isinstance(owner, ast.If):
        return not any(isinstance(n, ast.Call) for n in ast.walk(owner.test))
    return isinstance(owner, ast.Try) and block is owner.body


def _host_stmt(ff: FileFlow, st: ast.stmt, scope: Scope) -> bool:
    """A statement that queues no device work: ``name = v``, ``box[k] = v`` or
    ``box.append(v)`` into a list/dict ``box`` of the function, ``v`` a host value;
    ``pass``; an ``if`` whose test calls nothing and whose arms are such statements."""
    if isinstance(st, ast.Pass):
        return True
    if isinstance(st, ast.If):
        return not any(isinstance(n, ast.Call) for n in ast.walk(st.test)) and \
            all(_host_stmt(ff, s, scope) for s in (*st.body, *st.orelse))
    if isinstance(st, ast.Assign):
        return _host_value(ff, st.value) and all(_host_target(t, scope) for t in st.targets)
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
        call = st.value
        func = call.func
        return isinstance(func, ast.Attribute) and func.attr == "append" and \
            len(call.args) == 1 and not call.keywords and _container(func.value, scope) and \
            _host_value(ff, call.args[0])
    return False


def _host_target(t: ast.expr, scope: Scope) -> bool:
    """A target whose store runs no tensor code: a name, or a constant key of a list/dict
    of the function."""
    if isinstance(t, ast.Name):
        return True
    return isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and \
        _container(t.value, scope)


def _host_value(ff: FileFlow, e: ast.expr) -> bool:
    """A value computed on the host only: a constant, a host read of an established tensor
    (which may wait, but queues nothing; ``.item()`` of another object may run anything),
    Python arithmetic of those."""
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.BinOp):
        return _host_value(ff, e.left) and _host_value(ff, e.right)
    if isinstance(e, ast.UnaryOp):
        return _host_value(ff, e.operand)
    if not isinstance(e, ast.Call):
        return False
    arg = _read_of(e)
    return arg is not None and established_tensor(ff, arg)


def _read_of(call: ast.Call) -> ast.expr | None:
    """The tensor that ``call`` reads to the host (``t.item()``, ``t.tolist()``,
    ``float(t)``...), where ``t`` is a name seen plainly or through ``.detach()``/``.data``
    (neither queues work)."""
    func = call.func
    if call.keywords:
        return None
    if isinstance(func, ast.Attribute) and func.attr in _READS and not call.args:
        arg = func.value
    elif isinstance(func, ast.Name) and func.id in _CASTS and len(call.args) == 1:
        arg = call.args[0]
    else:
        return None
    return arg if _plain(arg) else None


def _plain(e: ast.expr) -> bool:
    """A name, its attributes, ``.detach()`` of those: reached without device work."""
    while True:
        if isinstance(e, ast.Name):
            return True
        if isinstance(e, ast.Attribute):
            e = e.value
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                e.func.attr == "detach" and not e.args and not e.keywords:
            e = e.func.value
        else:
            return False


def _reads_in(st: ast.stmt) -> Iterator[ast.Call]:
    """The host reads of a simple statement that :func:`_host_stmt` accepts (all run: it
    has no conditional part); none for an ``if`` (its arms may not run)."""
    if isinstance(st, ast.If):
        return
    for n in ast.walk(st):
        if isinstance(n, ast.Call) and _read_of(n) is not None:
            yield n


def _reads_device(ff: FileFlow, call: ast.Call) -> bool:
    """Does ``call`` read a tensor that may be on an accelerator (and so wait)?"""
    arg = _read_of(call)
    return arg is not None and on_device_tensor(ff, arg)


def _container(e: ast.expr, scope: Scope) -> bool:
    """``e`` names a list or dict: every binding of the name in the scope that binds it is
    a ``[...]``/``{...}`` display (a builtin container: storing into it runs no tensor
    code)."""
    if not isinstance(e, ast.Name):
        return False
    for s, _ in visible_scopes(scope):
        lst = s.binds.get(e.id)
        if lst:
            return all(_display(b.how, b.value, b.path) for _, b in lst)
    return False


def _display(how: How, value: ast.AST | None, path: tuple[int, ...]) -> bool:
    """A binding to a list/dict display: ``x = []``, or ``a, b = [], {}``."""
    if how is How.EXPR:
        return isinstance(value, _CONTAINERS)
    if how is How.UNPACK and len(path) == 1 and isinstance(value, (ast.Tuple, ast.List)) and \
            path[0] < len(value.elts) and not any(isinstance(v, ast.Starred) for v in value.elts):
        return isinstance(value.elts[path[0]], _CONTAINERS)
    return False
