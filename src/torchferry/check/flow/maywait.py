"""Which calls may wait for the device on some path: the other side of :mod:`.waits`.

:func:`torchferry.check.flow.waits.call_waits` answers "does this call wait on every
path", which a clock read needs to be known measured.  :func:`call_may_wait` answers "may
it wait on some path", which a rule needs to be sure that nothing waits: a call *may wait*
when anywhere in it (any branch, any loop body, any function of the run it calls, followed
over the call graph) there is a wait of :func:`~torchferry.check.flow.waits.direct_wait`,
a tensor made the test of an ``if``/``while``, or an operation whose result's size depends
on the values (the device is waited for to learn it):

- indexing with a boolean mask (``scores[scores > t]``, ``boxes[keep_mask]`` where the
  function binds ``keep_mask`` to a comparison, ``x[~torch.isnan(x)]``);
- ``.nonzero()``, ``.masked_select()``, ``.unique()``, ``torch.nonzero(...)``, and the
  one-argument ``torch.where(mask)``.

Beyond the calls :func:`~torchferry.check.flow.waits.call_target` follows, a call of a
module whose class is a class of the run (``net(x)`` with ``net = build_net(...)`` known to
be a ``Net``, ``self.detect(loc, conf)`` with ``self.detect = Detect(...)``) is followed into
its ``forward`` (or its own ``__call__``): the part a path-blind reading cannot settle, such
as ``if self.phase == "test": return self.detect(...)``, counts.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = ("def f(s, t):\\n    return s[s > t]\\n"
...        "def g(x):\\n    return x * 2\\n")
>>> ff = FileFlow(ast.parse(src), "<example>")
>>> [may_wait(ff, ff.defs[n], None) for n in ("f", "g")]
[True, False]
"""

from __future__ import annotations

import ast

from torchferry.check.flow.program import ClassInfo, FileFlow
from torchferry.check.flow.queries import callee_value, is_tensor
from torchferry.check.flow.waits import Fn, call_target, direct_wait, value_class

#: how deep calls are followed from the code asked about
MAX_DEPTH = 4
#: tensor methods whose result's size depends on the values
_SIZED_BY_VALUES = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive",
                              "argwhere"})
#: methods and functions of ``torch`` that give a boolean tensor
_MASKS = frozenset({"gt", "ge", "lt", "le", "eq", "ne", "isnan", "isinf", "isfinite",
                    "logical_and", "logical_or", "logical_not", "logical_xor", "bool",
                    "greater", "greater_equal", "less", "less_equal", "not_equal", "isin"})


def may_wait(ff: FileFlow, fn: Fn, cls: ClassInfo | None, depth: int = 0,
             seen: set[int] | None = None) -> bool:
    """May ``fn`` (defined in ``ff``; a method of ``cls``, if given) wait for the device on
    some path?"""
    seen = set() if seen is None else seen
    if id(fn) in seen or depth > MAX_DEPTH:
        return False
    seen.add(id(fn))
    masks = mask_names(fn)
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and is_mask(node.slice, masks):
            return True
        if isinstance(node, (ast.If, ast.While)) and _tensor_test(ff, node.test):
            return True
        if isinstance(node, ast.Call) and call_may_wait(ff, node, cls, depth + 1, seen):
            return True
    return False


def call_may_wait(ff: FileFlow, call: ast.Call, cls: ClassInfo | None, depth: int = 0,
                  seen: set[int] | None = None) -> bool:
    """May ``call`` (in ``ff``, in a method of ``cls`` if given) wait for the device on some
    path: a wait or a value-sized result of its own, or a function or module of the run it
    runs that may?"""
    seen = set() if seen is None else seen
    if direct_wait(ff, call) or _sized_by_values(ff, call):
        return True
    target = call_target(ff, call, cls) or _module_target(ff, call, cls)
    return target is not None and may_wait(target[0], target[1], target[2], depth, seen)


def _sized_by_values(ff: FileFlow, call: ast.Call) -> bool:
    """``x.nonzero()``, ``torch.nonzero(x)``, ``torch.where(mask)`` (one argument)..."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in _SIZED_BY_VALUES:
        return True
    return func.attr == "where" and len(call.args) == 1 and not call.keywords \
        and ff.qualname(func) == "torch.where"


def _module_target(ff: FileFlow, call: ast.Call, cls: ClassInfo | None
                   ) -> tuple[FileFlow, Fn, ClassInfo | None] | None:
    """The ``forward`` (or own ``__call__``) a call of an instance of a class of the run
    runs: ``net(x)``, ``self.detect(...)``.  None when the class is not known."""
    func = call.func
    info: ClassInfo | None = None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "self" and cls is not None:
        info = value_class(cls.ff, cls.ff.class_attr(cls, func.attr))
    elif isinstance(func, (ast.Name, ast.Attribute)):
        res, v = ff.scope_of(call), callee_value(ff, call)
        info = value_class(ff, ff.placed(res, v)) if res is not None and v is not None else None
    if info is None:
        return None
    method = info.method("__call__") or info.method("forward")
    return (method[0].ff, method[1], method[0]) if method is not None else None


def mask_names(fn: Fn) -> set[str]:
    """The local names ``fn`` binds to a boolean mask (every binding of the name is one)."""
    bound: dict[str, bool] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bound[t.id] = bound.get(t.id, True) and is_mask(node.value, set())
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            bound[node.target.id] = False
    return {name for name, mask in bound.items() if mask}


def is_mask(e: ast.expr, masks: set[str]) -> bool:
    """A boolean mask: a comparison (``s > t``, ``s.gt(t)``, ``torch.isnan(x)``), its
    negation or a conjunction of masks, a method of a mask that keeps it one
    (``m.unsqueeze(1).expand_as(b)``), or a name bound to one."""
    if isinstance(e, ast.Name):
        return e.id in masks
    if isinstance(e, ast.Compare):
        return len(e.ops) == 1 and not isinstance(e.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn))
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Invert):
        return is_mask(e.operand, masks)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return is_mask(e.left, masks) and is_mask(e.right, masks)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
        if e.func.attr in _MASKS:
            return True
        if e.func.attr in ("unsqueeze", "expand_as", "expand", "view", "reshape", "squeeze",
                           "to", "cuda", "contiguous", "flatten"):
            return is_mask(e.func.value, masks)
    return False


def _tensor_test(ff: FileFlow, test: ast.expr) -> bool:
    """An ``if``/``while`` test that is a tensor (Python reads it on the host)."""
    return any(is_tensor(ff, c) for c in _operands(test))


def _operands(e: ast.expr) -> list[ast.expr]:
    if isinstance(e, ast.BoolOp):
        return [x for v in e.values for x in _operands(v)]
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return _operands(e.operand)
    return [e]
