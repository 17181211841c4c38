"""Expressions: what each one evaluates to, and the calls and meetings they record.

Calls are resolved in this order: a name of torch or NumPy (through the file's imports),
a module value (``model(x)``, ``self.encoder(x)``: the output lives where the module
does), a method of a tensor, module or batch value (``.to(d)``, ``.cuda()``,
``.numpy()``), a function or class of the checked files (its summary, with the
arguments' places substituted for its parameters'), a builtin.  Anything else is
unknown, with the reason recorded; but what a callable of unknown kind held in an
attribute of ``self`` returns when given tensors on the accelerator (and none on the CPU
alone, no model, nothing that may name a device) is placed there
(``self.fcn(img.cuda())``).
"""

from __future__ import annotations

import ast
import builtins
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torchferry.check.flow.distributions as distributions
import torchferry.check.flow.optimizers as optimizers
import torchferry.check.flow.protocols as protocols
import torchferry.check.flow.records as records
import torchferry.check.flow.tensordata as tensordata
import torchferry.check.flow.vocab as vocab
from torchferry.check.flow.events import AnyKey, Callee, CallEvent
from torchferry.check.flow.fetches import fetched_batch
from torchferry.check.flow.lattice import (
    ACCEL,
    BOTTOM,
    CPU,
    ORIGIN_CAP,
    UNKNOWN,
    Basis,
    Kind,
    Op,
    Origin,
    Place,
    Reason,
    Value,
    container,
    element,
    join,
    join_all,
    number_value,
    outside,
    part_of,
    unknown,
)
from torchferry.check.flow.libfacts import placing_accelerator
from torchferry.check.flow.outputs import output_item
from torchferry.check.flow.places import batch_item_and_numbers, module_dict_entry, tensor_places
from torchferry.check.flow.wrapped import wrapped_module

if TYPE_CHECKING:
    from torchferry.check.flow.interp import Interp

#: the environment's key of ``self.<attr>`` (as :data:`torchferry.check.flow.interp.SELF_KEY`)
SELF_KEY = "self."

_TENSOR = frozenset((Kind.TENSOR,))
_MODULE = frozenset((Kind.MODULE,))
_TENSORISH = frozenset((Kind.TENSOR, Kind.BATCH))
_SCALAR = Value.of(Kind.SCALAR)
#: a number written in the code
_NUMBER = Value.of(Kind.SCALAR, basis=Basis.CONSTRUCTED)
_OTHER = Value.of(Kind.OTHER)
#: Python's built-in functions (``print``, ``len``), as values: callables without weights
_BUILTIN_FUNCTIONS = frozenset(n for n in dir(builtins) if not n.startswith("_")
                               and isinstance(getattr(builtins, n), types.BuiltinFunctionType))
#: ``x.shape``: a ``torch.Size`` (or an array's tuple) of ints, wherever ``x`` lives
#: what a value of a mapping taken for a tensor may be
_KEYED_ITEM = frozenset((Kind.TENSOR, Kind.NDARRAY))
_SHAPE = container(item=Value.of(Kind.SCALAR))._replace(basis=Basis.INFERRED)
_PASS_THROUGH = frozenset({"enumerate", "iter", "tqdm", "zip", "reversed", "sorted", "list",
                           "tuple", "next"})


def _origin(op: Op, node: ast.AST, text: str) -> Origin:
    return Origin(op, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), text, node=node)


