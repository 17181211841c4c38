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

Where a rule asks only whether a call may *move* a module it is given, not whether it may
change it, a second summary answers (:func:`place_effects`, an :class:`Effect` for each
parameter): a function that only copies state into or out of a module keeps it in place
(``target.load_state_dict(main.state_dict())``, ``for t, s in zip(target.parameters(),
main.parameters()): t.data.copy_(s.data)``), though it hands the target off (it writes it),
and so does ``m.apply(fn)`` of a function nested in it that only tests each submodule and
sets a constant or another of its own attributes on it (:func:`sets_attributes_only`).
"""

from __future__ import annotations

import ast

import torchferry.check.flow.vocab as vocab
from torchferry.check.flow.events import Callee, Effect, ScopeResult
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
#: methods that write values into their receiver (a tensor) and leave it where it is
WRITING_METHODS = frozenset(
    "copy_ add_ sub_ mul_ div_ lerp_ zero_ fill_ clamp_ addcmul_ addcdiv_".split())
#: methods that copy the state of their argument into the receiver, leaving the argument
#: where it is (a module's or an optimizer's ``load_state_dict``)
COPYING_METHODS = frozenset({"load_state_dict"})
#: builtins whose result, iterated, gives the items of their arguments
ITERATING_BUILTINS = frozenset({"zip", "enumerate", "iter", "list", "tuple", "reversed"})
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
    parents, found = _param_reads(res)
    reads = {p: [_NESTED if nested else n for n, nested in ns] for p, ns in found.items()}
    handed = frozenset(
        k for k, p in enumerate(res.params)
        if k in res.param_moves or any(n is _NESTED or not _stays(res, parents, n)
                                       for n in reads.get(p, ())))
    res.handed = handed
    return handed


_NESTED = ast.Name(id="", ctx=ast.Load())  # (a read in a nested function or class)


def place_effects(res: ScopeResult) -> tuple[Effect, ...]:
    """What the function of ``res`` may do to the place of each parameter (by index): it
    keeps it in place when it moves it nowhere and every read of it, none in a nested
    function, leaves it where it is, writing values into it allowed (:func:`stays_in_place`);
    a call of a function of the run counts by that function's own effects."""
    if res.effects is not None:
        return res.effects
    parents, found = _param_reads(res)
    effects = tuple(
        Effect.MAY_MOVE if k in res.param_moves or any(
            nested or not _stays(res, parents, n, place=True) for n, nested in found.get(p, ()))
        else Effect.KEEPS_PLACE
        for k, p in enumerate(res.params))
    res.effects = effects
    return effects


def stays_in_place(res: ScopeResult, parents: dict[int, ast.AST], n: ast.expr) -> bool:
    """Does the read ``n`` in the scope of ``res`` (``parents``: the parent of each node
    there, by id) leave the module it reads where it is: called, read off, saved, its state
    read (``m.state_dict()``) or written (``m.load_state_dict(sd)``, ``p.data.copy_(x)`` for
    each ``p`` of ``m.parameters()``), or given to a call that keeps it in place?"""
    return _stays(res, parents, n, place=True)


def parents_of(scope: ast.AST) -> dict[int, ast.AST]:
    """The parent of every node below ``scope``, by id."""
    return _reads_of(scope, frozenset())[0]


def read_in_place(res: ScopeResult, name: str, but: frozenset[int]) -> bool:
    """Is every read of ``name`` in the scope of ``res`` (but the expressions ``but``)
    one that keeps its value in place (:func:`_stays`), none in a nested function?"""
    parents, reads = _reads_of(res.node, frozenset((name,)))
    return all(not nested and _stays(res, parents, n) for n, nested in reads.get(name, ())
               if id(n) not in but)


Reads = dict[str, list[tuple[ast.Name, bool]]]


def _param_reads(res: ScopeResult) -> tuple[dict[int, ast.AST], Reads]:
    """:func:`_reads_of` the parameters of ``res``'s function, walked once per result."""
    if res.param_reads is None:
        res.param_reads = _reads_of(res.node, frozenset(res.params))
    return res.param_reads


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


