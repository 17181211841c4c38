"""What a position of a loader's batch is, read from the loader's ``collate_fn``.

In::

    def collate(batch):
        x, n = zip(*[(a, a.shape[0]) for a in batch])
        return torch.stack(x), n

    def evaluate(model, loader):             # loader = DataLoader(ds, collate_fn=collate)
        for inputs, lengths in loader:
            model(inputs.cuda(), lengths=lengths)

``lengths`` is a tuple of Python ints: every ``return`` of the collate function of every
loader the loop may iterate is a tuple whose element 1 is no tensor.  The loader may be
built in another file and handed in as a parameter (every call of the run passes one
whose collate function says so); the collate function may return tuples of several lengths
(``return data, n, labels`` on one path, ``return data, n, labels, bounds`` on another):
a position all of them hold answers for each.  :func:`not_a_tensor` is the question.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.lattice import Basis, Kind, Op, Value

if TYPE_CHECKING:
    from torchferry.check.flow.events import ScopeResult
    from torchferry.check.flow.program import FileFlow

#: torch's loader, by the names it is imported as
_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
#: the position of ``collate_fn`` among ``DataLoader``'s parameters
_COLLATE_AT = 6
#: wrappers of an iterable that yield its items (``enumerate`` pairs each with a count)
_WRAPPERS = frozenset({"enumerate", "tqdm", "iter"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_NOT_TENSORS = frozenset({Kind.SCALAR, Kind.OTHER})


def not_a_tensor(ff: FileFlow, res: ScopeResult, a: ast.AST, loop: ast.AST) -> bool:
    """Is ``a``, a name read in ``res`` that only a loop over loaders binds (an item of its
    batch, or an item of its whole batch unpacked: ``x, n = batch``), surely no tensor:
    every loader that loop may iterate (:func:`_loaders`) is torch's ``DataLoader`` given a
    ``collate_fn`` of the run whose every ``return`` is a tuple holding no tensor at that
    position (:func:`_collated_no_tensor`)?"""
    stmt = next((n for n in ast.walk(res.node)
                 if isinstance(n, (ast.For, ast.AsyncFor)) and loop in (n, n.iter)), None)
    if stmt is None or not isinstance(a, ast.Name):
        return False
    unwrapped = _unwrapped(stmt.iter, stmt.target)
    if unwrapped is None:
        return False
    iterable, target = unwrapped
    index = _position(res.node, a.id, target)
    if index is None:
        return False
    loaders = _loaders(ff, res, iterable)
    return bool(loaders) and all(_collated_no_tensor(ff, v, index) for v in loaders or ())


def _unwrapped(it: ast.expr, target: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """The iterable under ``enumerate(...)``, ``tqdm(...)``, ``iter(...)`` and the part of
    the loop's target that its items bind (the second of ``i, batch`` under
    ``enumerate``); None where the target does not take them so."""
    while isinstance(it, ast.Call) and len(it.args) == 1 and not isinstance(it.args[0], ast.Starred) \
            and (isinstance(it.func, ast.Name) and it.func.id in _WRAPPERS
                 or isinstance(it.func, ast.Attribute) and it.func.attr == "tqdm"):
        if isinstance(it.func, ast.Name) and it.func.id == "enumerate":
            if it.keywords or not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != 2:
                return None
            target = target.elts[1]
        it = it.args[0]
    return it, target


def _position(fn: ast.AST, name: str, target: ast.expr) -> int | None:
    """The one position of the batch at which every binding of ``name`` in ``fn`` takes
    it: an element of the loop's target ``target`` (``for x, n in loader``), or of an
    unpacking of the whole batch (``x, n = batch`` of ``for batch in loader``, ``batch``
    bound nowhere else); None otherwise."""
    places: dict[int, int] = {}
    if isinstance(target, (ast.Tuple, ast.List)):
        places.update(_named_elements(target))
    elif isinstance(target, ast.Name):
        stores = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == target.id
                  and not isinstance(n.ctx, ast.Load)]
        if stores != [target]:
            return None
        for st in ast.walk(fn):
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.value, ast.Name) \
                    and st.value.id == target.id and isinstance(st.targets[0], (ast.Tuple, ast.List)):
                places.update(_named_elements(st.targets[0]))
    found = {places.get(id(n)) for n in ast.walk(fn)
             if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)}
    return found.pop() if len(found) == 1 and None not in found else None


def _named_elements(target: ast.Tuple | ast.List) -> dict[int, int]:
    """Each plain name of an unpacking without a starred name, by node id, to its
    position."""
    if any(isinstance(e, ast.Starred) for e in target.elts):
        return {}
    return {id(e): i for i, e in enumerate(target.elts) if isinstance(e, ast.Name)}


def _loaders(ff: FileFlow, res: ScopeResult, it: ast.expr) -> list[Value] | None:
    """The loaders the loop over ``it`` may iterate: what every call of the run passes
    for ``it`` when it is a parameter of ``res`` bound nowhere else in the function, else
    its value there when that is a loader; None when one is not known to be a loader."""
    if isinstance(it, ast.Name) and it.id in res.params and not any(
            isinstance(n, ast.Name) and n.id == it.id and not isinstance(n.ctx, ast.Load)
            for n in ast.walk(res.node)):
        passed = ff.run_arguments(res.node, res.params.index(it.id))
        if not passed:
            return None
        values = [v for _, _, v in passed]
    else:
        v = res.value(it)
        values = [v] if v is not None else []
    return values if values and all(v.is_(Kind.LOADER) for v in values) else None


def _collated_no_tensor(ff: FileFlow, loader: Value, index: int) -> bool:
    """Is ``loader`` torch's ``DataLoader(...)``, built in ``ff`` or in the file its origin
    names, whose ``collate_fn`` is a function of the run that returns, on every path, a
    tuple holding at ``index`` a value surely no tensor (:func:`_no_tensor`)?"""
    made = next((o for o in loader.origins if o.op is Op.MADE and isinstance(o.node, ast.Call)), None)
    if made is None or not isinstance(made.node, ast.Call):
        return False
    owner = ff if made.path is None else ff.project.file_flow(made.path) if ff.project is not None else None
    call = made.node
    if owner is None or owner.qualname(call.func) not in _LOADERS:
        return False
    fn = next((k.value for k in call.keywords if k.arg == "collate_fn"), None)
    if fn is None and len(call.args) > _COLLATE_AT and not any(isinstance(a, ast.Starred) for a in call.args):
        fn = call.args[_COLLATE_AT]
    target = _function(owner, fn) if fn is not None else None
    if target is None:
        return False
    result = target[0].summary(target[1], owner)
    returns = _returns(target[1])
    if result is None or not returns:
        return False
    for ret in returns:
        if not isinstance(ret, ast.Tuple) or len(ret.elts) <= index \
                or any(isinstance(e, ast.Starred) for e in ret.elts):
            return False
        v = result.value(ret.elts[index])
        if v is None or not _no_tensor(v):
            return False
    return True


def _function(owner: FileFlow, fn: ast.expr) -> tuple[FileFlow, ast.FunctionDef] | None:
    """The plain function of the run ``fn`` names in ``owner``, or None."""
    if isinstance(fn, ast.Name) and isinstance(owner.definition(fn.id), (ast.FunctionDef, ast.AsyncFunctionDef)):
        found: tuple[FileFlow, ast.AST] | None = (owner, owner.defs[fn.id])
    else:
        q = owner.qualname(fn)
        found = owner.resolve(q) if q else None
    if found is None or not isinstance(found[1], ast.FunctionDef) or found[1].decorator_list \
            or found[0].is_method(found[1]):
        return None
    return found[0], found[1]


def _returns(fn: ast.FunctionDef) -> list[ast.expr | None]:
    """What each ``return`` of ``fn`` (not of a function nested in it) returns; empty for
    a generator."""
    out: list[ast.expr | None] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return []
        if isinstance(n, ast.Return):
            out.append(n.value)
        if not isinstance(n, (*_FUNCS, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(n))
    return out


def _no_tensor(v: Value, depth: int = 0) -> bool:
    """Is ``v`` surely no tensor nor holds one: a number, a string or None, or a tuple,
    list or dict of such, known by the code (not by a name or an annotation)?"""
    if depth > 3 or v.kinds is None or not v.kinds or not v.kinds <= _NOT_TENSORS or v.basis is Basis.HINT:
        return False
    parts = [*(v.elts or ()), *([v.item] if v.item is not None else []), *(x for _, x in v.keys or ())]
    return all(_no_tensor(p, depth + 1) for p in parts)
