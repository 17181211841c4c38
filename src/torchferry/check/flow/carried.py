"""What a scope computes of a value moved to a device whose kind the analysis does not know.

In::

    def output_to_target(output):
        output = [o.to(device) for o in output]   # each ``o``: moved, of unknown kind
        for i, o in enumerate(output):
            for pred in o:
                w = pred[2] - pred[0]              # an item of an item, computed on

``o.to(device)`` may move a tensor, a module or an object of a library; the analysis keeps
its place but not its kind.  :func:`carried_move` tells, for an expression, whether it is
such a moved value itself, or an item of it (``o[4]``, ``for pred in o``, the items of a
list of them, ``enumerate``/``zip`` of such lists), or arithmetic on these (``pred[2] -
pred[0]``), followed through the names of the scope: the value is then where the move put
it, and where a use says it is a tensor (NumPy reading it, a tensor's method), a tensor.
An attribute or a method's result (``g.num_nodes``, ``pipe.decode(z)``) is not carried:
it may be anything.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = ("import torch\\ndev = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\\n"
...        "def f(o):\\n    o = o.to(dev)\\n    x = o[0] / 5\\n    n = o.num_nodes\\n    return x, n\\n")
>>> res = next(r for r in FileFlow(ast.parse(src), "<example>").results() if getattr(r.node, "name", "") == "f")
>>> x, n = res.node.body[-1].value.elts
>>> carried_move(res, x).line, carried_move(res, n)
(4, None)
"""

from __future__ import annotations

import ast

from torchferry.check.flow.events import ScopeResult
from torchferry.check.flow.lattice import ACCEL, Op, Origin

#: names followed back through their bindings at most this deep
_DEPTH = 8


def carried_move(res: ScopeResult, node: ast.expr) -> Origin | None:
    """The move to a place that may be an accelerator of a value of unknown kind that
    ``node``, an expression of ``res`` of unknown kind that may be there, holds or is an
    item or arithmetic of (see the module's docstring); None for anything else."""
    v = res.value(node)
    if v is None or v.kinds is not None or not v.places or ACCEL not in v.places:
        return None
    move = next((o for o in v.origins if o.op is Op.MOVED), None)
    if move is None or move.path is not None or move.to is None or ACCEL not in move.to or \
            not isinstance(move.node, ast.Call):
        return None
    return move if _carries(res, node, move.node, _bindings(res), 0) else None


Bindings = dict[str, list[ast.expr]]


def _bindings(res: ScopeResult) -> Bindings:
    """Each name of the scope -> the expressions it is bound from: the value of an
    assignment (by position where a tuple is unpacked from a tuple written out), the
    iterated expression of a loop or comprehension (for ``enumerate(xs)`` and ``zip(xs,
    ys)``, the one at the name's position)."""
    out: Bindings = {}
    for n in ast.walk(res.node):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                _bind(out, t, n.value, iterated=False)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and n.value is not None:
            _bind(out, n.target, n.value, iterated=False)
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            _bind(out, n.target, n.iter, iterated=True)
    return out


def _bind(out: Bindings, target: ast.expr, value: ast.expr, iterated: bool) -> None:
    if isinstance(target, ast.Name):
        out.setdefault(target.id, []).append(value)
        return
    if not isinstance(target, (ast.Tuple, ast.List)):
        return
    spread = value.args if iterated and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id == "zip" and not value.keywords and len(value.args) == len(target.elts) else None
    if iterated and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
            value.func.id == "enumerate" and value.args and len(target.elts) == 2:
        _bind(out, target.elts[1], value.args[0], iterated=True)
        return
    if not iterated and isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
        spread = value.elts
    for k, e in enumerate(target.elts):
        if spread is not None:
            _bind(out, e, spread[k], iterated)
        else:  # (an item of what is unpacked, or iterated)
            for name in (x for x in ast.walk(e) if isinstance(x, ast.Name)):
                out.setdefault(name.id, []).append(value)


def _carries(res: ScopeResult, e: ast.expr, move: ast.AST, binds: Bindings, depth: int) -> bool:
    """Is ``e`` the result of ``move``, an item of it, or arithmetic on one of these?"""
    if e is move:
        return True
    if depth > _DEPTH:
        return False
    if isinstance(e, ast.Subscript):  # (by a position or a slice, not by a key: ``o["name"]``)
        key = e.slice
        if isinstance(key, ast.Constant) and not isinstance(key.value, int):
            return False
        return _carries(res, e.value, move, binds, depth + 1)
    if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.Mod):
        return any(_carries(res, x, move, binds, depth + 1) for x in (e.left, e.right))
    if isinstance(e, ast.UnaryOp) and not isinstance(e.op, ast.Not):
        return _carries(res, e.operand, move, binds, depth + 1)
    if isinstance(e, (ast.List, ast.Tuple)):
        return any(_carries(res, x, move, binds, depth + 1) for x in e.elts)
    if isinstance(e, (ast.ListComp, ast.GeneratorExp)):
        return _carries(res, e.elt, move, binds, depth + 1)
    if isinstance(e, ast.Name):
        return _name_carries(res, e, move, binds, depth)
    return False


def _name_carries(res: ScopeResult, e: ast.Name, move: ast.AST, binds: Bindings, depth: int) -> bool:
    """Every binding of the name whose value holds the move carries it (and one does)."""
    holding = [b for b in binds.get(e.id, ()) if _holds_move(res, b, move)]
    return bool(holding) and all(_carries(res, b, move, binds, depth + 1) for b in holding)


def _holds_move(res: ScopeResult, e: ast.expr, move: ast.AST) -> bool:
    """Does the value of ``e`` (or of its items) have ``move`` among its origins?"""
    v = res.value(e)
    while v is not None:
        if any(o.node is move for o in v.origins):
            return True
        v = v.item
    return False
