r"""The tensors one call returns, unpacked by one assignment, outside a loader's batches:
which of them the scope moves to a device, and which the file never moves.

In::

    train_x, train_y = data_generator(n)    # one call's tuple, unpacked: siblings
    if args.cuda:
        train_x = train_x.cuda()            # a sibling moved
    ...
    def train():
        loss = criterion(model(x), train_y)   # the other, never moved

``train_y`` is a sibling left behind (:func:`left_behind`): a tensor made on the CPU (by
the call, nothing moved it since) that no statement of the file moves by its name, while
the scope of the unpacking moves ``train_x`` after it.  Where the unpacking is at module
level, the functions of the file that read the name as a global see it too.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = '''import torch
... def gen():
...     return torch.zeros(4, 3), torch.zeros(4, 3).long()
... x, y = gen()
... x = x.cuda()
... '''
>>> ff = analyze(ast.parse(src), "<example>")
>>> _ = list(ff.results())  # (every scope interpreted)
>>> [(g.names, sorted(g.moves)) for g in sibling_groups(ff)]
[(('x', 'y'), ['x'])]
"""

from __future__ import annotations

import ast
import bisect
from typing import NamedTuple

from torchferry.check.flow.events import Callee, CallEvent, ScopeResult
from torchferry.check.flow.lattice import CPU, Kind, Op, Value, Where, zero_dim_made
from torchferry.check.flow.program import FileFlow
from torchferry.check.flow.vocab import ACCEL_MOVE_NAMES
from torchferry.check.flow.walk import statements


class Siblings(NamedTuple):
    """An unpacking ``a, b = f(...)`` of the scope ``scope`` and the moves to a device of
    its names (``a = a.cuda()``) that the scope makes after it, by name."""

    assign: ast.Assign
    names: tuple[str, ...]
    moves: dict[str, CallEvent]
    scope: ScopeResult


def sibling_groups(ff: FileFlow) -> list[Siblings]:
    """The unpackings of one call's result into two names or more, in every scope of the
    file interpreted so far, of which the scope moves at least one tensor sibling (made on
    the CPU, as the call gave it) to a device after the unpacking."""
    out: list[Siblings] = []
    lines = sorted({st.lineno for st in statements(ff.tree, nested=True) if _unpacked_names(st) is not None})
    if not lines:
        return out
    for res in ff.interpreted():
        if not _may_hold(res.node, lines):
            continue
        for st in statements(res.node):
            names = _unpacked_names(st)
            if names is None or not isinstance(st, ast.Assign) or not isinstance(st.value, ast.Call):
                continue
            moves = {n: c for n in names if (c := _first_move(res, n, st.lineno)) is not None}
            for n, c in _moved_by_the_call(ff, res, st.value, names).items():
                moves.setdefault(n, c)
            if moves:
                out.append(Siblings(st, names, moves, res))
    return out


def _moved_by_the_call(ff: FileFlow, res: ScopeResult, call: ast.Call, names: tuple[str, ...]
                       ) -> dict[str, CallEvent]:
    """The names of ``a, b = f(...)`` that ``f``, a function of the file, returns moved to a
    device (``return x.to(device), y``), as ``f``'s moves of them, when another item of the
    tuple is a tensor made on the CPU (:func:`made_on_the_cpu`), as ``f`` returns it."""
    v = res.value(call)
    elts = v.elts if v is not None else None
    if elts is None or len(elts) != len(names) or not any(made_on_the_cpu(e) for e in elts):
        return {}
    out = {}
    for name, e in zip(names, elts, strict=True):
        first = e.origins[0] if e.origins else None
        if first is None or first.op is not Op.MOVED or e.kinds != _TENSOR or not e.may_live(Where.ACCEL):
            continue
        move = next((c for r in ff.interpreted() if (c := r.calls.get(id(first.node))) is not None), None)
        if move is not None and isinstance(move.node.func, ast.Attribute):
            out[name] = move
    return out


def _may_hold(fn: ast.AST, lines: list[int]) -> bool:
    """Does one of ``lines`` (sorted) lie within the lines of ``fn`` (a module: every line)?

    >>> fn = ast.parse("x = 1\\ndef f():\\n    a, b = g()\\n").body[1]
    >>> _may_hold(fn, [1]), _may_hold(fn, [1, 3]), _may_hold(ast.Module([], []), [7])
    (False, True, True)
    """
    first, last = getattr(fn, "lineno", None), getattr(fn, "end_lineno", None)
    if first is None or last is None:
        return True
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= last


