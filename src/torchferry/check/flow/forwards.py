"""Which method calling an instance of a module class of the run runs.

``nn.Module.__call__`` runs ``forward`` (with its hooks); a subclass that defines its own
``__call__`` replaces it, so ``self.pos_embedder(seq_length=n)`` of a class that writes its
computation as ``def __call__(self, seq_length=None, position=None)`` runs that method, and
``forward`` (if any) only where it calls it.  Its parameters are the module's inputs and
its return the module's output, as ``forward``'s are for any other module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo


def forward_name(cls: ClassInfo) -> str:
    """The name of the method that calling an instance of the module class ``cls`` runs:
    ``__call__`` where the class (or a base in the run) defines it, else ``forward``."""
    return "__call__" if cls.method("__call__") is not None else "forward"
