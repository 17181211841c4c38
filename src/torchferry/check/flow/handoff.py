"""What a call can change of what it is given: the arguments it hands off.

A value given to a call may come back moved (``setup(model)`` running ``model.cuda()``),
or be kept by the callee and moved later with what keeps it (``Trainer(model)``); a rule
that asks whether a model is still where it was built must then stop.  Only what the
callee can change is handed off:

* a function of the run hands off the parameters its summary does not keep in place
  (:func:`handed_params`): those it moves, stores, returns, binds to another name or
  passes on to a call that hands them off in turn; every other parameter is only read
  (``model.eval()``, ``model(x)``, ``next(model.parameters()).device``);
* a function of the library that the vocabulary knows keeps its arguments in place
  (:func:`~torchferry.check.flow.vocab.keeps_arguments`: ``torch.cat``, ``F.relu``,
  ``clip_grad_norm_``, NumPy's functions) hands off nothing;
* a call the analysis cannot follow hands off what it could change by mutation: anything
  but a value known to be a tensor, an array, a number or a device, whose place no
  callee can change in place (:func:`by_value`).
"""

from __future__ import annotations

import ast

import torchferry.check.flow.vocab as vocab
from torchferry.check.flow.events import Callee, ScopeResult
from torchferry.check.flow.lattice import Kind, Value

#: kinds of value a callee cannot move in place: a tensor's device is fixed once made
BY_VALUE = frozenset({Kind.TENSOR, Kind.NDARRAY, Kind.SCALAR, Kind.DEVICE, Kind.OTHER})
#: methods whose result reaches into the receiver (its parameters, its submodules, the
#: module itself): what becomes of the result may change the receiver
REACHING_METHODS = frozenset(
    "parameters named_parameters buffers named_buffers modules named_modules children "
    "named_children state_dict eval train float half double bfloat16 requires_grad_ "
    "get_submodule get_parameter".split())
#: methods that read the receiver and give back something new (a tensor computed from it,
#: a number) or nothing, and keep nothing they are given
READING_METHODS = (vocab.TENSOR_METHODS - {"copy_"}) | frozenset(
    "forward zero_grad load_state_dict item tolist size dim numel".split())