class Evaluator:
    """Evaluates the expressions of one :class:`~torchferry.check.flow.interp.Interp`."""

    def __init__(self, interp: Interp) -> None:
        self.i = interp
        self.ff = interp.ff
        self.values = interp.res.values

    def eval(self, node: ast.expr) -> Value:
        handler = _EXPRESSIONS.get(type(node))
        v = handler(self, node) if handler is not None else self._children(node)
        self.values[id(node)] = v
        return v

    def _children(self, node: ast.AST) -> Value:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.eval(child)
        return UNKNOWN

    # -- atoms -------------------------------------------------------------------
    def constant(self, node: ast.Constant) -> Value:
        if isinstance(node.value, str):
            where = vocab.literal_where(node.value) if len(node.value) <= 8 else None
            if where is not None:
                return Value.of(Kind.DEVICE, Place(where), _origin(Op.MADE, node, repr(node.value)),
                                Basis.CONSTRUCTED)
            return legacy_type(node.value, node) or _OTHER
        if isinstance(node.value, (int, float, bool, complex)):
            return _NUMBER
        return _OTHER

    def name(self, node: ast.Name) -> Value:
        v = self.i.lookup(node.id)
        if v is not None:
            self.i.note_held(node)
            return v
        q = self.ff.qualname(node, self.i)  # ``from torch.nn.functional import mse_loss``
        if q is not None:
            return _reference(q, node)
        if node.id in _BUILTIN_FUNCTIONS and node.id not in self.ff.defs:
            return _OTHER  # ``self.log = print``: a function of Python's, no module
        return UNKNOWN

    def attribute(self, node: ast.Attribute) -> Value:
        q = self.ff.qualname(node, self.i)
        if q is not None:
            return self._qualified_attr(q, node)
        base = self.eval(node.value)
        if isinstance(node.value, ast.Name) and node.value.id == self.i.self_name:
            return self.self_attr(node.attr, node)
        saved = self.i.saved_tensors(node)
        if saved is not None:
            return saved
        if node.attr == "device" and placing_accelerator(self.ff.qualname, base):
            # (an ``Accelerator``'s device: the accelerator of the process, if there is one)
            return Value(frozenset((Kind.DEVICE,)), frozenset((ACCEL, CPU)),
                         (_origin(Op.MADE, node, "accelerator.device"),), Basis.INFERRED)
        kept = records.field(self.ff, base, node.attr) or wrapped_module(base, node.attr)
        if kept is not None:  # (``data.train`` of ``data = EasyDict(train=loader)``, ``dp.module``)
            return kept
        held = _dataset_attr(base, node.attr)
        if held is not None:  # (``loader.dataset.tensors`` of a ``TensorDataset``)
            return held
        if base.is_(Kind.OTHER) and base.origins:  # (an instance of a class of the run)
            stored = self.i.held_attr(node) or self.ff.instance_attr(base, node.attr)
            if stored is not None:
                return stored
        # (``self.transformer.wpe`` of ``nn.ModuleDict(dict(wpe=nn.Embedding(...)))``)
        entry = module_dict_entry(base, node.attr, self.ff.qualname)
        return entry if entry is not None else _attr_of(base, node.attr, node)

    def _qualified_attr(self, q: str, node: ast.AST) -> Value:
        head, _, last = q.rpartition(".")
        if head == "torch" and last in vocab.DTYPES:
            return _OTHER
        typed = legacy_type(q, node)
        if typed is not None:
            return typed
        if head in ("math", "numpy", "torch") and last in vocab.NUMBER_CONSTANTS:
            return _SCALAR
        return _reference(q, node)

    def self_attr(self, attr: str, node: ast.AST) -> Value:
        if self.i.dynamic_self:
            return unknown(Reason.DYNAMIC)
        v = self.i.env.get(SELF_KEY + attr) or self.i.self_env.get(attr)
        if v is not None:
            return v
        cls = self.i.cls
        if cls is None:
            return UNKNOWN
        kept = outside(self.ff.class_attr(cls, attr))
        if attr == "param_groups" and kept == UNKNOWN and optimizers.is_optimizer(cls):
            return optimizers.param_groups(node)  # (``Optimizer.__init__`` keeps the parameters)
        return kept

    # -- containers ------------------------------------------------------------------
    def tuple_(self, node: ast.Tuple) -> Value:
        return container(tuple(self.eval(e) for e in node.elts))

    def list_(self, node: ast.List | ast.Set) -> Value:
        """A list or set of the joined items; a ``None`` written in it is a slot to fill
        (``[None] * n``, then ``xs[k] = t``), not an item of another kind."""
        items = [self.eval(e) for e in node.elts]
        return container(item=join_all(v for e, v in zip(node.elts, items, strict=True)
                                       if not (isinstance(e, ast.Constant) and e.value is None)))

    def dict_(self, node: ast.Dict) -> Value:
        keys = []
        literal = True
        for k, v in zip(node.keys, node.values, strict=True):
            if k is not None:
                self.eval(k)
            val = self.eval(v)
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                keys.append((k.value, val))
            else:
                literal = False
                keys.append(("", val))
        if literal:
            return container(keys=tuple(keys))
        return container(item=join_all(v for _, v in keys))

    def subscript(self, node: ast.Subscript) -> Value:
        base = self.eval(node.value)
        key = node.slice
        given = self.eval(key)
        if isinstance(node.value, ast.Attribute) and node.value.attr == optimizers.STATE and \
                self.i.self_attr(node.value) and optimizers.is_optimizer(self.i.cls):
            state = optimizers.state_of(base, given, node)  # (one parameter's state dict)
            if state is not None:
                return state
        if isinstance(node.value, ast.Name) and node.value.id not in self.i.env and \
                self.ff.memo_cache(self.i.node, node.value.id):
            return BOTTOM  # (what this function stored there, and returns on its other paths)
        # a literal key: a name, or a position (an int, not a bool)
        number = number_value(key, signed=False)
        index: int | str | None = number if isinstance(number, int) else \
            key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        if isinstance(key, ast.Slice) and base is _SHAPE:
            return base  # ``x.shape[1:]``: still a size
        if base.elts is not None or base.keys is not None or base.item is not None:
            return element(base, index)
        if isinstance(index, int) and self._reduced_loss(base):
            return _SCALAR  # ``loss.data[0]``: a number, under the only API where it runs
        own = protocols.indexed(self, base, node.value, self.values.get(id(key), UNKNOWN))
        if own is not None:
            return own
        if isinstance(index, int):  # ``metric_func(out, y)[1]``: what ``forward`` returns there
            returned = output_item(self.i, base, index)
            if returned is not None:
                return returned
        if index is not None:  # ``batch[0]``, ``r["d"]`` of a parameter: what the calls pass there
            return self.i.param_item(base, index, node, self._item_of(base, key))
        if isinstance(key, ast.Name) and isinstance(node.value, ast.Name) and \
                self.i.loop_key(node.value.id, key.id):  # ``d[k]`` in ``for k in d.keys()``
            return self.i.param_item(base, AnyKey.VALUE, node, self._item_of(base, key))
        return self._item_of(base, key)

    def _reduced_loss(self, base: Value) -> bool:
        """Is ``base`` (or its ``.data``) what a loss of ``torch.nn`` built in this scope's
        file with its default reduction (``nn.CrossEntropyLoss()``, ``reduction="sum"``)
        returned in this scope: a 0-dimensional tensor?  Indexing one by a position
        (``loss.data[0]``) fails on the tensors of today; it is the old API's read of the
        loss as a Python number.

        >>> import ast
        >>> from torchferry.check.flow.program import FileFlow
        >>> src = ("import torch.nn as nn\\nloss_fn = nn.MSELoss()\\n"
        ...        "def step(out, y):\\n    return loss_fn(out, y).data[0]\\n")
        >>> ff = FileFlow(ast.parse(src), "<example>")
        >>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "step")
        >>> res.returns.kinds == frozenset({Kind.SCALAR})
        True
        """
        if not base.is_(Kind.TENSOR) or not base.origins or base.origins[0].op is not Op.OUTPUT:
            return False
        call = self.i.res.calls.get(id(base.origins[0].node))
        if call is None or call.callee is not Callee.MODULE or call.func is None:
            return False
        made = next((o for o in reversed(call.func.origins) if o.op is Op.MADE), None)
        ctor = made.node if made is not None and made.path is None else None
        if not isinstance(ctor, ast.Call) or len(ctor.args) > 1:
            return False
        q = self.ff.qualname(ctor.func) or ""
        parts = q.split(".")
        if len(parts) != 3 or parts[:2] != ["torch", "nn"] or not parts[2].endswith("Loss") \
                or parts[2].endswith("WithLoss"):
            return False
        for k in ctor.keywords:
            if k.arg is None or k.arg in ("reduce", "size_average"):
                return False
            if k.arg == "reduction" and not (isinstance(k.value, ast.Constant) and k.value.value in ("mean", "sum")):
                return False
        return True

    def _item_of(self, base: Value, key: ast.expr) -> Value:
        """``base[key]`` of a value without known parts."""
        if isinstance(key, ast.Slice) and _module_sequence(base):
            return base  # ``self.blocks[1:]``, ``self.flows[::-1]``: a part of the sequence
        if _module_sequence(base, keyed=True):
            # ``self.layers[i]``, ``self.heads["cls"]``: a submodule, where the container is;
            # what built it is not known (as for one a loop takes from it)
            return Value(_MODULE, base.places, (), min(base.basis, Basis.INFERRED))
        if _one_dimensional(base, self.values) and not isinstance(key, (ast.Slice, ast.Tuple)):
            # ``schedule[epoch]`` of ``torch.linspace(...)``: 0-dimensional, it mixes with
            # tensors on any device
            return Value(base.kinds, frozenset(), base.origins, base.basis)
        joined = _joined_tensor_item(base, key)
        if joined is not None:
            return joined
        if base.is_(Kind.TENSOR) and isinstance(key, ast.Constant) and isinstance(key.value, str) \
                and base.origins and base.origins[0].op is Op.OUTPUT:
            # ``out["preds"]`` of what was taken for a tensor (a model's output): no tensor is
            # indexed by a string, so it is a mapping, whose values may be tensors there or
            # NumPy arrays (or anything else), unless the module's ``forward`` says which
            return self._output_item(base, key.value) or \
                Value(_KEYED_ITEM, base.places, base.origins, min(base.basis, Basis.INFERRED))
        return part_of(base)

    def _output_item(self, out: Value, key: str) -> Value | None:
        """``out[key]`` of a module's output ``out``, where the ``forward`` of the class of
        the run that built the module returns a dict with that key (written out, or filled
        by ``results[key] = ...``): a tensor where the output is when the item is a tensor
        there; of its kind, on no known place, when it is surely something else; None when
        the ``forward`` does not say.

        >>> import ast
        >>> from torchferry.check.flow.program import FileFlow
        >>> src = ("import torch\\nimport torch.nn as nn\\n"
        ...        "class Net(nn.Module):\\n    def __init__(self):\\n"
        ...        "        super().__init__()\\n        self.lin = nn.Linear(2, 2)\\n"
        ...        "    def forward(self, x):\\n        return {'p': self.lin(x), 'n': 3}\\n"
        ...        "def run():\\n    out = Net().cuda()(torch.zeros(2).cuda())\\n"
        ...        "    return out['p'], out['n']\\n")
        >>> ff = FileFlow(ast.parse(src), "<example>")
        >>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "run")
        >>> p, n = res.returns.elts
        >>> p.kinds == frozenset({Kind.TENSOR}), bool(p.places), n.kinds == frozenset({Kind.SCALAR})
        (True, True, True)
        """
        call = self.i.res.calls.get(id(out.origins[0].node))
        if call is None or call.callee is not Callee.MODULE or call.func is None:
            return None
        fwd = self.ff.forward_of(call.func)
        returned = fwd.returns if fwd is not None else None
        if returned is None or returned.keys is None:
            return None
        items = [v for k, v in returned.keys if k == key]
        if len(items) != 1:
            return None
        kinds = items[0].kinds
        if kinds is None or kinds & _TENSORISH and kinds != _TENSOR:
            return None
        if kinds == _TENSOR:
            return Value(_TENSOR, out.places, out.origins, Basis.INFERRED)
        return Value(kinds, frozenset(), out.origins, Basis.INFERRED)

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> Value:
        self._comp_targets(node.generators)
        return container(item=self.eval(node.elt))

    def dictcomp(self, node: ast.DictComp) -> Value:
        self._comp_targets(node.generators)
        self.eval(node.key)
        return container(item=self.eval(node.value))

    def _comp_targets(self, generators: list[ast.comprehension]) -> None:
        for g in generators:
            item = self.iterate(self.eval(g.iter), g)
            self.i.bind(g.target, item)
            for cond in g.ifs:
                self.eval(cond)

    def iterate(self, it: Value, node: ast.AST, source: ast.expr | None = None) -> Value:
        """What iterating over ``it`` (the expression ``source``) yields: for a loader, a
        batch on the CPU (its origin is ``node``, the loop)."""
        if source is None and isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            source = node.iter
        own = protocols.iterated(self, it, source)
        if own is not None:
            return own
        if it.is_(Kind.LOADER):
            batch = _origin(Op.BATCH, node, "batch")
            listed = tensordata.collated_list(it, node)  # (torch's default collate: a list)
            if it.item is not None and it.item.elts is not None:  # a collate's tuple
                return container(tuple(e._replace(origins=(batch, *e.origins)[:4]) if e.is_(Kind.BATCH)
                                       else e for e in it.item.elts), origin=listed)
            rows = it.item.item if it.item is not None and it.item.elts is None else None
            if rows is not None and rows.is_(Kind.BATCH):  # a list of items of unknown length
                return container(item=rows._replace(origins=(batch, *rows.origins)[:4]), origin=listed)
            if it.item is not None:  # the tensor its collate function returns
                return it.item._replace(origins=(batch, *it.item.origins)[:4])
            return Value.of(Kind.BATCH, CPU, batch, it.basis)
        if it.elts is not None or it.item is not None or it.keys is not None:
            return element(it, None)
        if it.is_(Kind.TENSOR):
            if _one_dimensional(it):  # ``for i in torch.arange(n)``: 0-dimensional items,
                return Value(it.kinds, frozenset(), it.origins, it.basis)  # which mix anywhere
            return it
        if _module_sequence(it):  # ``for layer in self.layers``: its submodules, where it
            # is; what built each, and so its weights and what it does with its inputs, is
            # not known (as a module a parameter gives)
            return Value(_MODULE, it.places, (), min(it.basis, Basis.INFERRED))
        if it.kinds is None and source is not None and (_names_a_loader(source) or _fetched(self, node)):
            return Value.of(Kind.BATCH, CPU, _origin(Op.BATCH, node, "batch"), Basis.HINT)
        return part_of(it)

    # -- operators ------------------------------------------------------------------
    def binop(self, node: ast.BinOp) -> Value:
        ops = [(node.left, self.eval(node.left)), (node.right, self.eval(node.right))]
        return self.arith(node, ops)

    def compare(self, node: ast.Compare) -> Value:
        ops = [(node.left, self.eval(node.left))]
        ops += [(c, self.eval(c)) for c in node.comparators]
        if any(v.may_be(Kind.TENSOR) and v.kinds is not None for _, v in ops) or _mask(
                ops, self.values):
            return self.arith(node, ops)
        unknown = [v for e, v in ops if v.kinds is None and isinstance(e, ast.Name)
                   and e.id in self.i.param_index]
        if len(unknown) == 1 and unknown[0].places and all(
                v.is_(Kind.SCALAR) for _, v in ops if v is not unknown[0]):
            # ``labels > 0.1`` of a parameter of unknown kind with a place (one the callers
            # give a tensor) and numbers: where it is, as ``labels * 2`` is (a number meets
            # no device); what an unknown call returns (``model(x) > 0``) stays a bool
            v = unknown[0]
            return Value(None, _CPU_ONLY if _moved_to_the_cpu(v) else v.places, v.origins)
        return _SCALAR

    def arith(self, node: ast.AST, ops: list[tuple[ast.expr, Value]]) -> Value:
        """Arithmetic: a tensor where any operand is one, on their joined places."""
        self.i.meet(node, ops)  # type: ignore[arg-type]
        values = [v for _, v in ops]
        if any(v.is_(Kind.TENSOR) for v in values):
            # a tensor by construction where every operand is one or a number written here
            made = all(v.basis is Basis.CONSTRUCTED and (v.is_(Kind.TENSOR) or v.is_(Kind.SCALAR))
                       for v in values)
            at = _CPU_ONLY if any(_moved_to_the_cpu(v) for v in values) \
                else tensor_places(_placed(values))
            return Value(_TENSOR, at, _origins(values),
                         Basis.CONSTRUCTED if made else Basis.INFERRED)
        if all(v.is_(Kind.SCALAR) for v in values):
            return _SCALAR
        item = batch_item_and_numbers(values)
        if item is not None:  # ``1 - labels``: computed from the item, where it is
            return item
        if _number_or_tensor(values):
            # ``total / n`` of a ``total = 0`` grown by ``total += loss``: a tensor op a
            # number is a tensor, a number op a number a number; so still one or the other
            at = _CPU_ONLY if any(_moved_to_the_cpu(v) for v in values) \
                else tensor_places(_placed(values))
            return Value(_NUMBER_OR_TENSOR, at, _origins(values))
        if any(v.is_(Kind.NDARRAY) for v in values) and not any(v.kinds is None for v in values):
            return Value.of(Kind.NDARRAY)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and any(
                _slots(e) for e, _ in ops):
            # ``[None] * n``: a list of slots to fill (``xs[k] = t``), nothing in it yet
            return container(item=BOTTOM)
        places = [v.places for v in values if v.places]
        if places and all(v.places is not None for v in values if v.kinds is None):
            # operands of unknown kind with places: the result is where they are
            where: frozenset[Place] = _CPU_ONLY if any(_moved_to_the_cpu(v) for v in values) \
                else frozenset().union(*places)
            return Value(None, where, _origins(values))
        # ``xs + [t]``, and ``xs += [t]`` (which extends ``xs`` in place): a list of both
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.Add) and all(
                v.item is not None for v in values):
            return container(item=join_all(v.item for v in values if v.item is not None))
        return UNKNOWN

    def unary(self, node: ast.UnaryOp) -> Value:
        v = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            return _SCALAR
        return v

    def boolop(self, node: ast.BoolOp) -> Value:
        return join_all(self.eval(v) for v in node.values)

    def ifexp(self, node: ast.IfExp) -> Value:
        self.eval(node.test)
        start = self.i.env
        yes, no = self.i.narrowed_envs(node.test, start)
        try:  # (each arm sees what the test says: ``x if isinstance(x, torch.Tensor) else ...``)
            self.i.env = yes
            body = self.eval(node.body)
            self.i.env = no
            orelse = self.eval(node.orelse)
        finally:
            self.i.env = start
        return join(body, orelse)

    def named(self, node: ast.NamedExpr) -> Value:
        v = self.eval(node.value)
        self.i.bind(node.target, v)
        return v

    def starred(self, node: ast.Starred) -> Value:
        return self.eval(node.value)

    def lambda_(self, node: ast.Lambda) -> Value:
        # (made here: a name bound to a lambda on one path and to a torch function on
        # another names no one function)
        return Value(_OTHER.kinds, _OTHER.places, (_origin(Op.MADE, node, "lambda"),), Basis.CONSTRUCTED)

    def fstring(self, node: ast.AST) -> Value:
        self._children(node)
        return _OTHER

    # -- calls --------------------------------------------------------------------------
    def call(self, node: ast.Call) -> Value:
        from torchferry.check.flow.resolve import call_value

        return call_value(self, node)

    def record(self, node: ast.Call, callee: Callee, qual: str | None, func: Value,
               recv: Value | None, args: list[Value], kws: list[tuple[str, Value]],
               result: Value) -> Value:
        event = CallEvent(node, callee, qual, func, recv, tuple(args), tuple(kws), result)
        self.i.res.calls[id(node)] = event
        self.i.res.first_calls.setdefault(id(node), event)
        return result