def _stays(res: ScopeResult, parents: dict[int, ast.AST], n: ast.expr, place: bool = False) -> bool:
    """Is the value of ``n`` (a parameter, or something read off it) only read where it
    is: called, compared, tested, read off, or given to a call that keeps it in place?
    With ``place``, writing values into it where it is counts as a read too."""
    parent = parents.get(id(n))
    if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is n:
        above = parents.get(id(parent))
        if isinstance(above, ast.Call) and above.func is parent and isinstance(parent, ast.Attribute):
            return _kept_by_method(res, parents, above, parent.attr, place)
        return isinstance(parent.ctx, ast.Load) and _stays(res, parents, parent, place)
    if isinstance(parent, ast.keyword):
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and _kept_by_call(res, call, n, place)
    if place and isinstance(parent, (ast.Call, ast.For, ast.AsyncFor)) and _iterated_in_place(res, parents, n):
        return True
    if isinstance(parent, ast.Call):
        return parent.func is n or _kept_by_call(res, parent, n, place)
    if isinstance(parent, ast.BoolOp):  # (``m = model or default``: the value itself)
        return _stays(res, parents, parent, place)
    if isinstance(parent, (ast.If, ast.While, ast.Assert, ast.IfExp)):
        return getattr(parent, "test", None) is n
    return isinstance(parent, (ast.Compare, ast.UnaryOp, ast.BinOp, ast.FormattedValue, ast.Expr))


def _kept_by_method(res: ScopeResult, parents: dict[int, ast.AST], call: ast.Call, attr: str,
                    place: bool = False) -> bool:
    """``<value>.attr(...)``: a method of a function of the run that keeps its receiver in
    place, or one that only reads it (its result, when it reaches into the receiver,
    only read too); with ``place``, also one that writes values into it."""
    if attr in vocab.MOVE_NAMES:
        return False
    decided = (res.moving_calls if place else res.handed_calls).get(id(call))
    if decided is not None:
        return isinstance(call.func, ast.Attribute) and id(call.func.value) not in decided
    if attr in REACHING_METHODS:
        return _stays(res, parents, call, place)
    if place and attr == "apply":
        fn = _nested_def(res.node, call)
        return fn is not None and sets_attributes_only(fn)
    return attr in READING_METHODS or place and attr in WRITING_METHODS


def _nested_def(scope: ast.AST, call: ast.Call) -> ast.FunctionDef | None:
    """The function ``call`` (``m.apply(fn)``) is given alone, when ``fn`` names a
    function defined once in ``scope`` (a nested ``def``) and bound by nothing else there."""
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Name):
        return None
    name = call.args[0].id
    defs = [n for n in ast.walk(scope) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.name == name]
    stores = [n for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id == name
              and not isinstance(n.ctx, ast.Load)]
    if len(defs) != 1 or stores or not isinstance(defs[0], ast.FunctionDef):
        return None
    return defs[0]


#: builtins that test their first argument and keep nothing of it
TESTING_BUILTINS = frozenset({"isinstance", "hasattr"})


def sets_attributes_only(fn: ast.FunctionDef) -> bool:
    """Does ``fn`` (given to ``Module.apply``, which calls it on each submodule) leave the
    module it is given where it is: every read of its first parameter, which nothing
    rebinds and no nested function reads, tested (``isinstance(m, _BatchNorm)``,
    ``hasattr(m, "x")``, a comparison), or an attribute of it set to a constant or to
    another of its own attributes (``m.momentum = 0``, ``m.backup = m.momentum``), which
    puts no tensor of anywhere else on it?  Undecorated, with no ``global`` statement."""
    args = fn.args
    if fn.decorator_list or not args.args or args.vararg or args.kwarg or \
            any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fn)):
        return False
    name = args.args[0].arg
    shadowed = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    if name in shadowed or shadowed & TESTING_BUILTINS:
        return False
    parents, reads = _reads_of(fn, frozenset((name,)))
    return all(not nested and _sets_or_tests(parents, n, name) for n, nested in reads.get(name, ()))


def _sets_or_tests(parents: dict[int, ast.AST], n: ast.Name, name: str) -> bool:
    """Is the read ``n`` of the module ``name`` a test of it or a store of a constant or
    of its own attribute into an attribute of it (:func:`sets_attributes_only`)?"""
    up = parents.get(id(n))
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in TESTING_BUILTINS:
        return bool(up.args) and up.args[0] is n and not up.keywords
    if isinstance(up, ast.Compare):
        return True
    if not isinstance(up, ast.Attribute) or up.value is not n:
        return False
    st = parents.get(id(up))
    if isinstance(up.ctx, ast.Store):
        return isinstance(st, ast.Assign) and _own_or_constant(st.value, name)
    if isinstance(st, ast.Assign) and st.value is up:
        return all(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == name
                   for t in st.targets)
    return isinstance(st, ast.Compare) or isinstance(st, ast.Call) and isinstance(st.func, ast.Name) \
        and st.func.id in TESTING_BUILTINS and st.args[:1] == [up]


def _own_or_constant(value: ast.expr, name: str) -> bool:
    """A constant (a number, a string, ``None``) or ``<name>.<attr>`` read off the same
    module."""
    if isinstance(value, ast.Constant):
        return True
    return isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == name


