"""The classes of the run a module parameter may be, by every call of the run.

``def evaluate(model, loader): ... model(x, dx)`` in one file, called as
``evaluate(model=net, ...)`` from another where ``net`` is ``CNN(...)`` on one branch and
``FNO(...)`` on the other: ``model`` is an instance of one of those two classes, and what
their ``forward`` methods do with ``dx`` is what the call does with it.
:meth:`FileFlow.classes_of` answers from this file's calls alone, and names one class for
a value built on several branches; :func:`passed_classes` asks every call of the run
(:meth:`FileFlow.run_arguments`) and keeps every construction a joined value holds.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.lattice import ORIGIN_CAP, Op, Value, Where

if TYPE_CHECKING:
    from torchferry.check.flow.events import ScopeResult
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: how many calls up the callers are followed
_DEPTH = 3


def passed_classes(ff: FileFlow, res: ScopeResult, module: Value, depth: int = 0) -> list[ClassInfo] | None:
    """The classes of the run whose constructors may have built ``module``, a value of
    ``res`` (a scope of ``ff``): every construction it holds, when it is made only by
    calls of classes of the run in this file (and moved); for a parameter of ``res``'s
    function as it came in, those of what every call of the run passes for it, three calls
    deep.  None when one of them is not known (``self`` of a method, a call that leaves the
    parameter unbound, a value of another make)."""
    made = _constructions(ff, module)
    if made is not None:
        return made
    k = _parameter(module)
    if k is None or depth >= _DEPTH or k == 0 and ff.method_of.get(id(res.node)) is not None:
        return None
    given = ff.run_arguments(res.node, k)
    if not given:
        return None
    out: list[ClassInfo] = []
    for other, caller, v in given:
        found = passed_classes(other, caller, v, depth + 1)
        if found is None:
            return None
        out.extend(found)
    return out


def _constructions(ff: FileFlow, module: Value) -> list[ClassInfo] | None:
    """The classes of the run whose constructors, called in ``ff``, made ``module`` on its
    every path (it may have been moved since); None when one origin is anything else."""
    origins = module.origins
    if not origins or len(origins) >= ORIGIN_CAP or any(o.op not in (Op.MADE, Op.MOVED) for o in origins):
        return None
    out: list[ClassInfo] = []
    for o in origins:
        if o.op is not Op.MADE:
            continue
        info = ff.class_called(o.node) if o.path is None and isinstance(o.node, ast.Call) else None
        if info is None:
            return None
        out.append(info)
    return out or None


def _parameter(v: Value) -> int | None:
    """The index of the parameter ``v`` is, as it came in (not moved, not computed with)."""
    places = v.places or ()
    if len(places) != 1 or not v.origins or any(o.op is not Op.PARAM for o in v.origins):
        return None
    p = next(iter(places))
    return int(p.ref) if p.where is Where.PARAM else None
