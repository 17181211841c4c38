"""The items of a loader's batch: which loop a value is an item of, whether it is still
on the CPU, and which items each loop moves to a device.

In::

    for inputs, labels in loader:
        inputs = inputs.to(device)          # a move of an item of the loop's batch
        loss = criterion(model(inputs), labels)

``labels`` is an item of the loop's batch left on the CPU (:func:`unmoved_item` gives the
loop), and :func:`batch_moves` keys ``inputs.to(device)`` by the same loop.
"""

from __future__ import annotations

import ast

from torchferry.check.flow.events import Callee, CallEvent, ScopeResult
from torchferry.check.flow.lattice import CPU, Kind, Op, Value, Where
from torchferry.check.flow.vocab import ACCEL_MOVE_NAMES


def batch_moves(res: ScopeResult) -> dict[int, list[CallEvent]]:
    """Moves to a device of items of each loop's batch (keyed by the loop): of an item
    itself, or of what a call the analysis cannot see into made of one (a tokenizer's
    output, ``tokenizer(batch["text"], return_tensors="pt").to(device)``)."""
    out: dict[int, list[CallEvent]] = {}
    for c in res.calls.values():
        recv = c.receiver
        if c.callee is not Callee.METHOD or c.qualname not in ACCEL_MOVE_NAMES or recv is None:
            continue
        loop = loop_of(recv) if recv.is_(Kind.BATCH) else made_of_an_item(res, recv)
        if loop is not None and c.result.may_live(Where.ACCEL):
            out.setdefault(id(loop), []).append(c)
    for moves in out.values():
        moves.sort(key=lambda c: (c.node.lineno, c.node.col_offset))
    return out


def made_of_an_item(res: ScopeResult, v: Value) -> ast.AST | None:
    """The loop whose batch gave an item, as the first argument, to the call that made
    ``v`` last: a call the analysis cannot see into or a module's."""
    if not v.origins or v.origins[0].op not in (Op.RETURNED, Op.OUTPUT):
        return None
    made = res.calls.get(id(v.origins[0].node))
    if made is None or made.callee not in (Callee.UNRESOLVED, Callee.MODULE) or not made.args:
        return None
    item = made.args[0]
    return loop_of(item) if item.is_(Kind.BATCH) else None


def loop_of(v: Value) -> ast.AST | None:
    """The loop whose batch ``v`` comes from (its first origin from a batch)."""
    o = next((o for o in v.origins if o.op is Op.BATCH), None)
    return o.node if o is not None else None


def unmoved_item(v: Value) -> ast.AST | None:
    """The loop whose batch ``v`` is an item of, if it is still on the CPU."""
    if not v.is_(Kind.BATCH) or v.places != {CPU} or any(o.op is Op.MOVED for o in v.origins):
        return None
    return loop_of(v)


def whole_batch_of(a: ast.AST, loop: ast.AST) -> bool:
    """The whole batch of ``for batch in loader`` (not one of its items)."""
    target = getattr(loop, "target", None)
    return isinstance(target, ast.Name) and isinstance(a, ast.Name) and a.id == target.id
