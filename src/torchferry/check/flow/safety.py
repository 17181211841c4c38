"""What a safe fix may rely on: facts established by construction in the code.

A fix is safe only when what it assumes of a value was made so in the same scope: a
tensor built there by a torch factory (and only operations that keep it a tensor since),
a device literal or ``torch.device(...)``, a module built there by a constructor.  An
annotation, a name, a parameter, a global or a callee's return never counts
(:attr:`~torchferry.check.flow.lattice.Basis.CONSTRUCTED`).

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = "import torch\\ndef f(x: torch.Tensor):\\n    y = torch.ones(2) + 1\\n    return x, y\\n"
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> ret = tree.body[1].body[1].value
>>> [tensor_by_construction(ff, e) for e in ret.elts]
[False, True]
"""

from __future__ import annotations

import ast

from torchferry.check.flow.events import Callee
from torchferry.check.flow.lattice import Kind, Op, Value
from torchferry.check.flow.program import FileFlow


def value_of(ff: FileFlow, node: ast.AST) -> Value | None:
    """The value the analysis gave the expression ``node`` (None: not evaluated)."""
    res = ff.scope_of(node)
    return None if res is None else res.value(node)


def tensor_by_construction(ff: FileFlow, node: ast.AST, receiver_of_numpy: bool = False) -> bool:
    """Is ``node`` a tensor by construction in its scope?  With ``receiver_of_numpy`` (the
    ``t`` of ``t.numpy()``, which fails unless ``t`` is a tensor anyway), the output of a
    ``torch.nn`` layer built in that scope counts too (as a NumPy function's argument it
    may be a tuple: ``nn.LSTM``)."""
    res = ff.scope_of(node)
    v = None if res is None else res.value(node)
    if res is None or v is None:
        return False
    if v.made_as(Kind.TENSOR):
        return True
    if not receiver_of_numpy or not v.is_(Kind.TENSOR) or not v.origins or \
            v.origins[0].op is not Op.OUTPUT:
        return False
    call = res.calls.get(id(v.origins[0].node))
    return call is not None and call.callee is Callee.MODULE and call.func.made_as(Kind.MODULE) \
        and any(o.op is Op.MADE and o.text.startswith("torch.nn.") for o in call.func.origins)


def device_by_construction(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a device by construction: a device literal (``"cuda"``), a
    ``torch.device(...)``, a choice between them, the ``.device`` of a tensor made in the
    same scope, or a name bound to one of these in that scope?"""
    v = value_of(ff, node)
    return v is not None and v.made_as(Kind.DEVICE)


def module_by_construction(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a module built in its scope by a constructor (``torch.nn.Linear(...)``, a
    module class of the run, a model zoo's builder), moved or not since?"""
    v = value_of(ff, node)
    return v is not None and v.made_as(Kind.MODULE)


def self_of_module(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` the ``self`` of a method of an ``nn.Module`` class (a module by the class
    statement's bases, not by an annotation)?"""
    res = ff.scope_of(node)
    if res is None or not isinstance(node, ast.Name) or not res.params or node.id != res.params[0]:
        return False
    cls = ff.method_of.get(id(res.node))
    if cls is None or not cls.is_module:
        return False
    fn = res.node
    return not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                   for d in getattr(fn, "decorator_list", ()))
