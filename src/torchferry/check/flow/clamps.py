"""``torch.clamp`` and its kin called with tensor bounds: no CPU-scalar allowance.

Most of torch's elementwise operators go through TensorIterator with CPU scalars allowed,
so a 0-dimensional CPU tensor mixes with tensors on an accelerator (``x * torch.tensor(2.0)``).
The Tensor overloads of the clamps do not: in torch 2.13.0's ``native_functions.yaml``
(shipped in the wheel as ``torchgen/packaged/ATen/native/native_functions.yaml``),
``clamp.Tensor``, ``clip.Tensor``, ``clamp_min.Tensor`` and ``clamp_max.Tensor`` (and their
in-place ``_`` forms) carry no ``device_check: NoCheck``, unlike their Scalar overloads and
``mul.Tensor``; their code-generated wrapper checks that every tensor argument is on the
first one's device, so a 0-dimensional CPU bound beside a CUDA tensor raises "Expected all
tensors to be on the same device, but got min is on cpu".  (``aten/src/ATen/native/
TensorCompare.cpp``'s ``clamp.Tensor`` meta function builds its iterator without
``allow_cpu_scalars`` too.)  Run under ``ferry run --simulate cuda`` with torch 2.13.0:
``torch.clamp(x, min=t)``, ``torch.clamp(x, t, u)``, ``x.clamp_min(t)`` and ``x.clip(t, u)``
fail; ``torch.clamp(x, t, 1.0)`` and ``torch.clamp(x, min=t, max=1.0)`` pass.

Which overload a call takes is Python's argument parser's choice: a bound written as a
number picks the Scalar overload (which takes a 0-dimensional tensor as its number).  So a
call takes the Tensor overload only where every bound it is given is a tensor.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = "import torch\\ndef f(x, n):\\n    t = torch.tensor(0.0)\\n    return torch.clamp(x, min=t), torch.clamp(x, t, 1.0)\\n"
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> res = ff.scope_of(tree.body[1].body[0].value)
>>> calls = sorted((c for c in res.calls.values() if c.qualname == "torch.clamp"), key=lambda c: c.node.col_offset)
>>> [tensor_bounds(res, c) for c in calls]
[True, False]
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.events import Callee
from torchferry.check.flow.lattice import Kind

if TYPE_CHECKING:
    from torchferry.check.flow.events import CallEvent, ScopeResult

__all__ = ["tensor_bounds"]

#: the clamps with a Tensor overload: name -> the keywords of their bounds
CLAMPS: dict[str, tuple[str, ...]] = {
    "clamp": ("min", "max"), "clip": ("min", "max"), "clamp_": ("min", "max"), "clip_": ("min", "max"),
    "clamp_min": ("min",), "clamp_max": ("max",), "clamp_min_": ("min",), "clamp_max_": ("max",),
}


def tensor_bounds(res: ScopeResult, c: CallEvent) -> bool:
    """Does ``c`` call a clamp (``torch.clamp(x, ...)``, ``x.clamp(...)``, ``clip``,
    ``clamp_min``, ``clamp_max``, their in-place forms) with at least one bound, every
    bound it is given known as a tensor: its Tensor overload, which takes no 0-dimensional
    CPU tensor beside tensors on an accelerator?"""
    name = (c.qualname or "").rsplit(".", 1)[-1]
    keywords = CLAMPS.get(name)
    if keywords is None:
        return False
    if c.callee is Callee.TORCH and c.qualname == f"torch.{name}":
        positional = c.node.args[1:]
    elif c.callee is Callee.METHOD and c.receiver is not None and isinstance(c.node.func, ast.Attribute):
        positional = c.node.args
    else:
        return False
    if any(isinstance(a, ast.Starred) for a in positional) or \
            any(k.arg is None or k.arg not in keywords for k in c.node.keywords):
        return False
    bounds = [*positional, *(k.value for k in c.node.keywords)]
    given = [b for b in bounds if not (isinstance(b, ast.Constant) and b.value is None)]
    return bool(given) and len(bounds) <= len(keywords) and all(_tensor(res, b) for b in given)


def _tensor(res: ScopeResult, node: ast.expr) -> bool:
    """Is ``node`` known as a tensor, never a number?"""
    v = res.value(node)
    return v is not None and v.kinds == frozenset((Kind.TENSOR,))
