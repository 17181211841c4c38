"""``torch.utils.data.TensorDataset``: a dataset of tensors the run made, and what a
``DataLoader`` over it yields.

``TensorDataset(a, b)`` keeps the tensors it is given (``ds.tensors`` is ``(a, b)``) and
gives, for ``ds[i]``, the tuple of their rows ``(a[i], b[i])``: slices of the same tensors,
on the same device.  A ``DataLoader`` of torch over it with the default collate function
(no ``collate_fn=``, or torch's ``default_collate``, and no ``**`` mapping that could hold
another) stacks those rows: each batch is a tuple of tensors where ``a`` and ``b`` are.
So where every tensor given to the dataset was made on the CPU (a factory without a
device, ``torch.from_numpy``, ``torch.tensor`` of data) and never moved, each item of
each batch is on the CPU, made there; ``loader.dataset.tensors[i]`` is the tensor itself.
A tensor the run moved (its last operation a move, ``y.to(device)``) keeps its place at
its position: torch 2.13's ``TensorDataset.__getitem__`` is ``tuple(tensor[index] for
tensor in self.tensors)`` and ``default_collate`` of a tuple collates each position apart,
``torch.stack(batch, 0)`` of its rows (torch/utils/data/dataset.py, _utils/collate.py), so
batch position k is where tensor k is.  That is read only for a loader that collates in
the calling process: worker processes (``num_workers`` > 0) stack into shared memory and
cannot take an accelerator's tensors, and ``pin_memory=True`` pins only CPU tensors.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = '''import numpy as np
... import torch
... from torch.utils.data import DataLoader, TensorDataset
... loader = DataLoader(TensorDataset(torch.from_numpy(np.zeros((8, 4))), torch.zeros(8)))
... for x, y in loader:
...     print(x)
... '''
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> x = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "x"][-1]
>>> v = ff.scope_of(x).value(x)
>>> sorted(k.name for k in v.kinds), sorted(p.where.name for p in v.places)
(['BATCH'], ['CPU'])
"""

from __future__ import annotations

import ast

from torchferry.check.flow.lattice import CPU, Basis, Kind, Op, Origin, Value, container

#: where torch keeps the class (``torch.utils.data.TensorDataset`` and its module's name)
_DATASET_NAMES = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
#: torch's loader, by the names it is imported as
_LOADER_NAMES = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
#: torch's default collate function, as a ``collate_fn=`` may name it
_DEFAULT_COLLATE = frozenset({"torch.utils.data.default_collate",
                              "torch.utils.data.dataloader.default_collate",
                              "torch.utils.data._utils.collate.default_collate"})
#: the positional parameters of ``DataLoader`` before ``collate_fn`` (dataset ... num_workers)
_BEFORE_COLLATE = 6
#: the position of ``num_workers`` among ``DataLoader``'s parameters
_WORKERS_AT = 5
#: how the dataset's origin is written (:attr:`Origin.text`)
_TEXT = "TensorDataset(...)"
_NOT_MADE_HERE = frozenset({Op.MOVED, Op.LOADED, Op.PARAM, Op.OUTPUT, Op.BATCH, Op.RETURNED})


def is_tensor_dataset(qual: str) -> bool:
    """Does ``qual`` name torch's ``TensorDataset``?"""
    return qual in _DATASET_NAMES


def dataset(node: ast.Call, args: list[Value]) -> Value | None:
    """``TensorDataset(t1, ..., tn)`` (``node``; ``args``: its positional arguments' values)
    where each ``tk`` is a tensor made on the CPU (:func:`made_on_the_cpu`) or moved by the
    run (:func:`moved_by_the_run`): a sequence of tuples of rows of those tensors
    (:attr:`Value.item`), each row where its tensor is and made or moved where it was.  None for anything else (a keyword, a ``*`` argument, a tensor
    that may be elsewhere or that came from a parameter, a load, a module)."""
    if not args or node.keywords or len(node.args) != len(args) or \
            any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if not all(made_on_the_cpu(a) or moved_by_the_run(a) for a in args):
        return None
    rows = tuple(Value(frozenset((Kind.TENSOR,)), a.places, a.origins, Basis.INFERRED) for a in args)
    made = Origin(Op.MADE, node.lineno, node.col_offset, _TEXT, node=node)
    return container(item=container(rows), origin=made)


def made_on_the_cpu(v: Value) -> bool:
    """Is ``v`` a tensor made on the CPU by the run (a factory, ``torch.from_numpy``, a
    method of such a tensor), never moved, loaded, given as a parameter or computed by a
    module or a call the analysis summarised?"""
    return v.is_(Kind.TENSOR) and v.places == {CPU} and v.basis is not Basis.HINT \
        and any(o.op is Op.MADE for o in v.origins) and not any(o.op in _NOT_MADE_HERE for o in v.origins)


def moved_by_the_run(v: Value) -> bool:
    """Is ``v`` a tensor whose last operation is a move of the run (``x.to(device)``,
    ``x.cuda()``), to places the analysis knows (the CPU or an accelerator, no parameter's),
    by its own reading (no hint)?"""
    return v.is_(Kind.TENSOR) and bool(v.places) and v.basis is not Basis.HINT and bool(v.origins) \
        and v.origins[0].op is Op.MOVED and not any(p.symbolic for p in v.places or ())


def of_dataset(ds: Value) -> tuple[Value, ...] | None:
    """The tensors of ``ds`` when it is a ``TensorDataset`` of :func:`dataset` (its rows,
    one per tensor given), else None."""
    item = ds.item
    if not _datasets_alone(ds) or item is None or item.elts is None:
        return None
    return item.elts


