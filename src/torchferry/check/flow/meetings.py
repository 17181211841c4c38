"""Which parameters of a function meet each other in an operation that wants one device.

Two parameters of a function *meet* when values made of each alone -- the parameter as it
came in, or what the function computes of it without anything else (``x.view(-1)``,
``torch.argmax(x, 1)``, the items of ``zip(x, y)``), never moved -- are the operands of an
operator (``a == b``), of a function of torch (``torch.equal(i, j)``,
``F.cross_entropy(out, y)``, the items of a list written out for one that joins them:
``torch.cat([x, a])``),
of a tensor method that spells an operator
(``out.eq(y)``) or of a loss module of ``torch.nn`` (``criterion(out, y)``)::

    def accuracy(output, target):            # parameters 0 and 1 meet ...
        pred = output.argmax(1)
        return (pred == target).sum()        # ... here

A call of a function of the file whose parameters meet makes the caller's parameters it
hands them meet in turn (``def step(out, y): return accuracy(out, y)``), so the meeting is
part of a function's summary, followed three calls deep.  A caller that hands one of them
a tensor on the device and the other one on the CPU fails there.

Not a meeting: one under a test that reads a device (``if x.device != y.device:``, an
``x.is_cuda`` arm: the function tells the places apart itself), a parameter the function
moves first (``y = y.to(out.device)``), or one reduced to a 0-dimensional value
(``y.sum()``), which mixes with a tensor of any device.  Only functions and methods of
the same file are followed (:func:`~torchferry.check.flow.feeds.callee_of`: arguments
bound by position or keyword, no ``*args`` or ``**kw`` spread), and only parameters bound one by one: a callee's ``*args`` (read as
``args[1]``) is not.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = "import torch\\ndef acc(o, t):\\n    return (o.argmax(1) == t).sum()\\n"
>>> ff = FileFlow(ast.parse(src), "<example>")
>>> res = ff.given_result(ff.defs["acc"], {0: Kind.TENSOR, 1: Kind.TENSOR})
>>> [(m.first, m.second, m.node.lineno) for m in param_meetings(ff, res)]
[(0, 1, 3)]
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from torchferry.check.api import walk
from torchferry.check.flow.events import Callee, CallEvent, ScopeResult
from torchferry.check.flow.feeds import callee_of
from torchferry.check.flow.lattice import Kind, Op, Value, Where
from torchferry.check.flow.stores import JOINING
from torchferry.check.flow.vocab import INPUT_ONLY_FUNCTIONS, OPERATOR_METHODS, REDUCTIONS

if TYPE_CHECKING:
    from torchferry.check.flow.program import FileFlow

#: calls followed below the function asked about
MAX_MEET_DEPTH = 3

#: attributes whose reading tells a tensor's device
_DEVICE_READS = frozenset({"device", "is_cuda", "get_device", "is_mps"})


class ParamMeeting(NamedTuple):
    """Parameters ``first`` and ``second`` (by index) meet at ``node``, an operation of the
    scope ``scope`` (the innermost function), reached through the calls ``via`` (outermost
    first)."""

    first: int
    second: int
    node: ast.AST
    scope: ScopeResult
    via: tuple[CallEvent, ...] = ()


_MEMO: weakref.WeakKeyDictionary[FileFlow, dict[int, tuple[ParamMeeting, ...]]] = weakref.WeakKeyDictionary()


def param_meetings(ff: FileFlow, res: ScopeResult, depth: int = 0) -> tuple[ParamMeeting, ...]:
    """The meetings of ``res``'s parameters (see the module's docstring), its own first."""
    memo = _MEMO.setdefault(ff, {})
    key = id(res)  # (an interpretation given the kinds of its parameters has its own)
    found = memo.get(key)
    if found is not None:
        return found
    if depth > MAX_MEET_DEPTH:
        return ()
    memo[key] = ()  # (recursion meets nothing new)
    if _guarded(res.node):
        memo[key] = ()
        return ()
    out = [m for m in _own(res) if max(m.first, m.second) < _positional(res.node)]
    for c in list(res.calls.values()):
        target = callee_of(ff, res, c)
        if target is None or target[0] is res:
            continue
        callee, bound, first = target.callee, target.bound, target.first
        for m in param_meetings(ff, given_tensors(ff, callee, bound, first), depth + 1):
            a, b = bound.get(str(m.first)), bound.get(str(m.second))
            i = param_index(a) if a is not None else None
            j = param_index(b) if b is not None else None
            if i is not None and j is not None and i != j:
                out.append(ParamMeeting(i, j, m.node, m.scope, (c, *m.via)))
    found = memo[key] = tuple(out)
    return found


def given_tensors(ff: FileFlow, callee: ScopeResult, bound: dict[str, Value], first: int) -> ScopeResult:
    """``callee`` as a call sees it that binds ``bound`` (:func:`callee_of`): its
    parameters of no kind of their own given a tensor are tensors there (what it computes
    of them, ``outputs.argmax(1) == labels``, is then known to be a tensor's operation)."""
    given = {int(k): Kind.TENSOR for k, v in bound.items()
             if int(k) >= first and (v.kinds or frozenset()) & {Kind.TENSOR, Kind.BATCH}}
    seen = ff.given_result(callee.node, given) if given else None
    return seen or callee


def _positional(fn: ast.AST) -> int:
    """How many parameters of ``fn`` a call's positional arguments bind one by one (not
    ``*args``, which takes the rest as a tuple, nor the keyword-only ones)."""
    a = getattr(fn, "args", None)
    return len(a.posonlyargs) + len(a.args) if isinstance(a, ast.arguments) else 0


def param_index(v: Value) -> int | None:
    """The parameter ``v`` is made of alone, as it came in (it lives where that parameter
    does and nowhere else, was not moved, and is a tensor: no 0-dimensional reduction of
    it, ``x.sum()``, and nothing of unknown kind)."""
    if not v.places or len(v.places) != 1 or any(o.op is Op.MOVED for o in v.origins):
        return None
    if v.kinds is None or Kind.TENSOR not in v.kinds and Kind.BATCH not in v.kinds:
        return None
    p = next(iter(v.places))
    return int(p.ref) if p.where is Where.PARAM and p.ref.isdigit() else None


def _own(res: ScopeResult) -> list[ParamMeeting]:
    """The meetings of ``res``'s parameters in its own operations."""
    out = []
    for node, operands in _operations(res):
        ks = [k for e, v in operands if (k := param_index(v)) is not None and not zero_dim(res.node, e)]
        pairs = sorted({(a, b) for a in ks for b in ks if a < b})
        out += [ParamMeeting(a, b, node, res) for a, b in pairs]
    return out


def _operations(res: ScopeResult) -> list[tuple[ast.AST, list[tuple[ast.AST, Value]]]]:
    """The operations of ``res`` that want their tensors on one device, with their
    operands (expression, value)."""
    out: list[tuple[ast.AST, list[tuple[ast.AST, Value]]]] = [(m.node, list(m.operands)) for m in res.meets.values()]
    for c in res.calls.values():
        args: list[tuple[ast.AST, Value]] = [
            (a, v) for a in c.node.args if not isinstance(a, ast.Starred) and (v := res.value(a)) is not None]
        func = c.node.func
        if c.callee is Callee.TORCH and _one_device_function(c.qualname):
            out.append((c.node, args + _items_written_out(res, c.node, c.qualname)))
        elif c.callee is Callee.METHOD and c.qualname in OPERATOR_METHODS and c.receiver is not None \
                and isinstance(func, ast.Attribute):
            out.append((c.node, [(func.value, c.receiver), *args]))
        elif c.callee is Callee.MODULE and _loss_module(c.func):
            out.append((c.node, args))
    return out


def _items_written_out(res: ScopeResult, call: ast.Call, qualname: str | None) -> list[tuple[ast.AST, Value]]:
    """The items of a list or tuple written out as the first argument of ``call``, a torch
    function that joins a sequence of tensors (``torch.cat([x, a], dim=-1)`` brings ``x``
    and ``a`` together; ``torch.tensor([a, b])`` reads numbers and joins nothing)."""
    if qualname is None or qualname.rsplit(".", 1)[-1] not in JOINING:
        return []
    return [(e, v) for a in call.args[:1] if isinstance(a, (ast.List, ast.Tuple))
            for e in a.elts if not isinstance(e, ast.Starred) and (v := res.value(e)) is not None]


def zero_dim(fn: ast.AST, e: ast.AST) -> bool:
    """Is ``e`` a 0-dimensional reduction written out (``y.sum()``, ``y.item()``), or a name
    of ``fn`` that every assignment binds to one?"""
    if isinstance(e, ast.Name):
        binds = [n.value for n in ast.walk(fn) if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == e.id for t in n.targets)]
        return bool(binds) and all(not isinstance(b, ast.Name) and zero_dim(fn, b) for b in binds)
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and not e.args and \
        not e.keywords and (e.func.attr in REDUCTIONS or e.func.attr == "item")