#: torch's namespaces: a value naming one of them is no function
_TORCH_NAMESPACES = frozenset({"nn", "functional", "cuda", "optim", "utils", "distributed",
                               "backends", "linalg", "fft", "special", "autograd", "jit",
                               "onnx", "amp", "mps", "xpu", "init", "data", "distributions"})


def legacy_type(q: str, node: ast.AST) -> Value | None:
    """A legacy tensor type named as a value (``torch.cuda.FloatTensor``, or the string
    ``"torch.FloatTensor"``): not a tensor, but at the place that ``x.type(T)`` moves ``x``
    to (a CUDA type the accelerator, any other the CPU), so that a name bound to one type
    or another by a branch carries where each path puts it."""
    parts = q.split(".")
    if len(parts) < 2 or parts[0] != "torch" or parts[-1] not in vocab.LEGACY_CONSTRUCTORS:
        return None
    place = ACCEL if "cuda" in parts else CPU
    return Value(frozenset((Kind.OTHER,)), frozenset((place,)), (_origin(Op.MADE, node, q),),
                 Basis.CONSTRUCTED)


def _reference(q: str, node: ast.AST) -> Value:
    """A function of torch named as a value (``self.loss_fn = F.mse_loss``): calling the
    value calls that function (:func:`~torchferry.check.flow.resolve.referenced`)."""
    head, _, last = q.rpartition(".")
    if head.split(".")[0] != "torch" or not last[:1].islower() or last in _TORCH_NAMESPACES:
        return UNKNOWN
    return Value(frozenset((Kind.OTHER,)), frozenset(), (_origin(Op.REFERENCE, node, q),),
                 Basis.CONSTRUCTED)


