"""Iteration and indexing of the run's own classes: what ``for x in obj``, ``next(iter(obj))``
and ``obj[i]`` give when ``obj`` is an instance of a class of the run that defines
``__iter__`` or ``__getitem__``, and what a ``DataLoader`` over a dataset of the run yields.

``__iter__`` gives its items by its ``yield`` statements (a generator: the join of what
each ``yield`` gives, as the method's interpretation saw it) or by the iterable it returns
(``return iter(self.items)``: an item of that container); ``obj[i]`` is what
``__getitem__`` returns.  Both are the method's summary with ``self`` bound to ``obj``
(and the index to its argument): a value that lives where ``self`` does stays symbolic
unless the instance says where that is.  A ``DataLoader(dataset)`` whose dataset is an
instance of a class of the run, with no ``collate_fn`` (nor a ``**`` mapping that could
hold one), stacks the items ``__getitem__`` returns: when each is a tensor made on the
CPU there (``torch.tensor(self.x[i])``, ``torch.from_numpy(...)``), or a number or an
object, each item of the batch is on the CPU, made where ``__getitem__`` made it.

A class that is an ``nn.Module`` is left alone: iterating over a module container gives
its submodules, as :meth:`~torchferry.check.flow.calls.Evaluator.iterate` says.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = '''import torch
... class Pairs:
...     def __iter__(self):
...         for i in range(3):
...             yield torch.zeros(3)
... for t in Pairs():
...     print(t)
... '''
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> t = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "t"][-1]
>>> v = ff.scope_of(t).value(t)
>>> sorted(k.name for k in v.kinds), sorted(p.where.name for p in v.places)
(['TENSOR'], ['CPU'])
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.lattice import (
    Basis,
    Kind,
    Op,
    Value,
    Where,
    container,
    element,
    in_path,
    join_all,
    substitute,
)
from torchferry.check.flow.spreads import spread_keys
from torchferry.check.flow.streams import generator_object
from torchferry.check.flow.walk import own_nodes

if TYPE_CHECKING:
    from torchferry.check.flow.calls import Evaluator
    from torchferry.check.flow.events import ScopeResult
    from torchferry.check.flow.program import ClassInfo, FileFlow

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def instance_class(ev: Evaluator, v: Value, source: ast.expr | None) -> ClassInfo | None:
    """The class of the run (not a module) ``v`` is an instance of: built by a call of
    this file (``Items(...)``), or ``self`` in a method of the class."""
    info = ev.ff.class_of(v) if v.is_(Kind.OTHER) else None
    if info is None and isinstance(source, ast.Name) and source.id == ev.i.self_name:
        info = ev.i.cls
    if info is None or info.is_module:
        return None
    return info


def _method(ev: Evaluator, info: ClassInfo, name: str) -> tuple[FileFlow, ast.FunctionDef | ast.AsyncFunctionDef,
                                                                ScopeResult] | None:
    found = info.method(name)
    if found is None:
        return None
    owner = found[0].ff
    res = owner.summary(found[1], ev.ff)
    return (owner, found[1], res) if res is not None else None


def _as_seen(ev: Evaluator, owner: FileFlow, v: Value, args: dict[str, Value]) -> Value:
    """A value of a method's summary as the caller sees it: its parameters replaced by the
    arguments, made elsewhere (never constructed in the caller's scope), citing its file."""
    v = _elsewhere(substitute(v, args))
    return in_path(v, owner.path) if owner is not ev.ff else v


def _elsewhere(v: Value) -> Value:
    """``v`` and each of its parts, none of them constructed in the caller's scope."""
    return v._replace(
        basis=min(v.basis, Basis.INFERRED),
        elts=None if v.elts is None else tuple(_elsewhere(e) for e in v.elts),
        item=None if v.item is None else _elsewhere(v.item),
        keys=None if v.keys is None else tuple((k, _elsewhere(x)) for k, x in v.keys),
    )


def iterated(ev: Evaluator, it: Value, source: ast.expr | None) -> Value | None:
    """What iterating over ``it``, an instance of a class of the run, gives by the class's
    ``__iter__``; None when it is not such an instance or what it gives is not known."""
    info = instance_class(ev, it, source)
    found = _method(ev, info, "__iter__") if info is not None else None
    if found is None or info is None:
        return None
    owner, fn, res = found
    yields = owner.own_yields(fn)
    if yields:
        if any(isinstance(y, ast.YieldFrom) or y.value is None for y in yields):
            return None
        seen = [res.value(y.value) for y in yields if y.value is not None]
        if any(s is None for s in seen):
            return None
        v = join_all(s for s in seen if s is not None)
    elif _returns_self(fn):
        return _next_of(ev, info, it)
    else:
        ret = res.returns
        if ret.elts is None and ret.item is None and ret.keys is None:
            return None
        v = element(ret, None)
    if v.kinds is None and v.places is None:
        return None
    return _as_seen(ev, owner, v, {"0": it})


def _returns_self(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Does every ``return`` of ``fn`` itself (none of the functions it defines) return its
    first parameter, ``self``, and is there one?

    >>> fn = ast.parse("def __iter__(self):\\n    return self\\n").body[0]
    >>> _returns_self(fn)  # type: ignore[arg-type]
    True
    """
    if not fn.args.args:
        return False
    me = fn.args.args[0].arg
    found = False
    for n in own_nodes(fn):
        if isinstance(n, ast.Return):
            if not (isinstance(n.value, ast.Name) and n.value.id == me):
                return False
            found = True
    return found


def _next_of(ev: Evaluator, info: ClassInfo, it: Value) -> Value | None:
    """What ``__next__`` of ``info`` returns for the instance ``it`` (the items of an
    iterator whose ``__iter__`` returns ``self``); None when the class defines no
    ``__next__`` or what it returns is not known."""
    found = _method(ev, info, "__next__")
    if found is None:
        return None
    owner, _, res = found
    v = res.returns
    if v.kinds is None and v.places is None:
        return None
    return _as_seen(ev, owner, v, {"0": it})


def generated(ev: Evaluator, owner: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef,
              res: ScopeResult, args: dict[str, Value]) -> Value | None:
    """What a call of ``fn``, a generator function of the run (``def loop(it): while True:
    for x in it: yield x``), gives: an iterator whose items are what its ``yield``
    statements give, the function interpreted with the loaders the call hands it
    (``next(loop(loader))`` is a batch of ``loader``).  None for a function that is no
    plain generator (a ``yield from``, a bare ``yield``, an ``async def``) or whose items
    are not known."""
    yields = owner.own_yields(fn) if isinstance(fn, ast.FunctionDef) else []
    if not yields or any(isinstance(y, ast.YieldFrom) or y.value is None for y in yields):
        return None
    given = {int(k): Kind.LOADER for k, a in args.items()
             if a.is_(Kind.LOADER) and int(k) not in res.param_hints}
    seen_in = owner.given_result(fn, given) if given else res
    if seen_in is None:
        return None
    seen = [seen_in.value(y.value) for y in yields if y.value is not None]
    if any(s is None for s in seen):
        return None
    v = join_all(s for s in seen if s is not None)
    if v.kinds is None and v.places is None:
        return None
    return generator_object(container(item=_as_seen(ev, owner, v, args)), fn)


def indexed(ev: Evaluator, base: Value, source: ast.expr, key: Value) -> Value | None:
    """``base[key]`` for an instance of a class of the run that defines ``__getitem__``:
    what it returns; None when ``base`` is not such an instance or that is not known."""
    info = instance_class(ev, base, source)
    found = _method(ev, info, "__getitem__") if info is not None else None
    if found is None:
        return None
    owner, _, res = found
    v = res.returns
    if v.kinds is None and v.places is None:
        return None
    return _as_seen(ev, owner, v, {"0": base, "1": key})


def dataset_batch(ev: Evaluator, node: ast.Call) -> Value | None:
    """What each batch of ``DataLoader(dataset, ...)`` (``node``) is, when the dataset is an
    instance of a class of the run whose ``__getitem__`` returns tensors it made on the CPU
    (a tuple of them, maybe with numbers or objects, or one tensor) and the loader is given
    no ``collate_fn`` (nor a ``**`` mapping that may hold one, :func:`spread_keys`): the
    items of the batch, each on the CPU where the method made it (:attr:`Value.item` of
    the loader).  None otherwise."""
    spread = spread_keys(node, ev.values, ev.ff.tree)
    if spread is None or "collate_fn" in spread or any(k.arg == "collate_fn" for k in node.keywords):
        return None
    arg = node.args[0] if node.args and not isinstance(node.args[0], ast.Starred) else next(
        (k.value for k in node.keywords if k.arg == "dataset"), None)
    ds = ev.values.get(id(arg)) if arg is not None else None
    info = instance_class(ev, ds, None) if ds is not None else None
    found = _method(ev, info, "__getitem__") if info is not None else None
    if found is None:
        return None
    owner, _, res = found
    out = res.returns
    if out.elts is not None:
        parts = [_stacked(ev, owner, e) for e in out.elts]
        if not parts or not any(p is not None and p.is_(Kind.BATCH) for p in parts):
            return None
        return container(tuple(p for p in parts if p is not None)) if all(p is not None for p in parts) else None
    one = _stacked(ev, owner, out)
    return one if one is not None and one.is_(Kind.BATCH) else None


def _stacked(ev: Evaluator, owner: FileFlow, v: Value) -> Value | None:
    """One item ``__getitem__`` returns, as the default collate stacks it: a tensor made on
    the CPU (at no symbolic place, by a call that made it) is an item of the batch on the
    CPU, made there; a number or an object stays what it is; None for anything else."""
    if v.is_(Kind.TENSOR) and v.places and not any(p.symbolic for p in v.places) \
            and all(p.where is Where.CPU for p in v.places) and v.basis is not Basis.HINT \
            and any(o.op is Op.MADE for o in v.origins) \
            and not any(o.op in (Op.MOVED, Op.LOADED, Op.PARAM, Op.OUTPUT, Op.BATCH) for o in v.origins):
        made = Value(frozenset((Kind.BATCH,)), v.places, v.origins, Basis.INFERRED)
        return in_path(made, owner.path) if owner is not ev.ff else made
    if v.is_(Kind.SCALAR) or v.is_(Kind.OTHER):
        return v
    return None


def mapped(ev: Evaluator, node: ast.Call, args: list[Value]) -> Value | None:
    """``map(f, items)`` with ``f`` a plain function of this file or a method of a class of
    the run (``self.to_cuda``, ``obj.prepare``): what it yields is what ``f`` returns given
    one item; None for anything else."""
    if len(node.args) != 2 or node.keywords or len(args) != 2 or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    func = node.args[0]
    item = ev.iterate(args[1], node, node.args[1])
    bound: dict[str, Value]
    if isinstance(func, ast.Attribute):
        recv = ev.values.get(id(func.value))
        info = instance_class(ev, recv, func.value) if recv is not None else None
        found = info.method(func.attr) if info is not None else None
        if found is None or found[1].decorator_list or recv is None:
            return None
        owner, fn = found[0].ff, found[1]
        bound = {"0": recv, "1": item}
    elif isinstance(func, ast.Name) and isinstance(plain := ev.ff.defs.get(func.id), _FUNCS) \
            and not ev.ff.is_method(plain) and func.id not in ev.i.env:
        owner, fn = ev.ff, plain
        bound = {"0": item}
    else:
        return None
    res = owner.summary(fn, ev.ff)
    if res is None or len(res.params) != len(bound) or res.returns.kinds is None and res.returns.places is None:
        return None
    return container(item=_as_seen(ev, owner, res.returns, bound))
