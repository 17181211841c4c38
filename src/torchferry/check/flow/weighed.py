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
from torchferry.check.flow.converted import (
    attribute_bindings,
    bound_arguments,
    converted_params,
    param_names,
)
from torchferry.check.flow.events import Callee, CallEvent, ScopeResult
from torchferry.check.flow.lattice import ACCEL, Kind, Op, Place, Value, Where, param
from torchferry.check.flow.meetings import param_meetings
from torchferry.check.flow.program import builds_weights

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: how many methods of the class one question follows (the module's own, nested)
_MAX_METHODS = 6


def weighed_params(ff: FileFlow, cls: ClassInfo, name: str) -> frozenset[int]:
    """The indices (``self`` is 0) of the parameters of method ``name`` of ``cls`` (or of
    a base of the run) that meet the module's weights: handed to a submodule with weights
    or to the module itself, directly or through the module's other methods.  Empty when
    the method is not known, or its interpretation is over the budget."""
    return _weighed(ff, cls, name, set(), frozenset())


def moves_own_param(ff: FileFlow, cls: ClassInfo, name: str, k: int) -> bool:
    """Does method ``name`` of ``cls`` put its parameter ``k`` (``self`` is 0) where the
    module is itself before it meets the module's weights?  True when its interpretation
    moves the parameter as it came in to a place that may be an accelerator
    (``x = x.to(self.device)``, ``x.cuda()``, or in a loop, where the value moved is the
    parameter on the first round, ``x = layer(x.to(self.device))``; not a dtype cast, not a
    move to the CPU), or
    hands it as it came in to a submodule of a class of the run whose ``forward`` does so
    in turn (``self.net(x)``), and never hands it unmoved to a submodule with weights (``k``
    is not among :func:`weighed_params`; a later argument of such a submodule counts only
    where that submodule's ``forward`` hands it to weights): a caller may give it a tensor
    from anywhere.

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
    ... class Outer(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.net = Net()
    ...     def forward(self, x):
    ...         return self.net(x)
    ... '''
    >>> ff = FileFlow(ast.parse(src), "m.py")
    >>> info = ff.class_info(ff.tree.body[2])
    >>> moves_own_param(ff, info, "forward", 1), moves_own_param(ff, info, "late", 1)
    (True, False)
    >>> moves_own_param(ff, ff.class_info(ff.tree.body[3]), "forward", 1)
    True
    """
    return _moves_own(ff, cls, name, k, set())



def unmet_inputs(ff: FileFlow, res: ScopeResult, c: CallEvent) -> frozenset[int]:
    """The arguments (by node id) after the first of ``c``, a call of a module every make
    of which is a class of the run, that no such class's ``forward`` is shown to bring
    where the module's device matters: neither handed to the module's weights
    (:func:`weighed_params`) nor met with another of its parameters in an operation that
    wants one device (:func:`~torchferry.check.flow.meetings.param_meetings`).  The module
    may keep such an argument on the CPU, use it as a number, or move it itself on the way
    to a solver of another file (``model(x, t_span)`` whose ``forward`` hands ``t_span`` to
    a function that runs ``t_span.to(x.device)``): a tensor left on the CPU there is not
    surely a mismatch.  Empty where the classes are not all known, where their ``forward``
    methods bind their parameters differently or take ``*args``/``**kwargs``, and where the
    call spreads ``*args``: the binding is then not known.

    >>> import ast
    >>> from torchferry.check.flow.program import FileFlow
    >>> src = '''
    ... import torch
    ... from torch import nn
    ... class Ode(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.f = nn.Linear(2, 2)
    ...     def forward(self, x, t, noise):
    ...         n = len(t)
    ...         return self.f(x) + noise
    ... def run(x):
    ...     m = Ode().to("cuda")
    ...     return m(x, torch.linspace(0, 1, 5), torch.randn(2))
    ... '''
    >>> ff = FileFlow(ast.parse(src), "m.py")
    >>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "run")
    >>> c = next(c for c in res.calls.values() if c.callee is Callee.MODULE)
    >>> [ast.unparse(a) for a in c.node.args if id(a) in unmet_inputs(ff, res, c)]
    ['torch.linspace(0, 1, 5)']
    """
    classes = ff.classes_of(res, c.func)
    if not classes or any(isinstance(a, ast.Starred) for a in c.node.args):
        return frozenset()
    names: tuple[str, ...] | None = None
    met: set[int] = set()
    for info in classes:
        found = info.method("forward") if info.is_module else None
        if found is None or not isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or found[1].args.vararg is not None or found[1].args.kwarg is not None:
            return frozenset()
        owner, fn = found
        if names is not None and param_names(fn) != names:
            return frozenset()
        names = param_names(fn)
        met |= weighed_params(ff, info, "forward")
        summary = owner.ff.summary(fn, ff)
        if summary is not None:
            met.update(k for m in param_meetings(owner.ff, summary) for k in (m.first, m.second))
    bound = bound_arguments(c.node, names or ())
    return frozenset(id(a) for k, a in bound.items() if k > 1 and k not in met)


def _moves_own(ff: FileFlow, cls: ClassInfo, name: str, k: int, seen: set[int]) -> bool:
    """:func:`moves_own_param`, with the methods asked so far (``seen``: the budget, and
    no cycle through a class that holds itself)."""
    found = cls.method(name)
    if found is None or k <= 0 or id(found[1]) in seen or len(seen) >= _MAX_METHODS:
        return False
    seen.add(id(found[1]))
    owner, fn = found
    res = owner.ff.summary(fn, ff)
    if res is None:
        return False
    moves, handed = False, set()
    for c in res.calls.values():
        recv = c.receiver
        if c.callee is Callee.MODULE and _of_self(c.func) and _hands_to_a_mover(ff, owner.ff, c, k, seen):
            moves = True
            handed.add(id(c.node))
            continue
        if c.callee is not Callee.METHOD or c.qualname not in ("to", "cuda") or recv is None:
            continue
        out = res.value(c.node)
        if param(k) in (recv.places or ()) and out is not None and ACCEL in (out.places or ()):
            moves = True
    return moves and k not in _weighed(ff, cls, name, set(), frozenset(handed))


def _hands_to_a_mover(ff: FileFlow, owner: FileFlow, c: CallEvent, k: int, seen: set[int]) -> bool:
    """Is ``c``, a call of a submodule of the module (``self.encoder(x)``), given the
    method's parameter ``k`` as it came in, as its first argument, and is every class the
    submodule is made of one of the run whose ``forward`` moves that argument itself
    (:func:`moves_own_param`, through its own submodules in turn)?"""
    if not c.args or c.args[0].places != {param(k)} or any(o.op is Op.MOVED for o in c.args[0].origins):
        return False
    classes = _classes_of(owner, c.func)
    return classes is not None and all(_moves_own(ff, info, "forward", 1, seen) for info in classes)


#: methods of a module (or of anything) that may put its parameters elsewhere, in place or
#: by applying a function to every one of them
_PLACING = vocab.MOVE_NAMES | frozenset({"type", "to_empty", "apply", "_apply"})


def keeps_itself(cls: ClassInfo, name: str, seen: frozenset[str] = frozenset()) -> bool:
    """Does method ``name`` of ``cls`` (a module class of the run, or a base of the run)
    leave the module where it is?  True when its body calls no method that moves (no
    ``.to(...)``, ``.cuda()``, ``.apply(...)`` on any receiver), uses ``self`` only as
    ``self.<attr>`` or ``self(...)`` (it hands the module itself to nothing), and every
    method of the class it calls through ``self`` keeps it too (four deep); a method of
    another class (``nn.Module``'s own) is followed no further.

    >>> import ast
    >>> from torchferry.check.flow.program import FileFlow
    >>> src = '''
    ... from torch import nn
    ... class Flow(nn.Module):
    ...     def log_probs(self, x):
    ...         return self(x).sum(-1) + self.prior(x)
    ...     def prior(self, x):
    ...         return self.fc(x)
    ...     def place(self, x):
    ...         self.setup()
    ...         return self(x)
    ...     def setup(self):
    ...         self.cuda()
    ...     def hand(self, x):
    ...         wrap(self)
    ... '''
    >>> ff = FileFlow(ast.parse(src), "m.py")
    >>> info = ff.class_info(ff.tree.body[1])
    >>> [keeps_itself(info, n) for n in ("log_probs", "place", "hand", "missing")]
    [True, False, False, False]
    """
    found = cls.method(name)
    if found is None or name in seen or len(seen) >= 4:
        return False
    fn = found[1]
    me = _self_name(fn)
    if me is None or not _only_own_uses(fn, me):
        return False
    called = {n.func.attr for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
              and isinstance(n.func.value, ast.Name) and n.func.value.id == me}
    return all(keeps_itself(cls, m, seen | {name}) for m in called if cls.method(m) is not None)


def _self_name(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name of a method's first parameter (``self``), if it has one."""
    first = [*fn.args.posonlyargs, *fn.args.args][:1]
    return first[0].arg if first else None


def _only_own_uses(fn: ast.AST, me: str) -> bool:
    """Does ``fn`` call no placing method (:data:`_PLACING`) and read ``me`` only as
    ``me.<attr>`` or ``me(...)``?"""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PLACING:
            return False
        for child in ast.iter_child_nodes(node):
            if not (isinstance(child, ast.Name) and child.id == me and isinstance(child.ctx, ast.Load)):
                continue
            if not (isinstance(node, ast.Call) and node.func is child or isinstance(node, ast.Attribute)):
                return False  # (handed on, returned, stored: anything may move it)
    return True


def _weighed(ff: FileFlow, cls: ClassInfo, name: str, seen: set[str], movers: frozenset[int]) -> frozenset[int]:
    """:func:`weighed_params`, leaving out the submodule calls ``movers`` (by node id),
    whose ``forward`` moves what it is given where the submodule is."""
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
        if id(c.node) in movers:
            continue
        if c.callee is Callee.MODULE and _of_self(c.func) and _with_weights(owner.ff, c.func) \
                or _layer_forward(c):
            given = _given(c) if not movers else _given_to_weights(ff, owner.ff, c)
            out.update(k for v in given for k in _params_of(v))
        elif _own_method(c):
            attr = c.node.func.attr  # type: ignore[attr-defined]
            inner = _weighed(ff, cls, attr, seen, movers)
            callee = cls.method(attr)
            if not inner or callee is None:
                continue
            names = _names(callee[1])
            values = {j: v for j, v in enumerate(c.args) if j}
            values.update((names.index(k), v) for k, v in c.keywords if k in names[1:])
            out.update(k for j in inner if j in values for k in _params_of(values[j]))
    out.discard(0)
    return frozenset(out - res.cpu_params - converted_params(owner.ff, fn, owner))


def _given_to_weights(ff: FileFlow, owner: FileFlow, c: CallEvent) -> list[Value]:
    """:func:`_given` of a submodule call, less the positional arguments after the first
    that the forward of every class the submodule is made of (all of the run) hands to no
    weights (``self.readout(out, scope)`` of a ``forward(self, x, scope)`` that only counts
    with ``scope``)."""
    classes = _classes_of(owner, c.func)
    if not classes or c.keywords or len(c.args) < 2:
        return _given(c)
    weighed = [weighed_params(ff, info, "forward") for info in classes]
    kept = [c.args[0], *(v for j, v in enumerate(c.args[1:], 2) if any(j in w for w in weighed))]
    return _given(c._replace(args=tuple(kept)))


def _classes_of(owner: FileFlow, module: Value) -> list[ClassInfo] | None:
    """The module classes of the run that every make of ``module``, a submodule built in
    the owner's file, is (moves of it aside); None when one is anything else."""
    classes = []
    for o in module.origins:
        node = o.node
        if o.path is not None or not isinstance(node, ast.Call):
            return None
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("to", "cuda"):
            continue  # (a move of the submodule itself)
        info = owner.class_called(node)
        if info is None or not info.is_module:
            return None
        classes.append(info)
    return classes or None


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


def forward_takes_a_tensor(cls: ClassInfo) -> bool:
    """Does the ``forward`` of ``cls`` (its own or a base's in the run) hand its first
    parameter, as it came in and in the first statement that names it, to a layer of
    ``torch.nn`` that takes tensors only (``x = self.embed(x)`` of ``self.embed =
    nn.Embedding(n, d)``, bound once in the class; not a recurrent layer, which takes
    packed sequences too, nor a statement under a test)?  Then what the module is called
    on is a tensor, in a program that runs.

    A stronger fact than a use as a tensor (:attr:`ScopeResult.param_uses`,
    ``batches.used_as_a_tensor``), on purpose: a tensor method's name (``x.size()``,
    ``x.view``) is one some other objects have too, while the layer takes nothing else, so
    the module's input itself is known to be a tensor, not one of its uses.

    >>> from torchferry.check.flow.program import FileFlow
    >>> src = ("from torch import nn\\nclass Net(nn.Module):\\n    def __init__(self):\\n"
    ...        "        super().__init__()\\n        self.embed = nn.Embedding(9, 4)\\n"
    ...        "        self.gru = nn.GRU(4, 4)\\n"
    ...        "    def forward(self, x):\\n        x = self.embed(x)\\n        return self.gru(x)\\n")
    >>> ff = FileFlow(ast.parse(src), "<example>")
    >>> forward_takes_a_tensor(ff.classes[id(ff.tree.body[1])])
    True
    """
    found = cls.method("forward")
    if found is None:
        return False
    owner, fn = found
    names = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if len(names) < 2:
        return False
    held = {names[1]}  # (the parameter, and the names a plain ``x = inputs`` binds to it)
    for st in fn.body:
        if not any(isinstance(n, ast.Name) and n.id in held for n in ast.walk(st)):
            continue
        alias = _alias(st, held)
        if alias is not None:
            held.add(alias)
            continue
        if not isinstance(st, (ast.Assign, ast.AnnAssign, ast.Expr, ast.Return)):
            return False
        return any(_tensor_layer_call(owner, n, name) for n in ast.walk(st) for name in held)
    return False


def _alias(st: ast.stmt, held: set[str]) -> str | None:
    """The name ``st`` binds to one of ``held`` as it is (``x = inputs``), or None."""
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
            and isinstance(st.value, ast.Name) and st.value.id in held:
        return st.targets[0].id
    return None


def _tensor_layer_call(cls: ClassInfo, n: ast.AST, name: str) -> bool:
    """Is ``n`` a call ``self.<attr>(name, ...)`` of an attribute that the class binds once,
    to a layer of ``torch.nn`` with weights that takes tensors only?"""
    if not (isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == name
            and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "self"):
        return False
    bound = attribute_bindings(cls).get(n.func.attr, [])
    if len(bound) != 1 or not isinstance(bound[0][1], ast.Call):
        return False
    qual = cls.ff.qualname(bound[0][1].func) or ""
    layer = qual.rsplit(".", 1)[-1]
    return qual.startswith("torch.nn.") and layer in vocab.PARAM_LAYERS and \
        not layer.startswith(("RNN", "LSTM", "GRU", "MultiheadAttention", "Transformer"))


def forward_moves(ff: FileFlow, module: Value, call: ast.Call, arg: ast.AST) -> bool:
    """Does ``module``, called by ``call`` of ``ff``'s file, put its argument ``arg`` where
    it is itself before that meets its weights?  Every make of it is a module class of the
    run built in that file (moves of it aside) whose ``forward`` moves the parameter
    ``arg`` is bound to (:func:`moves_own_param`: ``x = x.to(self.device)``, or in a loop,
    ``b(x.to(self.device))`` for each block): a tensor on the CPU given there is no
    mismatch."""
    classes = _classes_of(ff, module)
    if not classes:
        return False
    for info in classes:
        found = info.method("forward")
        if found is None:
            return False
        bound = bound_arguments(call, param_names(found[1]))
        k = next((i for i, a in bound.items() if a is arg), 0)
        if not moves_own_param(ff, info, "forward", k):
            return False
    return True
