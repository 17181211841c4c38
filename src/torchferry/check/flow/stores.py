"""Writes through tensor indices: ``t[idx] = v`` where an index is a tensor.

Python runs such a write as ``t.index_put_((idx,), v)``.  Torch moves indices on the CPU
to ``t``'s device (an index on the device into a tensor on the CPU fails: "indices should
be either on cpu or on the same device as the indexed tensor"), and it moves a
0-dimensional ``v`` there too; a ``v`` of one or more dimensions must already be on
``t``'s device (the write is an element-wise copy over the indexed positions).  A write
through slices and numbers alone (``t[:, 0] = v``) is a ``copy_``, which copies across
devices: not such a write.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = ("import torch\\ndef f(x):\\n    t = torch.zeros(4, device=x.device)\\n"
...        "    i = torch.arange(2)\\n    t[i] = torch.ones(2)\\n    t[0:2] = torch.ones(2)\\n")
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> res = ff.scope_of(tree.body[1].body[0].value)
>>> [(w.target.lineno, ast.unparse(w.value)) for w in index_writes(res)]
[(5, 'torch.ones(2)')]
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from itertools import chain
from typing import NamedTuple

from torchferry.check.flow.events import ScopeResult
from torchferry.check.flow.lattice import Kind, Value
from torchferry.check.flow.walk import own_nodes

_INDEX_KINDS = frozenset({Kind.TENSOR, Kind.BATCH})


class IndexWrite(NamedTuple):
    """``t[idx] = v`` with a tensor among the indices: the values as the scope had them."""

    target: ast.Subscript
    base: Value  # ``t``
    value: ast.expr  # ``v``
    written: Value


def index_writes(res: ScopeResult) -> Iterator[IndexWrite]:
    """The writes of the scope into a tensor (or a value that may be one) through an
    index the analysis knows to be a tensor, with the value written (not ``t[idx] += v``,
    an operator on ``t[idx]`` the scope records as a meeting)."""
    for st in statements_walked(res.node):
        if not isinstance(st, ast.Assign) or isinstance(st.value, ast.Tuple):
            continue
        written = res.value(st.value)
        for target in st.targets:
            if not isinstance(target, ast.Subscript) or written is None:
                continue
            base = res.value(target.value)
            if base is not None and base.may_be(Kind.TENSOR) and tensor_indexed(res, target):
                yield IndexWrite(target, base, st.value, written)


#: the nodes that hold statements: an expression never does (a lambda's body is one)
_HOLDERS = (ast.mod, ast.stmt, ast.excepthandler, ast.match_case)


def statements_walked(node: ast.AST) -> list[ast.AST]:
    """``node``, then the statements below it (and the handlers and cases that hold
    some), in :func:`ast.walk`'s order: that walk with the expressions left out, which
    hold no statement.

    >>> tree = ast.parse("if a:\\n    x = [lambda: 1]\\nelse:\\n    try:\\n        y = 2\\n    except E:\\n        z = 3\\n")
    >>> [type(n).__name__ for n in statements_walked(tree)] == [
    ...     type(n).__name__ for n in ast.walk(tree) if isinstance(n, _HOLDERS)]
    True
    """
    out = [node]
    holders = _HOLDERS
    for n in out:
        for name in n._fields:
            v = getattr(n, name, None)
            if type(v) is list:
                out.extend(x for x in v if isinstance(x, holders))
    return out


def tensor_indexed(res: ScopeResult, sub: ast.Subscript) -> bool:
    """Is one of the indices of ``sub`` a tensor, as the scope evaluated it (an index of
    unknown kind does not count)?"""
    key = sub.slice
    for x in key.elts if isinstance(key, ast.Tuple) else [key]:
        if isinstance(x, (ast.Slice, ast.Constant)):
            continue
        v = res.value(x)
        if v is not None and v.kinds is not None and v.kinds & _INDEX_KINDS:
            return True
    return False


#: torch functions that join the tensors of one sequence into one tensor (all on one device)
JOINING = frozenset(
    {
        "cat",
        "concat",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "dstack",
        "column_stack",
        "row_stack",
    }
)


class Held(NamedTuple):
    """Two items that a list holds together: ``first`` is in it when ``later`` is added."""

    first: ast.expr
    first_value: Value
    later: ast.expr
    later_value: Value


def held_together(res: ScopeResult, name: ast.Name) -> list[Held]:
    """The pairs of items that the list ``name`` (read where a call joins it) holds at once,
    when the scope builds it over time: bound once, to a list written out (``his =
    [torch.zeros(n)]``, or ``[]``), then only added to with ``append``.  An item written out,
    or appended by a statement of the same block as the binding (run whenever the list is
    made), is in the list when any later ``append`` adds an item (one in a loop or a branch
    included); two appends in loops or branches need not both run, and are not paired.  Any
    other use of the name (passed to a call, rebound, indexed, popped) gives no pairs.

    >>> import ast
    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\\ndef f(x, n):\\n    his = [torch.zeros(2)]\\n"
    ...        "    for i in range(n):\\n        his.append(x.cuda())\\n    return torch.stack(his)\\n")
    >>> tree = ast.parse(src)
    >>> ff = analyze(tree, "<example>")
    >>> ret = tree.body[1].body[2].value
    >>> [(ast.unparse(h.first), ast.unparse(h.later)) for h in held_together(ff.scope_of(ret), ret.args[0])]
    [('torch.zeros(2)', 'x.cuda()')]
    """
    fn = res.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    binding = _only_binding(fn, name.id)
    if binding is None:
        return []
    appends = _appends(fn, name.id, name)
    if appends is None or _pos(binding) > _pos(name):
        return []
    appends = [(st, a) for st, a in appends if _pos(st) < _pos(name)]  # (in the list by then)
    block = _block_of(fn, binding)
    sure = [e for e in binding.value.elts if not isinstance(e, ast.Starred)]  # type: ignore[attr-defined]
    sure += [
        a for st, a in appends if block is not None and st in block and _pos(st) > _pos(binding)
    ]
    items = [*sure, *(a for _, a in appends)]
    pairs = []
    for k, first in enumerate(sure):
        for later in items[k + 1 :]:
            if later is first or _pos(later) < _pos(first):
                continue
            v, w = res.value(first), res.value(later)
            if v is not None and w is not None:
                pairs.append(Held(first, v, later, w))
    return pairs


def _pos(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _only_binding(fn: ast.AST, name: str) -> ast.Assign | None:
    """The one statement that binds ``name`` in ``fn``, when it is ``name = [...]``."""
    stores = [
        n
        for n in own_nodes(fn)
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
    ]
    if len(stores) != 1 or name in _params(fn):
        return None
    for st in own_nodes(fn):
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and st.targets[0] is stores[0]
            and isinstance(st.value, ast.List)
        ):
            return st
    return None


def _appends(fn: ast.AST, name: str, joined: ast.Name) -> list[tuple[ast.stmt, ast.expr]] | None:
    """Each ``name.append(x)`` statement of ``fn`` with its ``x``; None when ``name`` is
    read anywhere else than there and at ``joined``."""
    found: list[tuple[ast.stmt, ast.expr]] = []
    seen: set[int] = set()
    for st in own_nodes(fn):
        if (
            isinstance(st, ast.Expr)
            and isinstance(call := st.value, ast.Call)
            and isinstance(f := call.func, ast.Attribute)
            and f.attr == "append"
            and isinstance(f.value, ast.Name)
            and f.value.id == name
            and len(call.args) == 1
            and not call.keywords
        ):
            found.append((st, call.args[0]))
            seen.add(id(f.value))
    loads = [
        n
        for n in own_nodes(fn)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]
    return found if all(id(n) in seen or n is joined for n in loads) else None


def _block_of(fn: ast.AST, st: ast.stmt) -> list[ast.stmt] | None:
    """The statement list ``st`` is directly in."""
    for node in chain((fn,), own_nodes(fn)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(s is st for s in block):
                return block
    return None


def _params(fn: ast.AST) -> set[str]:
    args = getattr(fn, "args", None)
    if not isinstance(args, ast.arguments):
        return set()
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}
