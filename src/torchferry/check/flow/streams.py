"""Generator objects of the run handed to a function as an argument.

Calling a generator function runs none of its body: it returns a generator object, and
each ``next(it)`` (or each turn of ``for x, y in it``) resumes the body up to its next
``yield`` and gives that ``yield``'s value (Python language reference, "Yield
expressions").  So the items of a generator object are what its function's ``yield``
statements give, wherever the object is later consumed: in the scope that made it, or in
a function it is handed to (cs230's ``train(model, ..., data_iterator, ...)`` reading
``next(data_iterator)`` of ``data_loader.data_iterator(data, params)``, a generator
method of the run's own class).

:func:`generator_object` marks the value :func:`~torchferry.check.flow.protocols.generated`
makes for such a call (an origin naming the generator function), and
:func:`passed_generators` tells which parameters of a function every call of the run
hands such an object, with their items: the function's interpretation then binds the
parameter to it, so that ``next(it)`` and ``for x, y in it`` give what the generator
yields.  A parameter some call gives anything else (a list, a loader, a parameter of its
own), or that a call leaves unbound, keeps its symbolic place.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = '''import torch
... def batches(n):
...     for i in range(n):
...         yield torch.zeros(2).cuda(), torch.ones(2)
... def train(it):
...     x, y = next(it)
...     return x
... train(batches(3))
... '''
>>> ff = analyze(ast.parse(src), "<example>")
>>> results = list(ff.results())
>>> train = next(r for r in results if getattr(r.node, "name", "") == "train")
>>> sorted(passed_generators(ff, train))
[0]
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.lattice import Op, Origin, Value, in_path, join_all

if TYPE_CHECKING:
    from torchferry.check.flow.events import ScopeResult
    from torchferry.check.flow.program import FileFlow


def generator_object(v: Value, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Value:
    """``v``, the iterator a call of the generator function ``fn`` of the run gives, with
    an origin that names ``fn`` (the mark :func:`is_generator_object` reads)."""
    origin = Origin(Op.RETURNED, fn.lineno, fn.col_offset, f"generator {fn.name}(...)", node=fn)
    return v._replace(origins=(origin,))


def is_generator_object(v: Value) -> bool:
    """Is ``v`` (every value it may be) a generator object of a generator function of the
    run whose items are known, at places that are no caller's parameters?"""
    if v.item is None or v.elts is not None or v.keys is not None or not v.origins:
        return False
    if not all(o.op is Op.RETURNED and isinstance(o.node, ast.FunctionDef) for o in v.origins):
        return False
    return _concrete(v.item)


def _concrete(v: Value, depth: int = 0) -> bool:
    """Are the places of ``v`` and of its parts known (the places of some) and none of them
    a parameter's of the scope that made it (which would mean nothing in another scope)?"""
    if depth > 4 or v.places is None or any(p.symbolic for p in v.places):
        return False
    parts = [*(v.elts or ()), *((v.item,) if v.item is not None else ()), *(x for _, x in v.keys or ())]
    return all(_concrete(p, depth + 1) for p in parts)


def _calls_resolved(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Is each call of this file that may run ``fn`` (:meth:`FileFlow._calls_of`) one the
    analysis resolved to it?  (A function used other than by a call is named as a value,
    :meth:`FileFlow._value_names`, refused by the caller.)"""
    return ff._calls_of(fn) == len(ff.call_sites.get(id(fn), {}))


def passed_generators(ff: FileFlow, res: ScopeResult) -> dict[int, Value]:
    """The parameters of ``res``'s function, of no kind of their own (no annotation, no
    default that says one), that every call of the run hands a generator object of the
    run (:func:`is_generator_object`), each with the join of those objects as this file
    cites them; empty where a call gives anything else, or no call of the run is known."""
    fn = res.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not _calls_resolved(ff, fn):
        return {}
    first = 1 if ff.is_method(fn) else 0
    out: dict[int, Value] = {}
    for k in range(first, len(res.params)):
        if k in res.param_hints:
            continue
        given = ff.run_arguments(fn, k)
        if not given:
            continue
        found = [v if other is ff else in_path(v, other.path) for other, _, v in given]
        if all(is_generator_object(v) for v in found):
            out[k] = join_all(found)
    return out
