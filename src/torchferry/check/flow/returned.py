"""Moves beside a factory's result that a function of another file returns.

A function of one file of the run returns a factory's CPU result on one path and a tensor
computed from its argument on another (``return torch.tensor([[1]])`` under a condition,
``return torch.argmax(logits)`` otherwise).  The caller's file joins both paths into one
value, whose origins hold the factory of the other file and the moves the caller made on
its own tensors (``gen = torch.zeros(1).to(DEVICE)``; ``nxt = sample(gen)``).  Such a move
acted on the caller's tensor, never on the factory's result, when the tensor it moved was
made or moved by the caller's file alone, and the returning function never combines the
factory's result with another tensor (it may then have been made where that tensor is):
the factory's CPU result reaches the caller whole on its path.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> other = ast.parse("import torch\\ndef sample():\\n    return torch.tensor([[1]])\\n")
>>> home = analyze(other, "sampler.py").scope_of(other.body[1].body[0].value)
>>> made = Origin(Op.MADE, 3, 11, "torch.tensor", path="sampler.py")
>>> tree = ast.parse("import torch\\ndef f(d):\\n    g = torch.zeros(1).to(d)\\n    return g\\n")
>>> ff = analyze(tree, "main.py")
>>> g = tree.body[1].body[1].value
>>> move = [o for o in ff.scope_of(g).value(g).origins if o.op is Op.MOVED][0]
>>> moved_away_from(ff, move, home, made)
True
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.lattice import ORIGIN_CAP, Op, Origin, Value, Where

if TYPE_CHECKING:
    from torchferry.check.flow.events import ScopeResult
    from torchferry.check.flow.program import FileFlow

__all__ = ["moved_away_from"]


def moved_away_from(ff: FileFlow, move: Origin, home: ScopeResult | None, made: Origin) -> bool:
    """Did ``move``, a move of ``ff``'s own code among the origins of a value that also
    holds ``made`` (a factory of another file of the run, ``made.path``), act on a tensor
    other than the factory's result?  Its receiver, as ``ff`` saw it, is known whole: every
    place on the CPU or the device, every origin one that made or moved a tensor of ``ff``
    itself (so none is the factory of the other file); and ``home``, the function of the
    other file that made it, combines no operand holding the factory's result with another
    (``torch.zeros(n) + x`` may be on ``x``'s device).  ``home`` None: not known, so no."""
    node = move.node
    if move.path is not None or made.path is None or home is None or \
            not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    res = ff.scope_of(node.func.value)
    recv = res.value(node.func.value) if res is not None else None
    if recv is None or not recv.places or any(p.where not in (Where.CPU, Where.ACCEL) for p in recv.places):
        return False
    if not recv.origins or len(recv.origins) >= ORIGIN_CAP or any(
            o.op not in (Op.MADE, Op.MOVED) or o.path is not None for o in recv.origins):
        return False
    return not _combined_alone(home, made)


def _combined_alone(res: ScopeResult, made: Origin) -> bool:
    """Does ``res`` (the function of ``made``'s file that made it) combine an operand that
    holds ``made`` with any other, in an operator or a call (its receiver included)?"""
    groups = [[v for _, v in m.operands] for m in res.meets.values()]
    groups += [[*c.args, *(v for _, v in c.keywords), *([c.receiver] if c.receiver else [])]
               for c in res.calls.values()]
    for values in groups:
        flat = _flat(values)
        holds = [v for v in flat if any(_is(o, made) for o in v.origins)]
        if holds and len(flat) > len(holds):
            return True
    return False


def _is(o: Origin, made: Origin) -> bool:
    """Is ``o`` (an origin in the factory's own file) the factory ``made``?"""
    return o.op is Op.MADE and o.path is None and (o.line, o.column) == (made.line, made.column)


def _flat(values: list[Value]) -> list[Value]:
    out: list[Value] = []
    for v in values:
        out.extend(v.elts if v.elts is not None else [v.item] if v.item is not None else [v])
    return out