_CPU_ONLY = frozenset((CPU,))


_NUMBER_OR_TENSOR = frozenset((Kind.SCALAR, Kind.TENSOR))


def _number_or_tensor(values: list[Value]) -> bool:
    """Is every operand a number or a tensor (and some may be a tensor), so that their
    arithmetic is one too?"""
    return all(v.kinds is not None and v.kinds <= _NUMBER_OR_TENSOR and v.item is None
               and v.elts is None for v in values) and any(Kind.TENSOR in (v.kinds or ()) for v in values)


def _placed(values: list[Value]) -> list[Value]:
    """The operands that say where arithmetic with a tensor is: a value of unknown kind and
    place (``self.config.dim ** 0.5``, most often a number) does not hide the places of the
    tensors it is computed with; where it is a tensor, it is where they are or the
    operation fails."""
    known = [v for v in values if not (v.kinds is None and v.places is None)]
    return known if any(v.is_(Kind.TENSOR) and v.places is not None for v in known) else values


def _moved_to_the_cpu(v: Value) -> bool:
    """A tensor the code has just moved to the CPU (``row, col = edge_index.cpu()``; items and
    parts of it; of unknown kind too, as only a tensor or a module moves): arithmetic with it is on the CPU, or fails there (an operand on another
    device), whatever places its other operands may have (``row * num_nodes`` of a
    ``num_nodes`` that is an int, or on some path a 0-dimensional tensor on the device)."""
    if not (v.kinds is None or v.is_(Kind.TENSOR)) or v.places != _CPU_ONLY or not v.origins:
        return False
    first = v.origins[0]
    return first.op is Op.MOVED and first.to == _CPU_ONLY


