"""The program model behind ``ferry check``'s rules: built once per file, on first use
(``ctx.model``), with the standard library's :mod:`ast` only (torch is never imported).

It is layered, one job per module, and :class:`Model` is the whole of it:

* :mod:`torchferry.check.names` -- the vocabulary: torch factories, move and cast
  methods, dtypes, accelerator literals, how models/loaders/devices are named, and small
  node helpers (:func:`tail`, :func:`dotted`, :func:`kwarg`, :func:`pos`...);
* :mod:`torchferry.check.scopes` -- one walk recording, per scope, every binding and every
  call, operator and accelerator literal with its context (:class:`Site`, :class:`Ctx`:
  enclosing loops, ``if`` guards, ``with`` blocks), imports and qualified names, the
  file's ``nn.Module`` classes, :meth:`~Walker.binding` lookups;
* :mod:`torchferry.check.facts` -- :meth:`Model.fact`: what an expression is (a
  :class:`Fact`), lazily and memoised, from the last binding before that point;
* this module -- the source text of a node.

A rule reads top to bottom with it::

    m = ctx.model
    for site in m.calls_by_tail.get("numpy", ()):      # every ``x.numpy()`` / ``numpy(...)``
        f = m.fact(site.node.func.value, site.ctx)     # what ``x`` is at that point
        if f is not None and f.on_device: ...          # a tensor that may be on the GPU

Everything that is unknown stays unknown (``None``): a rule that is unsure stays quiet.

    >>> import ast
    >>> from torchferry.check.api import Context
    >>> src = "import torch\\nmodel = torch.nn.Linear(2, 2)\\nout = model(torch.ones(2))\\n"
    >>> m = Context("<example>", src, ast.parse(src)).model
    >>> call = m.calls_by_tail["Linear"][0]
    >>> m.fact(call.node, call.ctx).kind
    'module'
"""

from __future__ import annotations

import ast
from typing import Protocol

from torchferry.check.facts import Fact, Facts
from torchferry.check.names import (
    ACCEL_LITERAL,
    BATCH,
    DEVICE,
    DEVICE_FACTORIES,
    DEVICE_NAME,
    DTYPE,
    DTYPES,
    FACTORIES,
    LEGACY_CONSTRUCTORS,
    LOAD,
    LOADER,
    MODEL_NAME,
    MODULE,
    MOVE_METHODS,
    NON_TENSOR_METHODS,
    PARAMETER,
    TENSOR,
    TENSOR_ATTRS,
    dotted,
    end_pos,
    has_star_kwargs,
    indent_of,
    kwarg,
    needs_parens,
    pos,
    short,
    tail,
)
from torchferry.check.scopes import Binding, ClassInfo, Ctx, Scope, Site

__all__ = [
    "ACCEL_LITERAL", "BATCH", "DEVICE", "DEVICE_FACTORIES", "DEVICE_NAME", "DTYPE", "DTYPES",
    "FACTORIES", "LEGACY_CONSTRUCTORS", "LOAD", "LOADER", "MODEL_NAME", "MODULE", "MOVE_METHODS",
    "NON_TENSOR_METHODS", "PARAMETER", "TENSOR", "TENSOR_ATTRS",
    "Binding", "ClassInfo", "Ctx", "Fact", "Model", "Scope", "Site", "SourceFile",
    "dotted", "end_pos", "has_star_kwargs", "indent_of", "kwarg", "needs_parens", "pos",
    "short", "tail",
]  # fmt: skip


class SourceFile(Protocol):
    """What the model needs of a checked file (``torchferry.check.api.Context`` is one)."""

    @property
    def tree(self) -> ast.Module: ...

    @property
    def lines(self) -> list[str]: ...

    def span(self, node: ast.AST) -> tuple[int, int, int, int]: ...


class Model(Facts):
    """The per-file program model (see the module docstring)."""

    def __init__(self, source: SourceFile, module_classes: frozenset[str] = frozenset()) -> None:
        self.source = source
        super().__init__(source.tree, module_classes)

    def text(self, node: ast.AST) -> str:
        """The source text of ``node`` (like ``Context.text``, without re-splitting the file
        on every call)."""
        src = self.source
        lines = src.lines
        line, col, end_line, end_col = src.span(node)
        if line == end_line:
            return lines[line - 1][col:end_col] if line <= len(lines) else ""
        parts = [lines[line - 1][col:], *lines[line:end_line - 1], lines[end_line - 1][:end_col]]
        return "\n".join(parts)
