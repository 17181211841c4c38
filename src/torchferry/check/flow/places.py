"""Where an operation puts its result: the joined places of tensor operands, the target
of ``.to(...)``."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import torchferry.check.flow.vocab as vocab
from torchferry.check.flow.lattice import (
    ACCEL,
    UNKNOWN,
    Basis,
    Kind,
    Op,
    Origin,
    Place,
    Value,
    Where,
)

_TENSORISH = frozenset((Kind.TENSOR, Kind.BATCH))


def tensor_places(values: list[Value]) -> frozenset[Place] | None:
    """The join of the places of the tensors among ``values`` (None: one is unknown)."""
    out: set[Place] = set()
    for v in values:
        if v.kinds is not None and not v.kinds & _TENSORISH and v.item is None:
            continue
        src = v.item if v.item is not None and v.places == frozenset() else v
        if src.places is None:
            return None
        out |= src.places
    return frozenset(out)


def shared_places(values: list[Value]) -> frozenset[Place] | None:
    r"""Where an operation that needs its tensors on one device computes (a torch function,
    an operator): :func:`tensor_places`, and where a tensor among ``values`` has no known
    place while every known one is off the CPU (an accelerator, a parameter's), those: only a
    0-dimensional CPU tensor meets a tensor of another device, so the operation, where it
    runs, computes on that device (``torch.stft(x, n, window=self.window)`` of an ``x`` on
    the GPU is there, wherever ``self.window`` is said to be).  A known CPU operand keeps the
    unknown: the other may be on a device, the CPU one a 0-dimensional scalar.  (The caller
    decides where to ask: :func:`~torchferry.check.flow.resolve.torch_call` asks only where
    each unplaced operand is an object's attribute, state the analysis does not follow.)

    >>> from torchferry.check.flow.lattice import ACCEL, CPU, UNKNOWN
    >>> on_gpu = Value(_TENSORISH & {Kind.TENSOR}, frozenset((ACCEL,)), ())
    >>> on_cpu = Value(_TENSORISH & {Kind.TENSOR}, frozenset((CPU,)), ())
    >>> [p.where.name for p in shared_places([on_gpu, UNKNOWN])], shared_places([on_cpu, UNKNOWN])
    (['ACCEL'], None)
    """
    joined = tensor_places(values)
    if joined is not None:
        return joined
    known = [v.places for v in values if v.places is not None and
             (v.kinds is None or v.kinds & _TENSORISH) and v.item is None]
    out = frozenset(p for ps in known for p in ps)
    if not out or any(p.where is Where.CPU for p in out):
        return None
    return out


def move_target(ev: Any, call: ast.Call, recv: Value) -> tuple[frozenset[Place] | None, bool]:
    """Where ``recv.to(...)`` puts its receiver, and whether it is a move at all (a dtype
    alone is a cast)."""
    target: ast.expr | None = call.args[0] if call.args else None
    for k in call.keywords:
        if k.arg in ("device", "other"):
            target = k.value
    if target is None:
        return recv.places, False
    v = ev.values.get(id(target), UNKNOWN)
    if isinstance(target, ast.Constant) and isinstance(target.value, str):
        where = vocab.literal_where(target.value)
        return (frozenset((Place(where),)) if where else None), True
    if v.is_(Kind.OTHER) or ev.ff.is_dtype(target, ev.i) or named_dtype(target):
        return recv.places, False  # ``x.to(torch.float16)``, ``x.to(w.dtype)``
    if v.may_be(Kind.DEVICE) or v.may_be(Kind.TENSOR):
        if v.places and all(p.where in (Where.CPU, Where.ACCEL) for p in v.places):
            return v.places, True
        if v.places and isinstance(target, ast.Attribute) and target.attr == "device" \
                and _has_a_device(ev, target.value):
            return v.places, True  # ``x.to(t.device)`` of a tensor ``t``: wherever ``t`` is
        read = _read_device(v)
        if v.places and read is not None and _has_a_device(ev, read.value):
            return v.places, True  # ``dev = t.device`` ... ``x.to(dev)``: the same
        if v.kinds is not None and Kind.TENSOR in v.kinds:
            return v.places, True  # ``x.to(other)``: wherever ``other`` is
    return frozenset((ACCEL,)), True  # a device the code chose: it may be an accelerator


def _has_a_device(ev: Any, node: ast.expr) -> bool:
    """``node`` (of ``t.device``) is a tensor, or a parameter of unknown kind that its
    function calls a tensor's method on (``x.max()``, ``x.unsqueeze(0)``): then ``t.device``
    is where that parameter lives (not ``args.device``, a value a configuration keeps)."""
    v = ev.values.get(id(node), UNKNOWN)
    if v.is_(Kind.TENSOR):
        return True
    if v.kinds is not None or not v.known_places or not isinstance(node, ast.Name) or \
            node.id not in ev.i.param_index or any(o.op is not Op.PARAM for o in v.origins):
        return False
    return node.id in _tensor_used(ev.i.node)


def _read_device(v: Value) -> ast.Attribute | None:
    """``t.device`` when a device value is that read of it, kept in a name (its first
    origin, :attr:`Op.READ`, in this scope), else None."""
    o = v.origins[0] if v.origins else None
    node = o.node if o is not None and o.op is Op.READ and o.path is None else None
    return node if isinstance(node, ast.Attribute) and node.attr == "device" else None


def _tensor_used(fn: ast.AST) -> frozenset[str]:
    """The names in ``fn`` that a tensor method is called on (``x.max()``), or that a
    property only a tensor (or an array) has is read of (``len(grid.shape)``).

    Not :attr:`ScopeResult.param_uses`, on purpose: this reads the syntax of the whole
    function (its nested functions' included), every call of a tensor method wherever it
    stands, where ``param_uses`` keeps the first use of a parameter that the interpretation
    met (a module's method first makes it a module; code it never reached counts for
    nothing).  It is asked only of a parameter the analysis knows nothing else about, so
    that ``t.device`` names where ``t`` lives."""
    called = (n.func.value.id for n in ast.walk(fn) if isinstance(n, ast.Call) and
              isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
              and n.func.attr in vocab.TENSOR_METHODS)
    read = (n.value.id for n in ast.walk(fn) if isinstance(n, ast.Attribute) and
            isinstance(n.value, ast.Name) and n.attr in _TENSOR_PROPERTIES and isinstance(n.ctx, ast.Load))
    return frozenset((*called, *read))


#: properties of a tensor (and of an array) that a configuration or a module has not:
#: a name read so holds a tensor, so its ``.device`` is where it lives
_TENSOR_PROPERTIES = frozenset({"shape", "ndim", "is_cuda", "mT"})


def named_dtype(node: ast.expr) -> bool:
    """``w.dtype``, ``dtype``, ``self.torch_dtype``, ``args.precision``: a dtype by its name."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return "dtype" in name or "precision" in name


def whole_batch(fn: ast.AST, recv: ast.expr, depth: int = 0) -> bool:
    """``batch`` of ``for batch in loader`` (or ``for i, batch in enumerate(loader)``, or
    ``batch = next(iter(loader))``) in the scope ``fn``: the batch object, not one of its
    items.  A loop over such a batch (``for tensor in batch:``) binds its items (the
    tensors of a collated tuple or list, the rows of a collated tensor), not a batch.

    >>> fn = ast.parse("for b in loader:\\n    for t in b:\\n        t.to(d)\\n")
    >>> whole_batch(fn, ast.Name("b")), whole_batch(fn, ast.Name("t"))
    (True, False)
    """
    if not isinstance(recv, ast.Name) or depth > 2:
        return False
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Name) and node.value.func.id == "next" and \
                any(isinstance(t, ast.Name) and t.id == recv.id for t in node.targets):
            return True
        if not isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            continue
        target = node.target
        if isinstance(target, ast.Name) and target.id == recv.id:
            if _over_a_batch(fn, node.iter, recv, depth):
                continue
            return True
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" \
                and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and isinstance(target.elts[1], ast.Name) and target.elts[1].id == recv.id:
            return True
    return False


def _over_a_batch(fn: ast.AST, it: ast.expr, recv: ast.Name, depth: int) -> bool:
    """Does the loop over ``it`` that binds ``recv`` iterate a whole batch of ``fn`` (another
    name)?"""
    return isinstance(it, ast.Name) and it.id != recv.id and whole_batch(fn, it, depth + 1)


def iterated_batch(fn: ast.AST, recv: ast.expr) -> ast.Name | None:
    """The whole batch that a loop of ``fn`` iterates to bind ``recv``: ``batch`` for
    ``tensor`` in ``for batch in loader: for tensor in batch:`` (rebinding ``tensor``
    changes nothing in ``batch``); None when ``recv`` is bound so by no loop."""
    if not isinstance(recv, ast.Name):
        return None
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name) \
                and node.target.id == recv.id and isinstance(node.iter, ast.Name) \
                and _over_a_batch(fn, node.iter, recv, 0):
            return node.iter
    return None


def module_dict_entry(v: Value, attr: str, qualname: Callable[[ast.AST], str | None]) -> Value | None:
    r"""``v.<attr>`` where ``v`` is a module built by ``nn.ModuleDict(dict(k=...))`` or
    ``nn.ModuleDict({"k": ...})`` on every path, with ``attr`` a key written out in each
    construction: that submodule, where the container is, made by the entry's expression
    (``qualname``: the qualified name of a called expression, for the origin's text);
    None when not so.

    >>> src = "import torch.nn as nn\nd = nn.ModuleDict(dict(wpe=nn.Embedding(4, 2)))\n"
    >>> from torchferry.check.flow import analyze
    >>> ff = analyze(ast.parse(src), "<example>")
    >>> d = ff.module_result().values[id(ff.tree.body[1].value)]
    >>> [o.text for o in module_dict_entry(d, "wpe", ff.qualname).origins]
    ['torch.nn.Embedding(...)']
    >>> module_dict_entry(d, "keys", ff.qualname) is None
    True
    """
    if not v.is_(Kind.MODULE):
        return None
    made = [o for o in v.origins if o.op is Op.MADE]
    if not made or len(made) != len(v.origins) or not all(o.text.startswith("torch.nn.ModuleDict(") for o in made):
        return None
    origins = []
    for o in made:
        entry = _written_entries(o.node).get(attr)
        if entry is None:
            return None
        func = entry.func if isinstance(entry, ast.Call) else None
        q = (qualname(func) if o.path is None else None) if func is not None else None
        text = f"{q or ast.unparse(func)}(...)" if func is not None else ast.unparse(entry)
        origins.append(Origin(Op.MADE if func is not None else Op.READ, entry.lineno, entry.col_offset,
                              text, o.path, node=entry))
    return Value(frozenset((Kind.MODULE,)), v.places, tuple(origins), min(v.basis, Basis.INFERRED))


def _written_entries(call: ast.AST | None) -> dict[str, ast.expr]:
    """The entries of ``nn.ModuleDict(dict(a=..., b=...))`` or ``nn.ModuleDict({"a": ...})``
    by key, when every key is written out (none when not)."""
    if not isinstance(call, ast.Call) or len(call.args) != 1 or call.keywords:
        return {}
    arg = call.args[0]
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "dict" \
            and not arg.args and all(k.arg is not None for k in arg.keywords):
        return {k.arg: k.value for k in arg.keywords if k.arg is not None}
    if isinstance(arg, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in arg.keys):
        return {k.value: v for k, v in zip(arg.keys, arg.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return {}


def batch_item_and_numbers(values: list[Value]) -> Value | None:
    """An item of a loader's batch computed with numbers only (``1 - labels``,
    ``labels * 2``, ``F.one_hot(labels, n)``): a tensor of the batch where the item is, of
    its loop (None for anything else: two items, an item and a value of unknown kind)."""
    items = [v for v in values if v.kinds == {Kind.BATCH}]
    if len(items) != 1 or not all(v is items[0] or v.is_(Kind.SCALAR) for v in values):
        return None
    item = items[0]
    return Value(item.kinds, item.places, item.origins, min(item.basis, Basis.INFERRED))