def _mask(ops: list[tuple[ast.expr, Value]], values: dict[int, Value]) -> bool:
    """``deg[start] > 0``, ``scores >= 0.5``: values of unknown kind that the code put
    somewhere (``deg = data.degrees.cuda()``: only a tensor or a module moves) compared
    with a number: a mask where they are (the comparison's kind stays unknown).  A parameter of
    unknown kind, or a part of one, may be a number (``n > 0``): its comparison stays a
    bool, as a number's; but a part of one selected by a tensor of one or more dimensions
    (``data.degrees[start]``) is an array's or a tensor's elements (a number, a list or a
    mapping cannot be indexed by a vector), and so a mask where the parameter is."""
    put = [_put(v) or _selected(e, v, values) for e, v in ops]
    return any(put) and any(v.is_(Kind.SCALAR) for _, v in ops) and all(
        v.is_(Kind.SCALAR) or p for (_, v), p in zip(ops, put, strict=True))


def _selected(node: ast.expr, v: Value, values: dict[int, Value]) -> bool:
    """``x[idx]`` of unknown kind where the code placed ``x`` (a parameter's place) and
    ``idx`` is a tensor with a place (not a 0-dimensional item, which indexes a list too)."""
    if not (isinstance(node, ast.Subscript) and v.kinds is None and v.known_places):
        return False
    key = values.get(id(node.slice))
    return key is not None and key.is_(Kind.TENSOR) and bool(key.places)


