"""What a method of a module parameter's class returns, by every call of the run.

``def train(model, loader, cuda): ... penalty = model.ewc_loss(cuda=cuda)`` in one file,
called as ``train(mlp, ...)`` from another where ``mlp = MLP(...)``: the value of
``model.ewc_loss(...)`` is what ``MLP.ewc_loss`` returns, its ``self`` being where
``model`` is.  A function's summary cannot know it (its parameter is any module); this
asks the callers (:func:`~torchferry.check.flow.passed_classes.passed_classes`), and each
class's method's summary, when a rule needs it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.events import Callee
from torchferry.check.flow.lattice import Value, Where, join_all, substitute
from torchferry.check.flow.passed_classes import passed_classes

if TYPE_CHECKING:
    from torchferry.check.flow.events import ScopeResult
    from torchferry.check.flow.program import FileFlow


def param_method_return(ff: FileFlow, res: ScopeResult, node: ast.AST) -> Value | None:
    """What ``node``, a call ``model.meth(...)`` of the scope ``res`` on a parameter as it
    came in, returns: the join, over the module classes of the run every call of the run
    passes for it (three calls deep), of what each class's ``meth`` (its own or a base's in
    the run; undecorated, not async) returns, its ``self`` where ``model`` is; for a name,
    that of the one call that binds it (:func:`_bound_call`).  None when
    a class is not known, one is no module class, has no such method, or its return has
    an unknown kind or depends on another parameter's place."""
    call = _bound_call(res, node) if isinstance(node, ast.Name) else node
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return None
    c = res.calls.get(id(call))
    if c is None or c.callee is not Callee.METHOD or c.receiver is None:
        return None
    classes = passed_classes(ff, res, c.receiver)
    if not classes:
        return None
    out = []
    for info in classes:
        found = info.method(call.func.attr) if info.is_module else None
        if found is None or found[1].decorator_list or not isinstance(found[1], ast.FunctionDef):
            return None
        owner, fn = found
        summary = owner.ff.summary(fn, ff)
        ret = summary.returns if summary is not None else None
        if ret is None or not ret.kinds or ret.places is None or any(
                p.where is Where.PARAM and p.ref != "0" for p in ret.places):
            return None
        out.append(substitute(ret, {"0": c.receiver}))
    return join_all(out)


def _bound_call(res: ScopeResult, name: ast.Name) -> ast.Call | None:
    """The call whose value ``name`` holds: the one plain assignment ``name = <call>`` of
    the scope, the only binding of the name there (not in a nested function), when the
    name's value here is that call's."""
    binds = [n for n in ast.walk(res.node) if isinstance(n, ast.Name) and n.id == name.id
             and not isinstance(n.ctx, ast.Load)]
    if len(binds) != 1 or name.id in res.params:
        return None
    found = [st.value for st in ast.walk(res.node) if isinstance(st, ast.Assign) and len(st.targets) == 1
             and st.targets[0] is binds[0] and isinstance(st.value, ast.Call)]
    if len(found) != 1 or res.value(found[0]) != res.value(name):
        return None
    return found[0]
