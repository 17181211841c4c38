"""Arguments a module's ``forward`` reads only as numbers.

``self.pos(torch.tensor(start), torch.tensor(end))`` of a ``forward(self, start, end)`` that
only asserts ``end <= self.n_ctx`` and returns ``self.weight[start:end]`` never hands the
tensors to the module's weights: a slice bound, ``int(t)``, ``len(t)`` or ``range(t)`` read
the tensor's value through ``__index__``/``__int__`` (a tensor of any device gives its
number), ``t.shape``, ``t.size()``, ``t.dim()`` and ``t.numel()`` read its shape, and an
f-string formats it.  A comparison counts where the analysis finds no meeting of the
parameter with another tensor there (``end <= self.n_ctx`` of a number; ``x == self.weight``
is a meeting, an elementwise operation that wants one device).  :func:`number_read_args`
names such arguments of a module call, so that a CPU tensor given there is no mismatch with
the module's device; whatever else the parameter meets, a helper it is handed to, a layer,
an operator, or an index into a tensor, counts as a use that may want the device.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = '''
... import torch
... from torch import nn
... class Pos(nn.Module):
...     def __init__(self, n):
...         super().__init__()
...         self.n = n
...         self.weight = nn.Parameter(torch.zeros(n, 4))
...     def forward(self, start, end):
...         assert end <= self.n, f"{end} > {self.n}"
...         return self.weight[start:end] * 2
... def run(x, n):
...     pos = Pos(10).to("cuda")
...     return pos(torch.tensor(0), torch.tensor(n))
... '''
>>> ff = FileFlow(ast.parse(src), "m.py")
>>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "run")
>>> c = next(c for c in res.calls.values() if c.callee is Callee.MODULE)
>>> [ast.unparse(a) for a in c.node.args if id(a) in number_read_args(ff, res, c)]
['torch.tensor(0)', 'torch.tensor(n)']
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.converted import bound_arguments, param_names
from torchferry.check.flow.events import Callee, CallEvent, ScopeResult
from torchferry.check.flow.meetings import param_meetings
from torchferry.check.flow.weighed import weighed_params

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: builtins that read a tensor argument as its number (``__int__``, ``__index__``,
#: ``__len__``, ``__bool__``, ``__format__``): no operation with another tensor
_NUMBER_BUILTINS = frozenset({"int", "float", "bool", "len", "range", "str", "repr", "print"})

#: tensor attributes and methods that read the shape or the count, never the data's device
_SHAPE_READS = frozenset({"shape", "size", "dim", "ndim", "ndimension", "numel", "dtype", "is_cuda"})


def number_read_args(ff: FileFlow, res: ScopeResult, c: CallEvent) -> frozenset[int]:
    """The arguments (by node id) of ``c``, a call of a module every make of which is a
    module class of the run, that every such class's ``forward`` reads only as numbers or
    shapes (see the module's doc): a parameter bound one by one, never rebound, handed to
    no weights (:func:`~torchferry.check.flow.weighed.weighed_params`) and met with no other
    tensor (:func:`~torchferry.check.flow.meetings.param_meetings`).  Empty where a class is
    not known, the ``forward`` methods bind their parameters differently or take
    ``*args``/``**kwargs``, or the call spreads ``*args`` or ``**kwargs``."""
    if c.callee is not Callee.MODULE or c.func is None:
        return frozenset()
    classes = ff.classes_of(res, c.func)
    if not classes or any(isinstance(a, ast.Starred) for a in c.node.args) \
            or any(k.arg is None for k in c.node.keywords):
        return frozenset()
    names: tuple[str, ...] | None = None
    read: set[int] | None = None
    for info in classes:
        found = _plain_forward(info)
        if found is None or names is not None and param_names(found) != names:
            return frozenset()
        names = param_names(found)
        mine = _numbers_only(ff, info, found)
        read = mine if read is None else read & mine
    bound = bound_arguments(c.node, names or ())
    return frozenset(id(a) for k, a in bound.items() if k in (read or ()))


def _plain_forward(info: ClassInfo) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``forward`` of a module class of the run, where it binds its parameters one by
    one (no ``*args``, no ``**kwargs``)."""
    found = info.method("forward") if info.is_module else None
    fn = found[1] if found is not None else None
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or fn.args.vararg is not None or fn.args.kwarg is not None:
        return None
    return fn


def _numbers_only(ff: FileFlow, info: ClassInfo, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The indices (``self`` is 0) of ``fn``'s parameters that it reads only as numbers or
    shapes, in no meeting with another tensor and handed to no weights."""
    found = info.method("forward")
    if found is None:
        return set()
    owner = found[0].ff
    summary = owner.summary(fn, ff)
    if summary is None:
        return set()
    used = set(weighed_params(ff, info, "forward"))
    used.update(k for m in param_meetings(owner, summary) for k in (m.first, m.second))
    tree = owner.tree
    names = param_names(fn)
    return {k for k, name in enumerate(names) if k and k not in used and _read_as_number(tree, fn, name)}


def _read_as_number(tree: ast.Module, fn: ast.AST, name: str) -> bool:
    """Is every use of ``name`` in ``fn`` a read of its number or shape: a slice bound, the
    argument of a number builtin the file does not rebind, a shape read, a formatted value,
    or an operand of a comparison?  False where ``fn`` rebinds it or does not read it."""
    parents = {id(ch): n for n in ast.walk(fn) for ch in ast.iter_child_nodes(n)}
    uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name]
    if not uses or any(not isinstance(n.ctx, ast.Load) for n in uses):
        return False
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
           and n is not fn for n in ast.walk(fn)):
        return False  # (a nested scope may take the name over)
    return all(_number_use(tree, parents, n) for n in uses)


def _number_use(tree: ast.Module, parents: dict[int, ast.AST], n: ast.Name) -> bool:
    """One use of the parameter ``n``, read as a number or a shape (see :func:`_read_as_number`)."""
    child: ast.AST = n
    parent = parents.get(id(n))
    while parent is not None:
        if isinstance(parent, ast.Slice) or isinstance(parent, (ast.FormattedValue, ast.Compare)):
            return True
        if isinstance(parent, ast.Attribute) and parent.value is child:
            return parent.attr in _SHAPE_READS
        if isinstance(parent, ast.Call) and child in parent.args and isinstance(parent.func, ast.Name) \
                and parent.func.id in _NUMBER_BUILTINS:
            return not _rebound(tree, parent.func.id)
        if isinstance(parent, ast.Assert) and child is parent.msg:
            return True
        if not isinstance(parent, (ast.BinOp, ast.UnaryOp)):
            return False
        child, parent = parent, parents.get(id(parent))  # (``end + 1`` as a slice bound)
    return False


def _rebound(tree: ast.Module, name: str) -> bool:
    """Does the file bind ``name`` (a builtin's) anywhere: an assignment, a ``def``, an
    import?"""
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name:
            return True
        if isinstance(n, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == name for a in n.names):
            return True
    return False