def _put(v: Value) -> bool:
    """A value of unknown kind at a concrete place (moved or made there)."""
    return v.kinds is None and v.known_places and not any(p.symbolic for p in v.places or ())


def _slots(node: ast.expr) -> bool:
    """Is ``node`` a list literal of ``None`` alone (``[None]``, the slots of ``[None] * n``)?"""
    return isinstance(node, ast.List) and bool(node.elts) and all(
        isinstance(e, ast.Constant) and e.value is None for e in node.elts)


def _origins(values: list[Value]) -> tuple[Origin, ...]:
    out: list[Origin] = []
    for v in values:
        out.extend(v.origins)
    return tuple(dict.fromkeys(out))[:4]


def _device_of(base: Value, node: ast.Attribute | None) -> Value:
    """``x.device``: a device value wherever ``x`` lives.  When that is a parameter's (or a
    ``self`` attribute's) place, the read is its first origin (:attr:`Op.READ`): a device
    kept in a name, ``dev = seg.device``, still says where it came from, unlike a
    parameter that is a device itself."""
    places = base.places or frozenset()
    origins = base.origins
    if node is not None and any(p.symbolic for p in places):
        origins = (_origin(Op.READ, node, ast.unparse(node)), *origins)[:ORIGIN_CAP]
    return Value(frozenset((Kind.DEVICE,)), base.places, origins, base.basis)