#: builtins that read their arguments and keep none of them
READING_BUILTINS = vocab.SCALAR_BUILTINS | frozenset({"type", "id", "callable"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def by_value(v: Value | None) -> bool:
    """Is ``v`` known to be something no callee can move in place (a tensor, an array, a
    number, a device, a string)?"""
    return v is not None and bool(v.kinds) and v.kinds is not None and v.kinds <= BY_VALUE


def handed_params(res: ScopeResult) -> frozenset[int]:
    """The parameters (by index) that the function of ``res`` may change or keep: every
    parameter with a read that is not surely harmless (:func:`_stays`), or that the
    function moves in place."""
    if res.handed is not None:
        return res.handed
    parents, found = _reads_of(res.node, frozenset(res.params))
    reads = {p: [_NESTED if nested else n for n, nested in ns] for p, ns in found.items()}
    handed = frozenset(
        k for k, p in enumerate(res.params)
        if k in res.param_moves or any(n is _NESTED or not _stays(res, parents, n)
                                       for n in reads.get(p, ())))
    res.handed = handed
    return handed


_NESTED = ast.Name(id="", ctx=ast.Load())  # (a read in a nested function or class)


def read_in_place(res: ScopeResult, name: str, but: frozenset[int]) -> bool:
    """Is every read of ``name`` in the scope of ``res`` (but the expressions ``but``)
    one that keeps its value in place (:func:`_stays`), none in a nested function?"""
    parents, reads = _reads_of(res.node, frozenset((name,)))
    return all(not nested and _stays(res, parents, n) for n, nested in reads.get(name, ())
               if id(n) not in but)


Reads = dict[str, list[tuple[ast.Name, bool]]]


def _reads_of(scope: ast.AST, names: frozenset[str]) -> tuple[dict[int, ast.AST], Reads]:
    """The parent of every node below ``scope`` (by id), and the loads of each of
    ``names`` there, each with whether it is in a nested function, lambda or class (in no
    particular order).  One pass over the nodes, without generators.

    >>> fn = ast.parse("def f(a, b):\\n    g(a.x)\\n    h = lambda: b\\n").body[0]
    >>> parents, reads = _reads_of(fn, frozenset({"a", "b"}))
    >>> [(type(parents[id(n)]).__name__, nested) for n, nested in reads["a"] + reads["b"]]
    [('Attribute', False), ('Lambda', True)]
    """
    parents: dict[int, ast.AST] = {}
    reads: Reads = {}
    node_type, name_type, load, scopes = ast.AST, ast.Name, ast.Load, _SCOPES
    todo: list[tuple[ast.AST, bool]] = [(scope, False)]
    while todo:
        node, nested = todo.pop()
        for field in node._fields:
            v = getattr(node, field, None)
            for child in v if type(v) is list else (v,):
                if not isinstance(child, node_type):
                    continue
                parents[id(child)] = node
                if isinstance(child, name_type):
                    if child.id in names and isinstance(child.ctx, load):
                        reads.setdefault(child.id, []).append((child, nested))
                else:
                    todo.append((child, nested or isinstance(child, scopes)))
    return parents, reads


def _stays(res: ScopeResult, parents: dict[int, ast.AST], n: ast.expr) -> bool:
    """Is the value of ``n`` (a parameter, or something read off it) only read where it
    is: called, compared, tested, read off, or given to a call that keeps it in place?"""
    parent = parents.get(id(n))
    if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is n:
        above = parents.get(id(parent))
        if isinstance(above, ast.Call) and above.func is parent and isinstance(parent, ast.Attribute):
            return _kept_by_method(res, parents, above, parent.attr)
        return isinstance(parent.ctx, ast.Load) and _stays(res, parents, parent)
    if isinstance(parent, ast.keyword):
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and _kept_by_call(res, call, n)
    if isinstance(parent, ast.Call):
        return parent.func is n or _kept_by_call(res, parent, n)
    if isinstance(parent, ast.BoolOp):  # (``m = model or default``: the value itself)
        return _stays(res, parents, parent)
    if isinstance(parent, (ast.If, ast.While, ast.Assert, ast.IfExp)):
        return getattr(parent, "test", None) is n
    return isinstance(parent, (ast.Compare, ast.UnaryOp, ast.BinOp, ast.FormattedValue, ast.Expr))


def _kept_by_method(res: ScopeResult, parents: dict[int, ast.AST], call: ast.Call, attr: str) -> bool:
    """``<value>.attr(...)``: a method of a function of the run that keeps its receiver in
    place, or one that only reads it (its result, when it reaches into the receiver,
    only read too)."""
    if attr in vocab.MOVE_NAMES:
        return False
    decided = res.handed_calls.get(id(call))
    if decided is not None:
        return isinstance(call.func, ast.Attribute) and id(call.func.value) not in decided
    if attr in REACHING_METHODS:
        return _stays(res, parents, call)
    return attr in READING_METHODS


def _kept_by_call(res: ScopeResult, call: ast.Call, arg: ast.expr) -> bool:
    """Does ``call`` keep its argument ``arg`` in place?"""
    c = res.calls.get(id(call))
    if c is None:
        return False
    decided = res.handed_calls.get(id(call))
    if decided is not None:
        return id(arg) not in decided
    if c.callee in (Callee.TORCH, Callee.NUMPY):
        return c.qualname is not None and vocab.keeps_arguments(c.qualname)
    if c.callee is Callee.BUILTIN:
        return c.qualname in READING_BUILTINS
    return c.callee is Callee.MODULE  # (a layer computes with its input)


def handed_arguments(call: ast.Call, result: ScopeResult, first: int,
                     receiver: ast.expr | None) -> frozenset[int]:
    """The argument expressions (by id) that a call of the function of ``result`` hands
    off: those bound to a parameter it hands off (:func:`handed_params`), to none (past
    its named parameters), or spread (``*args``, ``**kw``); ``first``: the parameter the
    first positional argument binds; ``receiver``: the expression bound to parameter 0."""
    handed = handed_params(result)
    params = result.params
    out: set[int] = set()
    if receiver is not None and 0 in handed:
        out.add(id(receiver))
    spread = any(isinstance(a, ast.Starred) for a in call.args) or \
        any(k.arg is None for k in call.keywords)
    for k, a in enumerate(call.args):
        if spread or k + first >= len(params) or k + first in handed:
            out.add(id(a))
    for kw in call.keywords:
        if spread or kw.arg not in params or params.index(kw.arg) in handed:
            out.add(id(kw.value))
    return frozenset(out)
