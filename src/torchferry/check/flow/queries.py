"""What a rule asks the device-flow analysis about one expression of its file: what the
value is and where it lives, in the analysis's own terms (:class:`Kind`, :class:`Where`).

Each question is answered from the scope that evaluated the expression
(:meth:`FileFlow.scope_of`); an expression no scope evaluated (unreachable code) answers
no.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = ("import torch\\nhost = torch.device('cpu')\\nnet = torch.nn.Linear(2, 2).cuda()\\n"
...        "y = net(torch.ones(2).cuda())\\nnet.to(host)\\nprint(y)\\n")
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> names = {n.id: n for n in ast.walk(tree) if isinstance(n, ast.Name) and type(n.ctx) is ast.Load}
>>> is_module(ff, names["net"]), is_cpu_device(ff, names["host"]), on_device_tensor(ff, names["y"])
(True, True, True)
"""

from __future__ import annotations

import ast

from torchferry.check.flow.events import ScopeResult
from torchferry.check.flow.lattice import Kind, Op, Value, Where
from torchferry.check.flow.program import FileFlow
from torchferry.check.flow.vocab import MODEL_NAME

#: a tensor, or an item of a batch (moved, or not)
_TENSORS = frozenset({Kind.TENSOR, Kind.BATCH})
_MODULE = frozenset({Kind.MODULE})


def value_of(ff: FileFlow, node: ast.AST) -> tuple[ScopeResult, Value] | None:
    """The scope that evaluated ``node`` and the value it had there (None: not evaluated)."""
    res = ff.scope_of(node)
    v = res.value(node) if res is not None else None
    return None if res is None or v is None else (res, v)


def is_module(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a module: known as one (made as one, or a parameter the function calls or
    uses as one), or of unknown kind and named as models and losses are (``model``,
    ``self.net``, ``criterion``)?  (Not what a module's output is: that may be anything.)"""
    found = value_of(ff, node)
    if found is None:
        return False
    res, v = found
    kinds = v.kinds
    if kinds is None and v.origins and v.origins[0].op is Op.PARAM:
        kinds = res.kind_of(v)  # a parameter as it came in: what the function uses it as
    if kinds is not None:
        return kinds == _MODULE
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name[:1].islower() and MODEL_NAME.match(name) is not None


def is_cpu_device(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a device that is the CPU on every path (``torch.device("cpu")``, a
    variable or attribute bound to one)?"""
    found = value_of(ff, node)
    return found is not None and found[1].is_(Kind.DEVICE) and found[1].only(Where.CPU)


def on_device_tensor(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a tensor (or a batch item) that may live on an accelerator for a reason the
    analysis sees: moved or made there, the output of a module there or of a loss given such
    tensors, through helpers and methods of the checked files?"""
    found = value_of(ff, node)
    if found is None:
        return False
    res, v = found
    kinds = res.kind_of(v)
    return kinds is not None and bool(kinds & _TENSORS) and res.may_be_on_device(v)


def is_device(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a device (``torch.device(...)``, a variable or attribute bound to one, a
    parameter said to be one)?"""
    found = value_of(ff, node)
    return found is not None and found[1].is_(Kind.DEVICE)


def cpu_tensor(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a tensor on the CPU on every path the analysis sees (made there without a
    device, computed from such tensors, or moved there)?"""
    found = value_of(ff, node)
    return found is not None and found[1].is_(Kind.TENSOR) and found[1].only(Where.CPU)


def may_live_on_device(ff: FileFlow, node: ast.AST) -> bool:
    """Could ``node`` (a tensor, a module, a device) be on an accelerator for a reason the
    analysis sees (see :meth:`ScopeResult.may_be_on_device`)?"""
    found = value_of(ff, node)
    return found is not None and found[0].may_be_on_device(found[1])
