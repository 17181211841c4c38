"""Submodules a module's ``__init__`` adds to a registered ``nn.ModuleList`` or
``nn.ModuleDict`` of its own.

``self.blocks = nn.ModuleList()`` registers the list as a submodule (``Module.__setattr__``
of a ``Module`` value), and ``self.blocks.append(Block(...))`` registers the block in the
list: read in torch 2.13.0, ``torch/nn/modules/container.py``: ``ModuleList.append`` runs
``self.add_module(str(len(self)), module)``, ``extend`` appends each module, ``insert``
sets ``self._modules[str(index)]``, ``ModuleDict.__setitem__`` runs ``self.add_module(key,
module)``.  The owner's ``.to()`` then moves the block, so in the block class's methods
``self`` is where the owner is::

    class Glow(nn.Module):
        def __init__(self, n_block):
            super().__init__()
            self.blocks = nn.ModuleList()
            for i in range(n_block):
                self.blocks.append(Block())          # a submodule of every Glow

    model = Glow(4).to(device)                       # ``self`` of Block's methods: there

Only a container that every assignment of that attribute in the owner class makes, written
out as ``nn.ModuleList(...)`` or ``nn.ModuleDict(...)`` of torch, counts; the module added is
a construction written in the call (``append(Block(...))``, ``extend([Block(...), ...])``,
``blocks["a"] = Block(...)``).

>>> import ast
>>> src = ("import torch.nn as nn\\nclass B(nn.Module):\\n    pass\\n"
...        "class G(nn.Module):\\n    def __init__(self):\\n        super().__init__()\\n"
...        "        self.bs = nn.ModuleList()\\n        for i in range(2):\\n"
...        "            self.bs.append(B())\\n")
>>> from torchferry.check.flow.program import FileFlow
>>> ff = FileFlow(ast.parse(src), "<example>")
>>> g, b = ff.class_info(ff.defs["G"]), ff.class_info(ff.defs["B"])
>>> fills(ff, g, g.methods["__init__"], lambda e: ff._builds(b, e))
True
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: the registering containers of ``torch.nn`` and the methods that add a module to them
_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.ModuleDict",
                         "torch.nn.modules.container.ModuleList",
                         "torch.nn.modules.container.ModuleDict"})
_ADDS = frozenset({"append", "insert", "extend"})


def fills(ff: FileFlow, owner: ClassInfo, init: ast.AST, builds: Callable[[ast.expr], bool]) -> bool:
    """Does ``init`` (the ``__init__`` of ``owner``, a module class of ``ff``) add a module
    that ``builds`` accepts (a construction of the class asked about) to a registered
    ``nn.ModuleList``/``nn.ModuleDict`` attribute of ``self``?"""
    first = _self_name(init)
    if first is None:
        return False
    for node in ast.walk(init):
        added = _added(node, first)
        if added is None:
            continue
        attr, values = added
        if any(builds(v) for v in values) and _registered(ff, owner, attr):
            return True
    return False


def _self_name(fn: ast.AST) -> str | None:
    args = getattr(fn, "args", None)
    return args.args[0].arg if args is not None and args.args else None


def _added(node: ast.AST, first: str) -> tuple[str, list[ast.expr]] | None:
    """``(attr, modules)`` for ``self.attr.append(m)``, ``.insert(i, m)``,
    ``.extend([m, ...])`` and ``self.attr[k] = m``; None for anything else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ADDS:
        attr = _self_attr(node.func.value, first)
        if attr is None or not node.args or node.keywords:
            return None
        last = node.args[-1]
        if node.func.attr != "extend":
            return attr, [last]
        return (attr, list(last.elts)) if isinstance(last, (ast.List, ast.Tuple)) else \
            (attr, [last.elt]) if isinstance(last, (ast.ListComp, ast.GeneratorExp)) else None
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        attr = _self_attr(node.targets[0].value, first)
        return (attr, [node.value]) if attr is not None else None
    return None


def _self_attr(node: ast.expr, first: str) -> str | None:
    """``attr`` of ``self.attr`` (``self`` the method's first parameter)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == first:
        return node.attr
    return None


def _registered(ff: FileFlow, owner: ClassInfo, attr: str) -> bool:
    """Is every assignment of ``self.attr`` in ``owner``'s methods (one at least) a
    ``ModuleList``/``ModuleDict`` of torch written out, and none other binding of it
    there (an augmented assignment, a tuple target)?"""
    made = 0
    for fn in owner.methods.values():
        first = _self_name(fn)
        for node in ast.walk(fn):
            for target in _targets(node):
                if _self_attr(target, first or "") != attr:
                    continue
                value = getattr(node, "value", None)
                if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(value, ast.Call) \
                        or ff.qualname(value.func) not in _CONTAINERS:
                    return False
                made += 1
    return made > 0


def _targets(node: ast.AST) -> list[ast.expr]:
    """The expressions ``node`` binds (with the items of a tuple or list target)."""
    if isinstance(node, ast.Assign):
        out: list[ast.expr] = []
        for t in node.targets:
            out.extend(t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])
        return out
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    return []
