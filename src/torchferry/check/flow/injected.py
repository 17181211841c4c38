"""What a module that keeps the modules it is given does with its input.

A wrapper module of the run (``Seq2Seq(encoder, decoder)`` whose ``__init__`` keeps
``self.encoder = encoder``) has no layers of its own to say what its ``forward`` takes; its
constructions do.  :func:`hands_to_a_tensor_layer` answers, for one construction, whether
the wrapper's ``forward`` hands its input, as it came in, to a kept module whose class's
``forward`` gives it first to a layer of ``torch.nn`` that takes tensors only
(:func:`~torchferry.check.flow.weighed.forward_takes_a_tensor`): then, in a program that
runs, the wrapper is called on a tensor.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.lattice import Kind, Op
from torchferry.check.flow.program import argument_of, kept_attributes
from torchferry.check.flow.weighed import forward_takes_a_tensor

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: what reading a tensor's shape looks like: it leaves the input as it is
_SHAPE_READS = frozenset({"size", "dim", "shape", "ndim"})


def hands_to_a_tensor_layer(ff: FileFlow, info: ClassInfo, call: ast.Call) -> bool:
    """Does ``info``'s ``forward``, for the instance ``call`` (of ``ff``'s file) builds, hand
    its first parameter as it came in (after statements that only read its shape,
    ``n = src.size(1)``, none under a test) to ``self.<attr>(x)`` of an attribute its
    ``__init__`` keeps from a parameter, whose argument in ``call`` is a module class of the
    run that :func:`forward_takes_a_tensor`?"""
    found = info.method("forward")
    if found is None:
        return False
    fn = found[1]
    names = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if len(names) < 2:
        return False
    first, kept = names[1], kept_attributes(info)
    for st in fn.body:
        if not any(isinstance(n, ast.Name) and n.id == first for n in ast.walk(st)):
            continue
        if isinstance(st, ast.Assign) and _reads_shape_only(st, first):
            continue
        if not isinstance(st, (ast.Assign, ast.Expr, ast.Return)):
            return False
        return any(_kept_call(ff, info, call, n, first, kept) for n in ast.walk(st))
    return False


def _reads_shape_only(st: ast.Assign, name: str) -> bool:
    """Does ``st`` name ``name`` only to read its shape (``n = x.size(1)``, ``b = x.shape[0]``),
    binding other names?"""
    if any(isinstance(n, ast.Name) and n.id == name for t in st.targets for n in ast.walk(t)):
        return False
    uses = [n for n in ast.walk(st.value) if isinstance(n, ast.Name) and n.id == name]
    shapes = [n.value for n in ast.walk(st.value) if isinstance(n, ast.Attribute)
              and n.attr in _SHAPE_READS and isinstance(n.value, ast.Name) and n.value.id == name]
    return bool(uses) and len(shapes) == len(uses)


def _kept_call(ff: FileFlow, info: ClassInfo, call: ast.Call, n: ast.AST, first: str,
               kept: dict[str, int]) -> bool:
    """Is ``n`` ``self.<attr>(first, ...)`` of a kept attribute whose argument in ``call`` is
    a module class of the run whose ``forward`` takes a tensor?"""
    if not (isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == first
            and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "self" and n.func.attr in kept):
        return False
    arg = argument_of(call, kept[n.func.attr], info)
    made = _made_by(ff, arg) if arg is not None else None
    given = ff.class_called(made) if made is not None else None
    return given is not None and given.is_module and forward_takes_a_tensor(given)


def _made_by(ff: FileFlow, arg: ast.expr) -> ast.Call | None:
    """The one call of ``ff``'s file that made the module ``arg``: the argument itself, or
    the only make of a name's value at the call."""
    if isinstance(arg, ast.Call):
        return arg
    res = ff.scope_of(arg) if isinstance(arg, ast.Name) else None
    v = res.value(arg) if res is not None else None
    if v is None or not v.is_(Kind.MODULE) or any(o.op is not Op.MADE for o in v.origins) or len(v.origins) != 1:
        return None
    node = v.origins[0].node
    return node if v.origins[0].path is None and isinstance(node, ast.Call) else None