def _one_device_function(qualname: str | None) -> bool:
    """A function of torch (``torch.equal``) or of ``torch.nn.functional`` that computes
    with its tensors on one device (not the packing of sequences, which wants its lengths
    on the CPU)."""
    if qualname is None or "pack" in qualname or qualname.startswith("torch.nn.functional.") \
            and qualname.rsplit(".", 1)[-1] in INPUT_ONLY_FUNCTIONS:
        return False
    return qualname.startswith("torch.nn.functional.") or qualname.count(".") == 1 and qualname.startswith("torch.")


def _loss_module(module: Value | None) -> bool:
    """A loss of ``torch.nn`` (``nn.CrossEntropyLoss()``): every make of it is one."""
    if module is None or not module.origins:
        return False
    made = [o for o in module.origins if o.op is Op.MADE]
    return bool(made) and all(o.text.startswith("torch.nn.") and o.text.split("(")[0].endswith("Loss")
                              for o in made) and all(o.op in (Op.MADE, Op.MOVED) for o in module.origins)


def _guarded(fn: ast.AST) -> bool:
    """Does ``fn`` test a tensor's device (``if x.device != y.device:``, ``y.cuda() if
    x.is_cuda else y``, ``assert``)?  It then tells the places apart itself, on paths
    the analysis does not weigh."""
    return any(isinstance(n, (ast.If, ast.IfExp, ast.While, ast.Assert)) and _reads_a_device(n.test)
               for n in ast.walk(fn))


