"""Which parameters of a module's method meet the module's weights.

``model(x)`` runs ``forward`` on ``x`` where the model's weights are.  Other methods of a
module class of the run do the same with some of their parameters: ``vae.inference(n,
c=c)`` hands ``c`` to ``self.decoder``, ``policy.act(obs)`` calls ``self.forward(obs)``,
``model.encode(x)`` runs ``self.encoder(x)``.  :func:`weighed_params` answers, from the
method's interpretation, which parameters reach one of the module's own submodules that
owns weights (or the module itself, ``self(x)``) as an argument, directly or through
calls of the module's other methods (``self.sample(z)`` of ``generate``), followed to a
fixed point within the summary budget.  A parameter the method only converts
(``c.cpu()``, ``c.tolist()``), hands to torch on the CPU (the lengths of
``pack_padded_sequence``), or uses as a number, a string or a setting meets nothing: the
method's code decides, never its name.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = '''
... import torch
... from torch import nn
... class Vae(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.dec = nn.Linear(4, 4)
...     def sample(self, n, c):
...         z = torch.randn(n, 4)
...         return self.dec(z + c)
...     def draw(self, n, c):
...         return self.sample(n, c).cpu()
...     def show(self, out):
...         return out.cpu().numpy()
... '''
>>> ff = FileFlow(ast.parse(src), "m.py")
>>> info = ff.class_info(ff.tree.body[2])
>>> sorted(weighed_params(ff, info, "sample")), sorted(weighed_params(ff, info, "draw"))
([2], [2])
>>> sorted(weighed_params(ff, info, "show"))
[]
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import torchferry.check.flow.vocab as vocab
from torchferry.check.flow.converted import converted_params, param_names
from torchferry.check.flow.events import Callee, CallEvent, ScopeResult
from torchferry.check.flow.lattice import ACCEL, ORIGIN_CAP, Kind, Op, Place, Value, Where, param
from torchferry.check.flow.program import builds_weights
from torchferry.check.flow.project import file_constructions

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: how many methods of the class one question follows (the module's own, nested)
_MAX_METHODS = 6
#: how many modules deep an input handed on whole to a submodule is followed
_MAX_DEPTH = 4


def weighed_params(ff: FileFlow, cls: ClassInfo, name: str) -> frozenset[int]:
    """The indices (``self`` is 0) of the parameters of method ``name`` of ``cls`` (or of
    a base of the run) that meet the module's weights: handed to a submodule with weights
    or to the module itself, directly or through the module's other methods.  Empty when
    the method is not known, or its interpretation is over the budget."""
    return _weighed(ff, cls, name, set())


def moves_own_param(ff: FileFlow, cls: ClassInfo, name: str, k: int, depth: int = 0) -> bool:
    """Does method ``name`` of ``cls`` put its parameter ``k`` (``self`` is 0) where the
    module is itself before it meets the module's weights?  True when its interpretation
    moves the parameter as it came in to a place that may be an accelerator
    (``x = x.to(self.device)``, ``x.cuda()``; not a dtype cast, not a move to the CPU) and never hands it unmoved to a submodule with weights (``k`` is not among
    :func:`weighed_params`): a caller may give it a tensor from anywhere.

    >>> import ast
    >>> from torchferry.check.flow.program import FileFlow
    >>> src = '''
    ... import torch
    ... from torch import nn
    ... class Net(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    ...         self.fc = nn.Linear(4, 4).to(self.device)
    ...     def forward(self, x):
    ...         x = x.to(self.device) / 255.0
    ...         return self.fc(x)
    ...     def late(self, x):
    ...         y = self.fc(x)
    ...         return y + x.to(self.device)
    ... '''
    >>> ff = FileFlow(ast.parse(src), "m.py")
    >>> info = ff.class_info(ff.tree.body[2])
    >>> moves_own_param(ff, info, "forward", 1), moves_own_param(ff, info, "late", 1)
    (True, False)
    """
    found = cls.method(name)
    if found is None or k <= 0:
        return False
    owner, fn = found
    res = owner.ff.summary(fn, ff)
    if res is None:
        return False
    moves = False
    for c in res.calls.values():
        recv = c.receiver
        if c.callee is not Callee.METHOD or c.qualname not in ("to", "cuda") or recv is None:
            continue
        out = res.value(c.node)
        if recv.places == {param(k)} and out is not None and ACCEL in (out.places or ()):
            moves = True
    if moves and k not in weighed_params(ff, cls, name):
        return True
    return depth < _MAX_DEPTH and _handed_to_movers(ff, owner, res, k, depth)


def _handed_to_movers(ff: FileFlow, owner: ClassInfo, res: ScopeResult, k: int, depth: int) -> bool:
    """Does the method ``res`` of ``owner`` hand its parameter ``k`` whole, as the first
    argument, to submodules of its own whose every possible class moves that input itself
    (:func:`moves_own_param`, one module deeper), and its parts only where they meet no
    weights?  ``self.encoder(graph)`` where ``self.encoder`` is an ``Encoder(...)`` built
    in ``__init__``, or the module every construction of ``owner`` in the run passes for
    the constructor's parameter kept there (:func:`submodule_classes`); ``self.head(h,
    scope)`` with ``scope`` an item of the input that ``Head.forward`` never hands to a
    module with weights (:func:`weighed_params`).  False when ``k`` meets anything else:
    another module, one of the method's own methods, a submodule of unknown class."""
    handed = False
    for c in res.calls.values():
        own = _own_method(c) or _layer_forward(c)
        module = c.callee is Callee.MODULE
        if k not in {j for v in (_given(c) if module or own else []) for j in _params_of(v)}:
            continue
        if own or not module or c.func.places != {param(0)}:
            return False
        classes = submodule_classes(owner.ff, owner, c.node.func, c.func)
        if not classes or any(k in _params_of(v) for _, v in c.keywords):
            return False
        whole = bool(c.args) and c.args[0].places == {param(k)} and not c.args[0].origins[1:]
        parts = {j + 1 for j, v in enumerate(c.args) if k in _params_of(v)} - ({1} if whole else set())
        for info in classes:
            if any(_weighs(owner.ff, info, j, depth + 1) for j in parts):
                return False
            if whole and not moves_own_param(owner.ff, info, "forward", 1, depth + 1):
                return False
        handed = handed or whole
    return handed


