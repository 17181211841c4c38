"""What a rule asks the device-flow analysis about one expression of its file: what the
value is and where it lives, in the analysis's own terms (:class:`Kind`, :class:`Where`).

Each question is answered from the scope that evaluated the expression
(:meth:`FileFlow.scope_of`); an expression no scope evaluated (unreachable code) answers
no.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = ("import torch\\nhost = torch.device('cpu')\\nnet = torch.nn.Linear(2, 2).cuda()\\n"
...        "y = net(torch.ones(2).cuda())\\nnet.to(host)\\nprint(y)\\n")
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> names = {n.id: n for n in ast.walk(tree) if isinstance(n, ast.Name) and type(n.ctx) is ast.Load}
>>> is_module(ff, names["net"]), is_cpu_device(ff, names["host"]), on_device_tensor(ff, names["y"])
(True, True, True)
"""

from __future__ import annotations

import ast

from torchferry.check.flow.events import Callee, CallEvent, ScopeResult
from torchferry.check.flow.lattice import ACCEL, ORIGIN_CAP, Basis, Kind, Op, Origin, Value, Where
from torchferry.check.flow.program import FileFlow
from torchferry.check.flow.vocab import (
    CALLED_MODULE_METHODS,
    KEEPING_WRAPPERS,
    MODEL_NAME,
    WRAPPERS,
)

#: a tensor, or an item of a batch (moved, or not)
_TENSORS = frozenset({Kind.TENSOR, Kind.BATCH})
_MODULE = frozenset({Kind.MODULE})


def value_of(ff: FileFlow, node: ast.AST) -> tuple[ScopeResult, Value] | None:
    """The scope that evaluated ``node`` and the value it had there (None: not evaluated)."""
    res = ff.scope_of(node)
    v = res.value(node) if res is not None else None
    return None if res is None or v is None else (res, v)