def _datasets_alone(ds: Value) -> bool:
    """Is every origin of ``ds`` a ``TensorDataset`` of :func:`dataset` (one made, or
    several joined: ``TensorDataset(x, y) if cond else TensorDataset(x)``)?"""
    return bool(ds.origins) and all(o.op is Op.MADE and o.text == _TEXT for o in ds.origins)


def _joined_batch(ds: Value) -> Value | None:
    """The batch of a loader over ``ds``, ``TensorDataset`` s of :func:`dataset` of
    different lengths joined (``TensorDataset(x, y)`` in one arm, ``TensorDataset(x)`` in
    the other), each tensor made on the CPU: a list of items of unknown length, each on the
    CPU, made where the tensors were (``batch[0]``); None for anything else (a moved
    tensor among them: where it is depends on the position)."""
    item = ds.item
    row = item.item if item is not None and item.elts is None else None
    if not _datasets_alone(ds) or row is None or not made_on_the_cpu(row):
        return None
    return container(item=Value(frozenset((Kind.BATCH,)), row.places, row.origins, Basis.INFERRED),
                     origin=ds.origins[0])


def loader_batch(qual: str | None, node: ast.Call, ds: Value | None, collate: str | None,
                 spread: frozenset[str] | None) -> Value | None:
    """What each batch of ``DataLoader(ds, ...)`` (``node``, a loader of torch named
    ``qual``) is where ``ds`` is a ``TensorDataset`` of :func:`dataset` (one with a moved
    tensor only for a loader that collates in this process, :func:`_in_process`) and the
    batches are collated by torch's default (``collate``: the name the ``collate_fn=``
    given resolves to, ``"None"`` for a literal None; None where none is given; ``spread``:
    the keys its ``**`` mappings may hold, None where unknown, a ``collate_fn`` among
    them refused): a tuple of items of the batch, each on the CPU and made where its
    tensor was (a list of such items, of unknown length, for datasets of different
    lengths joined).  None otherwise."""
    if qual not in _LOADER_NAMES or ds is None or spread is None or "collate_fn" in spread \
            or len(node.args) > _BEFORE_COLLATE:
        return None
    given = any(k.arg == "collate_fn" for k in node.keywords)
    if given and collate != "None" and collate not in _DEFAULT_COLLATE:
        return None
    rows = of_dataset(ds)
    if rows is None:
        return _joined_batch(ds)
    if any(r.origins[:1] and r.origins[0].op is Op.MOVED for r in rows) and not _in_process(node, spread):
        return None
    return container(tuple(Value(frozenset((Kind.BATCH,)), r.places, r.origins, Basis.INFERRED) for r in rows),
                     origin=ds.origins[0])


def _in_process(node: ast.Call, spread: frozenset[str]) -> bool:
    """Does ``DataLoader(...)`` (``node``) collate its batches in the calling process, with
    no pinning thread: ``num_workers`` absent or a literal 0 (by keyword; given by position
    or in a ``**`` mapping, whose keys are ``spread``, it is refused) and ``pin_memory``
    absent or a literal False?  (Worker processes cannot take an accelerator's tensors,
    and ``pin_memory`` pins only CPU tensors.)"""
    if len(node.args) > _WORKERS_AT or spread & {"num_workers", "pin_memory"}:
        return False
    for k in node.keywords:
        literal = isinstance(k.value, ast.Constant)
        if k.arg == "num_workers" and not (literal and k.value.value == 0):  # type: ignore[attr-defined]
            return False
        if k.arg == "pin_memory" and not (literal and k.value.value is False):  # type: ignore[attr-defined]
            return False
    return True


#: how a batch that torch's default collate makes a list of is marked (its origin's text)
LIST_TEXT = "default_collate(...)"


def collated_list(loader: Value, loop: ast.AST) -> Origin | None:
    """The origin that marks a batch of ``loader`` (iterated by ``loop``) as a list, where
    the loader is one over a ``TensorDataset`` of :func:`loader_batch`: torch 2.13's
    ``default_collate`` turns a batch of tuples into a list of their collated positions
    (``_utils/collate.py``: ``if isinstance(elem, tuple): return [collate(samples) ...]``),
    so ``isinstance(batch, list)`` holds of it.  None for another loader."""
    if not any(o.op is Op.MADE and o.text == _TEXT for o in loader.origins):
        return None
    return Origin(Op.MADE, getattr(loop, "lineno", 0), getattr(loop, "col_offset", 0), LIST_TEXT, node=loop)


def loader_dataset(loader: Value) -> Value | None:
    """``loader.dataset`` of a loader over a ``TensorDataset`` of tensors made on the CPU
    (:func:`loader_batch`, which keeps the dataset's origin among the loader's): the
    dataset again, its rows where the batch's items are (of unknown length, for datasets
    of different lengths joined).  None for another loader."""
    item = loader.item
    if not loader.is_(Kind.LOADER) or item is None:
        return None
    made = next((o for o in loader.origins if o.op is Op.MADE and o.text == _TEXT), None)
    parts = item.elts if item.elts is not None else (item.item,) if item.item is not None else ()
    if made is None or not parts or not all(e.is_(Kind.BATCH) for e in parts):
        return None
    rows = tuple(Value(frozenset((Kind.TENSOR,)), e.places, e.origins, Basis.INFERRED) for e in parts)
    return container(item=container(rows) if item.elts is not None else container(item=rows[0]), origin=made)


def tensors(ds: Value) -> Value | None:
    """``ds.tensors`` of a ``TensorDataset`` of :func:`dataset`: the tuple of its tensors
    (a sequence of unknown length of them, for datasets of different lengths joined)."""
    rows = of_dataset(ds)
    if rows is not None:
        return container(rows)
    item = ds.item
    row = item.item if item is not None and item.elts is None else None
    return container(item=row) if _datasets_alone(ds) and row is not None and made_on_the_cpu(row) else None