def _kept_by_call(res: ScopeResult, call: ast.Call, arg: ast.expr, place: bool = False) -> bool:
    """Does ``call`` keep its argument ``arg`` in place?  With ``place``, a copy of its
    state or values into another module or tensor (``target.load_state_dict(sd)``,
    ``t.data.copy_(p.data)``) does too."""
    c = res.calls.get(id(call))
    if c is None:
        return False
    decided = (res.moving_calls if place else res.handed_calls).get(id(call))
    if decided is not None:
        return id(arg) not in decided
    if place and isinstance(call.func, ast.Attribute) and call.func.attr in COPYING_METHODS | WRITING_METHODS \
            and any(a is arg for a in call.args):
        return True  # (``t.copy_(p)``, ``target.load_state_dict(sd)``: the argument read)
    if c.callee in (Callee.TORCH, Callee.NUMPY):
        return c.qualname is not None and vocab.keeps_arguments(c.qualname)
    if c.callee is Callee.BUILTIN:
        return c.qualname in READING_BUILTINS
    return c.callee is Callee.MODULE  # (a layer computes with its input)


def _iterated_in_place(res: ScopeResult, parents: dict[int, ast.AST], n: ast.expr) -> bool:
    """Is ``n`` (``model.parameters()``) iterated by a ``for`` of the scope, directly or
    through builtins that give the items of their arguments (``zip(a.parameters(),
    b.parameters())``, ``enumerate(...)``), whose target names are, wherever the scope reads
    them, only read or written where they are (``t.data.copy_(s.data)``)?"""
    up = parents.get(id(n))
    while isinstance(up, ast.Call) and any(a is n for a in up.args):
        c = res.calls.get(id(up))
        if c is None or c.callee is not Callee.BUILTIN or c.qualname not in ITERATING_BUILTINS:
            return False
        n, up = up, parents.get(id(up))
    if not isinstance(up, (ast.For, ast.AsyncFor)) or up.iter is not n:
        return False
    names = {t.id for t in ast.walk(up.target) if isinstance(t, ast.Name)}
    if not names or not all(isinstance(t, (ast.Name, ast.Tuple, ast.List, ast.Store))
                            for t in ast.walk(up.target)):
        return False
    names -= _item_names(n, up.target)
    _, reads = _reads_of(res.node, frozenset(names))
    return all(not nested and _stays(res, parents, r, place=True)
               for ns in reads.values() for r, nested in ns)


#: a module's methods that yield ``(name, item)`` pairs, the name a string
NAMED_ITEMS = frozenset({"named_parameters", "named_buffers", "named_modules", "named_children"})


def _item_names(it: ast.expr, target: ast.expr) -> set[str]:
    """The name a loop binds to the string of each pair that ``it`` yields, iterated
    directly (``for name, p in m.named_parameters()``: ``name``): a string, not part of
    the module, wherever it goes."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in NAMED_ITEMS \
            and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 \
            and isinstance(target.elts[0], ast.Name):
        return {target.elts[0].id}
    return set()


def handed_arguments(call: ast.Call, result: ScopeResult, first: int,
                     receiver: ast.expr | None) -> frozenset[int]:
    """The argument expressions (by id) that a call of the function of ``result`` hands
    off: those bound to a parameter it hands off (:func:`handed_params`), to none (past
    its named parameters), or spread (``*args``, ``**kw``); ``first``: the parameter the
    first positional argument binds; ``receiver``: the expression bound to parameter 0."""
    return _bound_to(call, result.params, handed_params(result), first, receiver)


def moving_arguments(call: ast.Call, result: ScopeResult, first: int,
                     receiver: ast.expr | None) -> frozenset[int]:
    """The argument expressions (by id) that a call of the function of ``result`` may
    move: those bound to a parameter it may move (:func:`place_effects`), to none, or
    spread; ``first`` and ``receiver`` as for :func:`handed_arguments`."""
    effects = place_effects(result)
    moving = frozenset(k for k, e in enumerate(effects) if e is Effect.MAY_MOVE)
    return _bound_to(call, result.params, moving, first, receiver)


def _bound_to(call: ast.Call, params: tuple[str, ...], chosen: frozenset[int], first: int,
              receiver: ast.expr | None) -> frozenset[int]:
    """The argument expressions (by id) of ``call`` bound to a parameter of ``chosen``
    (by index), to none, or spread."""
    out: set[int] = set()
    if receiver is not None and 0 in chosen:
        out.add(id(receiver))
    spread = any(isinstance(a, ast.Starred) for a in call.args) or \
        any(k.arg is None for k in call.keywords)
    for k, a in enumerate(call.args):
        if spread or k + first >= len(params) or k + first in chosen:
            out.add(id(a))
    for kw in call.keywords:
        if spread or kw.arg not in params or params.index(kw.arg) in chosen:
            out.add(id(kw.value))
    return frozenset(out)
