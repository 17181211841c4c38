"""Which method calling an instance of a module class of the run runs.

``nn.Module.__call__`` runs ``forward`` (with its hooks); a subclass that defines its own
``__call__`` replaces it, so ``self.pos_embedder(seq_length=n)`` of a class that writes its
computation as ``def __call__(self, seq_length=None, position=None)`` runs that method, and
``forward`` (if any) only where it calls it.  Its parameters are the module's inputs and
its return the module's output, as ``forward``'s are for any other module.  A ``__call__``
that hands on to ``forward`` (``return super().__call__(*args, **kwargs)``, kept for its
type annotations, or ``self.forward(x)``) leaves ``forward`` the module's computation.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo

#: the calls by which a ``__call__`` hands on to the module's ``forward``
_HANDING_ON = frozenset({"__call__", "forward", "_call_impl", "_wrapped_call_impl"})


def forward_name(cls: ClassInfo) -> str:
    """The name of the method that calling an instance of the module class ``cls`` runs
    for its computation: ``__call__`` where the class (or a base in the run) defines one
    that calls no ``forward`` nor ``__call__`` of an attribute (``super().__call__(x)``,
    ``self.forward(x)``), else ``forward``.

    >>> import ast
    >>> from torchferry.check.flow.program import FileFlow
    >>> src = ("import torch.nn as nn\\nclass A(nn.Module):\\n    def __call__(self, n):\\n"
    ...        "        return n\\nclass B(nn.Module):\\n    def __call__(self, x):\\n"
    ...        "        return super().__call__(x)\\n    def forward(self, x):\\n        return x\\n")
    >>> ff = FileFlow(ast.parse(src), "<example>")
    >>> [forward_name(ff.class_info(c)) for c in ff.tree.body[1:]]
    ['__call__', 'forward']
    """
    found = cls.method("__call__")
    if found is None:
        return "forward"
    handing_on = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr in _HANDING_ON for n in ast.walk(found[1]))
    return "forward" if handing_on else "__call__"