def _weighs(ff: FileFlow, cls: ClassInfo, j: int, depth: int) -> bool:
    """May the ``forward`` of ``cls`` bring its parameter ``j`` to weights?  It is among
    :func:`weighed_params`, and one of the submodules it is handed to is of a class not
    known, or one whose own ``forward`` may (a scope list a readout with weights only
    iterates over meets nothing)."""
    if j not in weighed_params(ff, cls, "forward"):
        return False
    found = cls.method("forward")
    res = found[0].ff.summary(found[1], ff) if found is not None and depth < _MAX_DEPTH else None
    if res is None or found is None:
        return True
    for c in res.calls.values():
        given = [j in _params_of(v) for v in c.args]
        if not any(given) and not any(j in _params_of(v) for _, v in c.keywords):
            continue
        if c.callee is not Callee.MODULE or c.func.places != {param(0)} or _own_method(c) or _layer_forward(c):
            return True
        classes = submodule_classes(found[0].ff, found[0], c.node.func, c.func)
        if not classes or any(j in _params_of(v) for _, v in c.keywords):
            return True
        if any(_weighs(found[0].ff, info, i + 1, depth + 1) for info in classes for i, g in enumerate(given) if g):
            return True
    return False


def submodule_classes(ff: FileFlow, cls: ClassInfo, func: ast.expr, module: Value) -> list[ClassInfo] | None:
    """The classes of the run the submodule ``module`` (``self.<attr>`` in a method of
    ``cls``, a class of ``ff``) may be an instance of: the class whose constructor built
    it in ``ff``, or, for an attribute ``__init__`` keeps as one of its parameters came in
    (``self.encoder = encoder``), those every construction of ``cls`` in the run passes
    there (:func:`passed_classes`).  None when one is not known (a constructor not of the
    run, a factory, a construction the run cannot see)."""
    built = made_classes(ff, module)
    if built is not None:
        return built
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    init = cls.method("__init__")
    if init is None or init[0] is not cls:
        return None
    kept = ff.result(init[1], cls).stores.get(func.attr)
    k = parameter_itself(kept) if kept is not None else None
    return passed_classes(ff, init[1], k, 0) if k is not None else None