def _dataset_attr(base: Value, attr: str) -> Value | None:
    """``loader.dataset`` and ``dataset.tensors`` of a loader over a ``TensorDataset`` of
    tensors made on the CPU (:mod:`~torchferry.check.flow.tensordata`); None otherwise."""
    if attr == "dataset":
        return tensordata.loader_dataset(base)
    if attr == "tensors":
        return tensordata.tensors(base)
    return None


def _attr_of(base: Value, attr: str, node: ast.Attribute | None = None) -> Value:
    """``base.attr`` for a value that is not ``self`` (``node``: the expression)."""
    if attr == "shape" and not base.is_(Kind.MODULE):
        return _SHAPE  # ``x.shape[0]``: ints, wherever ``x`` lives (a tensor's, an array's)
    if attr in _SHAPE_ATTRS and not base.is_(Kind.MODULE):
        return _OTHER
    if attr in ("data", "grad") and _layer_weight(base, node):
        return Value(_TENSOR, base.places, base.origins, Basis.INFERRED)
    if attr == "device" and base.places is not None and (base.may_be(Kind.TENSOR) or base.may_be(Kind.MODULE)):
        return _device_of(base, node)
    if base.is_(Kind.TENSOR):
        if attr in ("shape", "dtype", "ndim", "is_cuda", "requires_grad"):
            return _OTHER
        basis = base.basis if attr in vocab.TENSOR_VALUED_ATTRS else min(base.basis, Basis.INFERRED)
        return Value(_TENSOR, base.places, base.origins, basis)
    if base.is_(Kind.NDARRAY):
        return Value.of(Kind.NDARRAY) if attr == "T" else _OTHER
    if base.is_(Kind.MODULE) and attr in ("weight", "bias"):
        return Value(_TENSOR, base.places, base.origins, Basis.INFERRED)
    if attr in distributions.PARTS and distributions.is_distribution(base):
        return distributions.drawn(base)  # ``dist.mean``, ``dist.probs``
    return part_of(base)


_SHAPE_ATTRS = frozenset({"shape", "ndim", "dtype", "is_cuda", "requires_grad"})


def _layer_weight(base: Value, node: ast.Attribute | None) -> bool:
    """Is ``base`` a layer's ``.weight`` or ``.bias`` of unknown kind that has a place
    (``m.weight`` of ``for m in model.modules()``), so that its ``.data`` and ``.grad``
    are tensors where the layer is?  (Only a parameter has both; a module's parameter is
    named so.)"""
    return node is not None and isinstance(node.value, ast.Attribute) \
        and node.value.attr in ("weight", "bias") and base.kinds is None and base.known_places
_FILLED = ("torch.zeros(", "torch.ones(", "torch.empty(", "torch.rand(", "torch.randn(")
_ONE_DIMENSIONAL = ("torch.arange(", "torch.linspace(", "torch.logspace(", "torch.randperm(",
                    "torch.hann_window(", "torch.hamming_window(", "torch.blackman_window(",
                    "torch.bartlett_window(", "torch.kaiser_window(")


def _joined_tensor_item(base: Value, key: ast.expr) -> Value | None:
    """``h[:, i, :]`` of a value that joins a tensor with another kind (``self.hidden``,
    None until a method stores a tensor there): only the tensor part is subscripted at
    run time as a tensor is, so the item keeps its places and origins; a key of several
    dimensions with a slice (which no number, None or string takes) makes it a tensor."""
    kinds = base.kinds
    if kinds is None or Kind.TENSOR not in kinds or len(kinds) < 2 or not base.known_places \
            or kinds & {Kind.MODULE, Kind.NDARRAY, Kind.BATCH, Kind.LOADER}:
        return None
    sliced = isinstance(key, ast.Tuple) and any(isinstance(e, ast.Slice) for e in key.elts)
    return Value(_TENSOR if sliced else kinds, base.places, base.origins, min(base.basis, Basis.INFERRED))