def _unpacked_names(st: ast.stmt) -> tuple[str, ...] | None:
    """``a, b = f(...)``: the names, when every target is a plain name and the value a
    call."""
    if not isinstance(st, ast.Assign) or len(st.targets) != 1 or not isinstance(st.value, ast.Call):
        return None
    target = st.targets[0]
    if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) < 2:
        return None
    if not all(isinstance(e, ast.Name) for e in target.elts):
        return None
    names = tuple(e.id for e in target.elts)  # type: ignore[attr-defined]
    return names if len(set(names)) == len(names) else None


def _first_move(res: ScopeResult, name: str, after: int) -> CallEvent | None:
    """The first move to a device (``name.cuda()``, ``name.to(device)``) of ``res`` after
    line ``after`` of a tensor made on the CPU that ``name`` names."""
    found = [c for c in res.calls.values() if _moves_name(c, name) and c.node.lineno > after
             and c.receiver is not None and made_on_the_cpu(c.receiver)
             and c.result.may_live(Where.ACCEL)]
    return min(found, key=lambda c: (c.node.lineno, c.node.col_offset)) if found else None


def _moves_name(c: CallEvent, name: str) -> bool:
    func = c.node.func
    return c.callee is Callee.METHOD and c.qualname in ACCEL_MOVE_NAMES and \
        isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name


def made_on_the_cpu(v: Value) -> bool:
    """Is ``v`` a tensor (not an item of a loader's batch) that a call made on the CPU
    and nothing moved, converted, loaded or took in since, with a dimension as far as its
    makers say (none is ``torch.tensor(0.5)`` or ``torch.zeros(())``)?"""
    if v.kinds != _TENSOR or v.places != _CPU or not v.origins:
        return False
    if any(o.op is not Op.MADE for o in v.origins):
        return False
    return not any(isinstance(o.node, ast.Call) and zero_dim_made(o.text.split("(")[0], o.node)
                   for o in v.origins)


_TENSOR = frozenset((Kind.TENSOR,))
_CPU = frozenset((CPU,))


def moved_by_name(ff: FileFlow, name: str) -> bool:
    """Does any scope of the file interpreted so far move a value by the name ``name``
    (``name = name.cuda()``, ``name.to(device)``), whatever it names there?"""
    return any(_moves_name(c, name) for r in ff.interpreted() for c in r.calls.values())


def readers(ff: FileFlow, group: Siblings, name: str) -> list[ScopeResult]:
    """The scopes that see ``name`` as the unpacking bound it: its own, and, for an
    unpacking at module level, each function of the file interpreted so far that reads
    the name without binding it."""
    out = [group.scope]
    if not isinstance(group.scope.node, ast.Module):
        return out
    for r in ff.interpreted():
        if r is group.scope or not isinstance(r.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if name in r.params or _binds(r.node, name):
            continue
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(r.node)):
            out.append(r)
    return out


def _binds(fn: ast.AST, name: str) -> bool:
    """Does ``fn`` bind ``name`` itself (an assignment, a loop target, ``global name``
    with an assignment counts too: it rebinds the module's name)?"""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
               for n in ast.walk(fn))


def left_behind(ff: FileFlow, group: Siblings, res: ScopeResult, v: Value) -> str | None:
    """The name of ``group`` that ``v``, a value of ``res`` (one of :func:`readers`), is
    made of: a tensor made on the CPU (:func:`made_on_the_cpu`), made by the makers of the
    value ``res`` reads by that name, a name that the group's scope does not move and that
    no scope of the file moves by name; None otherwise."""
    if not made_on_the_cpu(v):
        return None
    made = set(v.origins)
    for name in group.names:
        if name in group.moves or moved_by_name(ff, name):
            continue
        reads = [w for n in ast.walk(res.node) if isinstance(n, ast.Name) and n.id == name
                 and isinstance(n.ctx, ast.Load) and (w := res.value(n)) is not None]
        if reads and all(made_on_the_cpu(w) and set(w.origins) == made for w in reads):
            return name
    return None