def passed_classes(ff: FileFlow, fn: ast.AST, k: int, depth: int) -> list[ClassInfo] | None:
    """The classes of the run of the modules every call of the run passes as parameter
    ``k`` of ``fn`` (a function or method of ``ff``; for an ``__init__``, the
    constructions of its class), followed through the callers' own parameters
    (``Trainer(model=Net())`` -> ``Task(args, model)`` -> ``self.encoder = model``) up
    to :data:`_MAX_DEPTH` deep.  None when one is not known, or nothing calls ``fn``."""
    cls = ff.method_of.get(id(fn))
    if depth >= _MAX_DEPTH:
        return None
    if cls is not None and getattr(fn, "name", "") == "__init__":
        key = (ff.path, "__init__", getattr(fn, "lineno", 0))
        sites = file_constructions(ff, key, cls.node.name) if ff.project is None \
            else ff.project.constructions(ff, cls.node, fn)  # (one file checked alone: its own)
        made = [(other, caller, bound.get(str(k))) for other, caller, _, bound in sites or ()]
    else:
        made = list(ff.run_arguments(fn, k) or ())
    out: list[ClassInfo] = []
    for other, caller, v in made:
        j = parameter_itself(v) if v is not None else None
        found = made_classes(other, v) if j is None else passed_classes(other, caller.node, j, depth + 1)
        if found is None:
            return None
        out.extend(found)
    return out or None


def made_classes(ff: FileFlow, module: Value | None) -> list[ClassInfo] | None:
    """The classes of the run whose constructors may have built ``module``, a value of
    ``ff``: every constructor call among its origins (in ``ff`` or, returned by a
    function, in another file of the run: ``load_checkpoint(path)`` that builds one of
    two model classes), moves of it aside.  None when an origin is anything else (a
    parameter, a factory not of the run, a load), a constructor is not of the run, or
    the origins were cut short."""
    if module is None or not module.origins or len(module.origins) >= ORIGIN_CAP:
        return None
    out: list[ClassInfo] = []
    for o in module.origins:
        node = o.node
        if o.op not in (Op.MADE, Op.MOVED) or not isinstance(node, ast.Call):
            return None
        if isinstance(node.func, ast.Attribute) and node.func.attr in vocab.MOVE_NAMES:
            continue  # (a move of the module itself)
        owner = ff if o.path is None else ff.project.file_flow(o.path) if ff.project is not None else None
        info = owner.class_called(node) if owner is not None else None
        if info is None:
            return None
        out.append(info)
    return out or None


def parameter_itself(v: Value) -> int | None:
    """The index of the parameter ``v`` is as it came in (not moved, not computed with)."""
    places = v.places or ()
    if len(places) != 1 or not v.origins or any(o.op is not Op.PARAM for o in v.origins):
        return None
    p = next(iter(places))
    return int(p.ref) if _a_param(p) else None


def bound_arguments(call: ast.Call, params: tuple[str, ...]) -> dict[int, ast.expr]:
    """The arguments of ``call``, a call ``obj.method(...)`` of a method whose parameters
    are ``params`` (``self`` first), by the index of the parameter each is bound to
    (a ``*args`` or ``**kwargs`` stops the binding where it is)."""
    out: dict[int, ast.expr] = {}
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            break
        out[i + 1] = a
    for k in call.keywords:
        if k.arg is not None and k.arg in params[1:]:
            out[params.index(k.arg)] = k.value
    return out


