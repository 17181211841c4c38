"""A number a module's ``forward`` returns beside its tensors, by the classes of the run.

``loss, metric = metric_func(out, y)``, where ``metric_func`` is an instance of a module
class of the run whose ``forward`` ends with ``return loss, loss.sqrt().item()``: the
second item is a Python number, on no device, whatever the inputs' place.  The module's
output is otherwise taken for a tensor where the module computes
(:func:`~torchferry.check.flow.resolve.module_call`); this says, for one position of it,
what every ``forward`` it may run returns there.  The module is one this file builds
(``metric_func = L2()``), or a parameter that every call of the run passes an instance of
a class of the run (:func:`~torchferry.check.flow.passed_classes.passed_classes`, asked
only in an interpretation made once every call of the run is known:
:attr:`Interp.modules <torchferry.check.flow.interp.Interp.modules>`)::

    class L2(nn.Module):
        def forward(self, p, t):
            loss = ((p - t) ** 2).mean()
            return loss, loss.sqrt().item()

    def validate(model, metric_func, loader, device):
        ...
        _, metric = metric_func(model(x), u)   # a number: NumPy may read a list of them
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.events import Callee
from torchferry.check.flow.lattice import Basis, Kind, Op, Value, Where
from torchferry.check.flow.passed_classes import passed_classes

if TYPE_CHECKING:
    from torchferry.check.flow.interp import Interp
    from torchferry.check.flow.program import ClassInfo

#: the kinds an item is taken for when every ``forward`` returns one of them there
_NUMBER = frozenset((Kind.SCALAR,))


def output_item(i: Interp, out: Value, index: int, count: int | None = None) -> Value | None:
    """Item ``index`` of ``out``, the output of a module call of the scope ``i``
    interprets, where every class of the run the module may be an instance of
    (:func:`_module_classes`) has a ``forward`` (its own or a base's in the run, not
    decorated, not async; the ``__call__`` that replaces it, where the class has one) that returns a tuple written out (of
    ``count`` items, for an unpacking) whose item there is surely a number: a number, on
    no place.  None when not so."""
    if not out.is_(Kind.TENSOR) or not out.origins or out.origins[0].op is not Op.OUTPUT:
        return None
    call = i.res.calls.get(id(out.origins[0].node))
    if call is None or call.callee is not Callee.MODULE or call.func is None:
        return None
    classes = _module_classes(i, call.func)
    if not classes:
        return None
    for info in classes:
        item = _returned_item(i, info, index, count)
        if item is None or item.kinds is None or not item.kinds <= _NUMBER:
            return None
    return Value(_NUMBER, frozenset(), out.origins, Basis.INFERRED)


def _module_classes(i: Interp, module: Value) -> list[ClassInfo] | None:
    """The module classes of the run ``module`` may be an instance of: those whose
    constructors, called in this file, built it, or, for a parameter as it came in that
    every call of the run passes a module (:attr:`Interp.modules`), those of what they pass
    (three calls deep)."""
    places = module.places or frozenset()
    param = next(iter(places)) if len(places) == 1 else None
    by_callers = param is not None and param.where is Where.PARAM and int(param.ref) in i.modules
    if not by_callers and any(o.op is Op.PARAM for o in module.origins):
        return None
    found = passed_classes(i.ff, i.res, module)
    if not found or not all(info.is_module for info in found):
        return None
    return found


def _returned_item(i: Interp, info: ClassInfo, index: int, count: int | None) -> Value | None:
    """Item ``index`` of the tuple that ``forward`` of ``info`` returns on its every path
    (``count`` items), or None."""
    found = info.forward_method()
    if found is None or found[1].decorator_list or not isinstance(found[1], ast.FunctionDef):
        return None
    summary = found[0].ff.summary(found[1], i.ff)
    ret = summary.returns if summary is not None else None
    if ret is None or ret.elts is None or count is not None and len(ret.elts) != count:
        return None
    if not -len(ret.elts) <= index < len(ret.elts):
        return None
    return ret.elts[index]