def _module_sequence(v: Value, keyed: bool = False) -> bool:
    """A module built by ``nn.ModuleList(...)`` or ``nn.Sequential(...)`` on every path: what
    iterating over it yields are its submodules (a ``ModuleDict`` yields its keys; with
    ``keyed``, indexing, a ``ModuleDict``'s item is one of its submodules too)."""
    if not v.is_(Kind.MODULE):
        return False
    made = [o for o in v.origins if o.op is Op.MADE]
    kinds = ("torch.nn.ModuleList(", "torch.nn.Sequential(", *(("torch.nn.ModuleDict(",) if keyed else ()))
    return bool(made) and len(made) == len(v.origins) and all(o.text.startswith(kinds) for o in made)


def _one_dimensional(v: Value, values: dict[int, Value] | None = None) -> bool:
    """A tensor just made by a factory that makes vectors, from a list of numbers written
    out (``torch.as_tensor([0, *sizes[:-1]])``), or by a filling factory given one size
    that this scope knows as a number (``torch.zeros(total)``; ``values``: its values) or
    a shape written out with one size (``torch.ones([len(tasks)])``, ``torch.zeros((n,))``:
    a shape of one item makes a vector whatever the size is)."""
    if not (v.is_(Kind.TENSOR) and v.origins and v.origins[0].op is Op.MADE):
        return False
    made = v.origins[0]
    if made.text.startswith(_ONE_DIMENSIONAL):
        return True
    if values is not None and made.text.startswith(_FILLED) and _one_size_shape(made.node):
        return True
    if values is not None and made.text.startswith(_FILLED) and isinstance(made.node, ast.Call) \
            and len(made.node.args) == 1 and not any(k.arg in ("size", None) for k in made.node.keywords):
        size = values.get(id(made.node.args[0]))
        return size is not None and size.is_(Kind.SCALAR)
    return made.text.startswith(("torch.tensor(", "torch.as_tensor(")) and _numbers(made.node)


def _one_size_shape(node: ast.AST | None) -> bool:
    """``torch.ones([n])``, ``torch.zeros((n,), dtype=t)``: a filling factory's one
    positional argument, a list or tuple written out with one size (no ``*``), and no
    ``size=`` or ``**`` keyword beside it."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or any(k.arg in ("size", None) for k in node.keywords):
        return False
    shape = node.args[0]
    return isinstance(shape, (ast.List, ast.Tuple)) and len(shape.elts) == 1 \
        and not isinstance(shape.elts[0], (ast.Starred, ast.List, ast.Tuple))


def _numbers(node: ast.AST | None) -> bool:
    """``torch.tensor([0, *rest])``: a list written out with a number in it and no list or
    tuple (a tensor's data nests evenly: with a number at the top, it has one dimension)."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    data = node.args[0]
    if not isinstance(data, (ast.List, ast.Tuple)):
        return False
    items = data.elts
    return not any(isinstance(x, (ast.List, ast.Tuple, ast.ListComp)) for x in items) and any(
        isinstance(x, ast.Constant) and isinstance(x.value, (int, float)) for x in items)


def _fetched(ev: Evaluator, node: ast.AST) -> bool:
    """Is ``node`` a ``next(it)`` that a training loop's own body fetches its batch with
    (:func:`~torchferry.check.flow.fetches.fetched_batch`)?"""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "next" \
        and fetched_batch(ev.i.fors, node)


def _names_a_loader(node: ast.expr) -> bool:
    """``train_loader``, ``get_dataloaders(cfg)["train"]``, ``tqdm(self.val_loader)``."""
    for n in ast.walk(node):
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
        if name and vocab.LOADER_NAME.search(name):
            return True
    return False


_EXPRESSIONS: dict[type, Callable[[Evaluator, Any], Value]] = {
    ast.Constant: Evaluator.constant,
    ast.Name: Evaluator.name,
    ast.Attribute: Evaluator.attribute,
    ast.Tuple: Evaluator.tuple_,
    ast.List: Evaluator.list_,
    ast.Set: Evaluator.list_,
    ast.Dict: Evaluator.dict_,
    ast.Subscript: Evaluator.subscript,
    ast.ListComp: Evaluator.comprehension,
    ast.SetComp: Evaluator.comprehension,
    ast.GeneratorExp: Evaluator.comprehension,
    ast.DictComp: Evaluator.dictcomp,
    ast.BinOp: Evaluator.binop,
    ast.Compare: Evaluator.compare,
    ast.UnaryOp: Evaluator.unary,
    ast.BoolOp: Evaluator.boolop,
    ast.IfExp: Evaluator.ifexp,
    ast.NamedExpr: Evaluator.named,
    ast.Starred: Evaluator.starred,
    ast.Lambda: Evaluator.lambda_,
    ast.JoinedStr: Evaluator.fstring,
    ast.Call: Evaluator.call,
}

__all__ = ["Evaluator", "tensor_places", "unknown", "Reason"]