def _weighed(ff: FileFlow, cls: ClassInfo, name: str, seen: set[str]) -> frozenset[int]:
    found = cls.method(name)
    if found is None or name in seen or len(seen) >= _MAX_METHODS:
        return frozenset()
    seen.add(name)
    owner, fn = found
    res = owner.ff.summary(fn, ff)
    if res is None:
        return frozenset()
    out: set[int] = set()
    for c in res.calls.values():
        if c.callee is Callee.MODULE and _of_self(c.func) and _with_weights(owner.ff, c.func) \
                or _layer_forward(c):
            out.update(k for v in _given(c) for k in _params_of(v))
        elif _own_method(c):
            attr = c.node.func.attr  # type: ignore[attr-defined]
            inner = _weighed(ff, cls, attr, seen)
            callee = cls.method(attr)
            if not inner or callee is None:
                continue
            names = _names(callee[1])
            values = {j: v for j, v in enumerate(c.args) if j}
            values.update((names.index(k), v) for k, v in c.keywords if k in names[1:])
            out.update(k for j in inner if j in values for k in _params_of(values[j]))
    out.discard(0)
    return frozenset(out - res.cpu_params - converted_params(owner.ff, fn, owner))


def _of_self(module: Value) -> bool:
    """A module that lives where ``self`` does: ``self`` itself or a submodule of it."""
    return module.places == {param(0)} and module.is_(Kind.MODULE)


def _with_weights(ff: FileFlow, module: Value) -> bool:
    """Not a submodule known to own no weights (``nn.ReLU()``, ``nn.Dropout(p)``, a class
    of the run without parameters): its input meets nothing there."""
    made = next((o for o in reversed(module.origins) if o.op is Op.MADE), None)
    if made is None or made.path is not None or not isinstance(made.node, ast.Call):
        return True  # (``self`` itself, a module built by a function or loaded)
    if made.text.startswith("torch.nn."):
        layer = made.text.split("(")[0].rsplit(".", 1)[-1]
        if layer not in vocab.PARAM_LAYERS and layer not in vocab.CONTAINERS:
            return False
    return builds_weights(ff, made.node, buffers=False) is not False


def _layer_forward(c: CallEvent) -> bool:
    """``self.forward(x)``: the module itself runs on the arguments, as ``self(x)`` does
    (a ``forward`` of the run, given ``self`` first, or one a subclass of a ``torch.nn``
    layer inherits, ``class Unit(nn.Linear)``)."""
    f = c.node.func
    if not (isinstance(f, ast.Attribute) and f.attr == "forward" and isinstance(f.value, ast.Name)):
        return False
    if c.callee is Callee.FUNCTION:
        return bool(c.args) and c.args[0].places == {param(0)}
    return c.callee is Callee.METHOD and c.receiver is not None and c.receiver.places == {param(0)}


def _own_method(c: CallEvent) -> bool:
    """``self.other(x)``: a method of the module's class, given ``self`` first."""
    f = c.node.func
    return c.callee is Callee.FUNCTION and isinstance(f, ast.Attribute) and bool(c.args) \
        and c.args[0].places == {param(0)} and isinstance(f.value, ast.Name)


def _given(c: CallEvent) -> list[Value]:
    """The values a module call is given, the items of a tuple or list among them."""
    out: list[Value] = []
    for v in [*c.args, *(v for k, v in c.keywords if k != "**")]:
        out.extend(v.elts if v.elts is not None else [v])
    return out


def _params_of(v: Value) -> set[int]:
    """The parameters whose place ``v``, a value that may be a tensor, has; none when the
    method may have moved it on some path (``if on_cuda: inp = inp.cuda()``): it may
    put its input where the weights are itself."""
    if v.kinds is not None and not v.kinds & {Kind.TENSOR, Kind.BATCH}:
        return set()
    if ACCEL in (v.places or ()) or any(o.op is Op.MOVED for o in v.origins):
        return set()
    return {int(p.ref) for p in v.places or () if _a_param(p)}


def _a_param(p: Place) -> bool:
    return p.where is Where.PARAM and p.ref.isdigit()


def _names(fn: ast.AST) -> tuple[str, ...]:
    """The parameters of a method, ``self`` first."""
    return param_names(fn) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else ()