def is_module(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a module: known as one (made as one, or a parameter the function calls or
    uses as one), or of unknown kind and named as models and losses are (``model``,
    ``self.net``, ``criterion``)?  (Not what a module's output is: that may be anything.)"""
    found = value_of(ff, node)
    if found is None:
        return False
    res, v = found
    kinds = v.kinds
    if kinds is None and v.origins and v.origins[0].op is Op.PARAM:
        kinds = res.kind_of(v)  # a parameter as it came in: what the function uses it as
    if kinds is not None:
        return kinds == _MODULE
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    if name[:1].islower() and MODEL_NAME.match(name) is not None:
        return True
    return isinstance(node, ast.Name) and (
        node.id in used_as_module(res) or passed_a_module(ff, res, node.id))


def passed_a_module(ff: FileFlow, res: ScopeResult, name: str) -> bool:
    """Is ``name`` a parameter of ``res``'s function that every call of this file passes a
    module (``bench(net, x)`` with ``net = nn.Linear(...)``)?"""
    if name not in res.params:
        return False
    given = ff.arguments(res.node, res.params.index(name))
    return given is not None and bool(given) and all(v.is_(Kind.MODULE) for _, v in given)


def used_as_module(res: ScopeResult) -> frozenset[str]:
    """The names of unknown kind that the scope both calls (``trt(x)``) and gives a method
    only modules have (``trt.load_state_dict(sd)``, ``session.to(device)``): modules."""
    called: set[str] = set()
    methods: set[str] = set()
    for ev in res.calls.values():
        func = ev.node.func
        if isinstance(func, ast.Name) and ev.func.kinds is None:
            called.add(func.id)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.attr in CALLED_MODULE_METHODS:
            methods.add(func.value.id)
    return frozenset(called & methods)


def is_cpu_device(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a device that is the CPU on every path (``torch.device("cpu")``, a
    variable or attribute bound to one)?"""
    found = value_of(ff, node)
    return found is not None and found[1].is_(Kind.DEVICE) and found[1].only(Where.CPU)


def on_device_tensor(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a tensor (or a batch item) that may live on an accelerator for a reason the
    analysis sees: moved or made there, the output of a module there or of a loss given such
    tensors, through helpers and methods of the checked files, and through a method of a
    module parameter's class that every call of the run names (:func:`param_method_return`:
    ``model.ewc_loss()`` in ``train(model)``, called as ``train(MLP(...))``)?"""
    found = value_of(ff, node)
    if found is None:
        return False
    res, v = found
    kinds = res.kind_of(v)
    if kinds is None:  # ``model.penalty()`` of a parameter: its class's method's return
        from torchferry.check.flow.param_methods import param_method_return

        returned = param_method_return(ff, res, node)
        if returned is not None:
            v, kinds = returned, returned.kinds
    return kinds is not None and bool(kinds & _TENSORS) and res.may_be_on_device(v)


def is_device(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a device (``torch.device(...)``, a variable or attribute bound to one, a
    parameter said to be one)?"""
    found = value_of(ff, node)
    return found is not None and found[1].is_(Kind.DEVICE)


def cpu_device(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` the CPU as a device on every path the analysis sees (``"cpu"``,
    ``torch.device("cpu")``, a name bound only to one, ``x.device`` of a tensor on the CPU, a
    device parameter every call of the run points at the CPU)?"""
    if isinstance(node, ast.Constant):
        return node.value == "cpu"
    for _ in ff.results():  # every scope interpreted: what the calls of the run give known
        pass
    found = value_of(ff, node)
    return found is not None and found[1].is_(Kind.DEVICE) and found[1].only(Where.CPU)


def cpu_tensor(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a tensor on the CPU on every path the analysis sees (made there without a
    device, computed from such tensors, or moved there)?"""
    found = value_of(ff, node)
    return found is not None and found[1].is_(Kind.TENSOR) and found[1].only(Where.CPU)


def may_live_on_device(ff: FileFlow, node: ast.AST) -> bool:
    """Could ``node`` (a tensor, a module, a device) be on an accelerator for a reason the
    analysis sees (see :meth:`ScopeResult.may_be_on_device`)?"""
    found = value_of(ff, node)
    return found is not None and found[0].may_be_on_device(found[1])


def is_tensor(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a tensor (only that: not a batch of unknown structure, not maybe a
    number), wherever it lives?  A parameter counts only when annotated or made so, not by
    its uses alone (``fabric.device`` does not make ``fabric`` a tensor)."""
    found = value_of(ff, node)
    return found is not None and found[1].is_(Kind.TENSOR)


def established_tensor(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a tensor by the code's own facts, not by an annotation or a name: made,
    computed or returned as one; or a parameter its function uses as one (``m.norm()``,
    ``m.size(0)``), or that every call of the run (one at least) gives a tensor so
    established (``_fid(m_pred)`` of ``m_pred = torch.mean(x, dim=0)``)?"""
    found = value_of(ff, node)
    if found is None or found[0].kind_of(found[1]) != {Kind.TENSOR}:
        return False
    res, v = found
    if v.is_(Kind.TENSOR) and v.basis > Basis.HINT:
        return True
    if not isinstance(node, ast.Name) or node.id not in res.params \
            or not any(o.op is Op.PARAM and o.text == node.id for o in v.origins):
        return False
    k = res.params.index(node.id)
    if res.param_uses.get(k) is Kind.TENSOR:
        return True
    given = ff.run_arguments(res.node, k)
    return bool(given) and all(caller.kind_of(a) == {Kind.TENSOR} and a.basis > Basis.HINT
                               for _, caller, a in given or ())


def moves(ff: FileFlow, call: ast.Call) -> bool:
    """Does ``call`` move its receiver, as the analysis reads it (``t.cuda()``, ``t.to(d)``,
    ``t.type_as(x)``; not a cast, ``t.to(torch.float64)``)?"""
    found = value_of(ff, call)
    return found is not None and any(o.op is Op.MOVED and o.node is call for o in found[1].origins)


def moved_apart(ff: FileFlow, move: Origin, made: Origin, at: ast.AST | None = None) -> bool:
    """Did the move ``move``, an origin of a value joined from several paths, act on a
    value that cannot hold what ``made`` built?  Its receiver, as the scope that moved it
    saw it, is known whole (every place on the CPU or the device, each origin one that
    made or moved a tensor of this file, fewer than the cap keeps) and none of its
    origins is ``made``, and the function that built ``made`` combines no operand holding
    it with one holding the move (``mask.to(d) * torch.rand(n)``: one path, whose result
    is not the factory's alone), other than at ``at``, the meeting asked about.  In ``f =
    fast(x) if n > 1 else torch.zeros(n)``, the moves inside ``fast`` moved its own
    tensors, not the zeros.

    >>> import ast
    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\\ndef f(n, d):\\n    a = torch.eye(n).to(d)\\n"
    ...        "    b = a if n > 1 else torch.zeros(n)\\n    c = torch.ones(n).to(d)\\n"
    ...        "    return b + c\\n")
    >>> tree = ast.parse(src)
    >>> ff = analyze(tree, "<example>")
    >>> b = tree.body[1].body[3].value.left
    >>> v = ff.scope_of(b).value(b)
    >>> made = [o for o in v.origins if o.op is Op.MADE and o.line == 4][0]
    >>> [moved_apart(ff, o, made) for o in v.origins if o.op is Op.MOVED]
    [True]
    """
    node = move.node
    if move.path is not None or made.node is None or not isinstance(node, ast.Call) or \
            not isinstance(node.func, ast.Attribute):
        return False
    found = value_of(ff, node.func.value)
    if found is None:
        return False
    res, recv = found
    # a parameter of the function that built ``made`` cannot hold it (unless it calls itself)
    own = ff.scope_of(made.node) is res and not _calls_itself(res)
    ops = (Op.MADE, Op.MOVED, Op.PARAM) if own else (Op.MADE, Op.MOVED)
    wheres = (Where.CPU, Where.ACCEL, Where.PARAM) if own else (Where.CPU, Where.ACCEL)
    if not recv.places or any(p.where not in wheres for p in recv.places):
        return False
    if not recv.origins or len(recv.origins) >= ORIGIN_CAP or any(
            o.op not in ops or o.path is not None for o in recv.origins):
        return False
    return all(o.node is not made.node for o in recv.origins) and \
        not _combined(ff.scope_of(made.node), made, move, at)


def _combined(res: ScopeResult | None, made: Origin, move: Origin, at: ast.AST | None) -> bool:
    """Does ``res`` combine, in an operator or a call other than ``at``, an operand that
    holds ``made`` with another that holds ``move``?"""
    if res is None:
        return True
    groups = [[v for _, v in m.operands] for m in res.meets.values() if m.node is not at]
    groups += [[*c.args, *(v for _, v in c.keywords), *([c.receiver] if c.receiver else [])]
               for c in res.calls.values() if c.node is not at]
    for values in groups:
        holds = [v for v in _flat(values) if any(o.node is made.node for o in v.origins)]
        moved = [v for v in _flat(values) if any(o.node is move.node for o in v.origins)]
        if holds and moved and any(h is not m for h in holds for m in moved):
            return True
    return False


def _flat(values: list[Value]) -> list[Value]:
    out: list[Value] = []
    for v in values:
        out.extend(v.elts if v.elts is not None else [v.item] if v.item is not None else [v])
    return out


def _calls_itself(res: ScopeResult) -> bool:
    fn = res.node
    name = fn.name if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    return name is None or any(
        isinstance(f := c.node.func, ast.Name) and f.id == name or
        isinstance(f, ast.Attribute) and f.attr == name for c in res.calls.values())


def calls_module(ff: FileFlow, call: ast.Call) -> bool:
    """Is ``call`` a forward pass: resolved to a call of a module (``model(x)``,
    ``self.encoder(h)``, a parameter known as a module), or a call of a name the scope
    uses as a module (see :func:`used_as_module`) or of a parameter every call of this
    file passes a module (see :func:`passed_a_module`)?"""
    res = ff.scope_of(call)
    if res is None:
        return False
    func = call.func
    return calls_module_in(res, call) or isinstance(func, ast.Name) and (
        func.id in used_as_module(res) or passed_a_module(ff, res, func.id))


def calls_module_in(res: ScopeResult, call: ast.Call) -> bool:
    """:func:`calls_module` in the scope ``res`` that evaluated ``call``."""
    ev = res.calls.get(id(call))
    return ev is not None and ev.callee is Callee.MODULE


def callee_value(ff: FileFlow, call: ast.Call) -> Value | None:
    """The value ``call`` calls (the module of ``model(x)``), as it was at the call."""
    res = ff.scope_of(call)
    ev = res.calls.get(id(call)) if res is not None else None
    return ev.func if ev is not None else None


def rewrapped(res: ScopeResult, c: CallEvent, name: str) -> bool:
    """Is ``c`` the wrapping of the module ``name`` holds in a wrapper that stays where it
    is, bound back to the same name (``model = nn.DataParallel(model)``)?  The module is
    then reached only through the wrapper, whose moves are the name's own, so handing it
    over moves nothing the analysis does not see.

    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\\nmodel = torch.nn.Linear(2, 2)\\n"
    ...        "model = torch.nn.DataParallel(model)\\nother = torch.nn.DataParallel(model)\\n")
    >>> ff = analyze(ast.parse(src), "<example>")
    >>> res = next(iter(ff.results()))
    >>> [rewrapped(res, c, "model") for c in res.calls.values() if c.args]  # Linear, then the two wrappers
    [False, True, False]
    """
    r = c.result
    if not r.is_(Kind.MODULE) or not r.known_places or not c.args or r.places != c.args[0].places:
        return False
    made = r.origins[0] if r.origins else None
    if made is None or made.op is not Op.MADE or made.node is not c.node or \
            made.text.split("(", 1)[0].rsplit(".", 1)[-1] not in KEEPING_WRAPPERS:
        return False
    first = c.node.args[0] if c.node.args else None
    if not (isinstance(first, ast.Name) and first.id == name):
        return False
    return any(isinstance(s, ast.Assign) and s.value is c.node and len(s.targets) == 1 and
               isinstance(s.targets[0], ast.Name) and s.targets[0].id == name
               for s in ast.walk(res.node))


def data_parallel(module: Value) -> bool:
    """Was ``module`` made by a data-parallel wrapper (``nn.DataParallel(net)``,
    ``DistributedDataParallel``, ``FullyShardedDataParallel``)?  Its forward scatters (or
    moves) its inputs to its devices itself: a CPU input meets no weight there."""
    return any(o.op is Op.MADE and o.text.split("(", 1)[0].rsplit(".", 1)[-1] in WRAPPERS
               for o in module.origins)


def gathered_output(ff: FileFlow, res: ScopeResult, v: Value) -> Origin | None:
    """The move that put a data-parallel wrapper on the accelerator, where ``v`` is the
    output of a parameter of ``res`` called as a model (``output = model(input)`` in
    ``validate(loader, model)``) that every call of the run hands a wrapper the run moved
    there (``nn.DataParallel(net).cuda()``, ``nn.DataParallel(net.to(device))``): its forward
    gathers the output on its first device, wherever the input was, which the analysis
    otherwise reads as the output's place (a model's input is where its weights are, or
    the call fails).  None where one call hands it anything else, or the function is not
    called."""
    if not v.origins or v.origins[0].op is not Op.OUTPUT:
        return None
    call = res.calls.get(id(v.origins[0].node))
    func = call.node.func if call is not None else None
    if call is None or call.callee not in (Callee.MODULE, Callee.UNRESOLVED) or \
            not isinstance(func, ast.Name) or func.id not in res.params:
        return None
    given = ff.run_arguments(res.node, res.params.index(func.id))
    moves = [gathered_there(a) for _, _, a in given or ()]
    return moves[0] if moves and all(m is not None for m in moves) else None


def gathered_there(module: Value) -> Origin | None:
    """The move of a data-parallel wrapper placed on the accelerator by the latest step
    that placed it (a move of the wrapper, or of the module it wraps): its output is there."""
    if not data_parallel(module) or not module.places or ACCEL not in module.places:
        return None
    for o in module.origins:
        if o.op is Op.MOVED:
            return o if o.to is not None and ACCEL in o.to else None
    return None