def _reads_a_device(test: ast.expr) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in _DEVICE_READS for n in ast.walk(test))


class IndexMeeting(NamedTuple):
    """``base[idx]`` (read or written) with tensor indices: ``base`` is the tensor indexed,
    ``indices`` its tensor indices.  Only ``base`` can be at fault there: a tensor is indexed
    by indices on the CPU or on its own device ("indices should be either on cpu or on the
    same device as the indexed tensor"), so a tensor on the device may be indexed by one on
    the CPU, never the other way round."""

    node: ast.Subscript
    base: tuple[ast.expr, Value]
    indices: tuple[tuple[ast.expr, Value], ...]


def index_meetings(res: ScopeResult) -> Iterator[IndexMeeting]:
    """The subscripts of ``res`` that index a value that may be a tensor (an item of a
    loader's batch included) with values that
    are tensors (an index of no known kind that has a place, ``labels.to(device)``, is
    one: no other value with a device indexes a tensor); slices and constants are not.

    >>> from torchferry.check.flow.program import FileFlow
    >>> src = "import torch\\ndef f(i):\\n    x = torch.zeros(9)\\n    return x[:, i.cuda()]\\n"
    >>> ff = FileFlow(ast.parse(src), "<example>")
    >>> [(m.node.lineno, ast.unparse(m.base[0]), [ast.unparse(e) for e, _ in m.indices])
    ...  for m in index_meetings(ff.result(ff.defs["f"]))]
    [(4, 'x', ['i.cuda()'])]
    """
    for sub in walk(res.node):
        if not isinstance(sub, ast.Subscript):
            continue
        base = res.value(sub.value)
        if base is None or not (base.may_be(Kind.TENSOR) or base.is_(Kind.BATCH)):
            continue
        key = sub.slice
        items = key.elts if isinstance(key, ast.Tuple) else [key]
        index = [(x, _as_index(v)) for x in items if not isinstance(x, (ast.Slice, ast.Constant))
                 and (v := res.value(x)) is not None]
        index = [(x, v) for x, v in index if v.kinds is not None and v.kinds & {Kind.TENSOR, Kind.BATCH}]
        if index:
            yield IndexMeeting(sub, (sub.value, base), tuple(index))


def _as_index(v: Value) -> Value:
    """An index of unknown kind that has a place (``labels.to(device)``) is a tensor: no
    other value with a device indexes a tensor."""
    if v.kinds is None and v.known_places:
        return v._replace(kinds=frozenset((Kind.TENSOR,)))
    return v
