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
* this module -- the remaining queries rules ask (device variables in scope,
  availability checks, source text).

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
    AVAIL_NAME,
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
    header_parents,
    indent_of,
    is_accel_literal,
    kwarg,
    needs_parens,
    pos,
    short,
    tail,
)
from torchferry.check.scopes import Binding, ClassInfo, Ctx, Scope, Site, _before

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
        self._parents: dict[int, dict[int, ast.AST]] = {}
        self._device_names: dict[int, list[str]] = {}
        self._avail_checks: dict[int, list[Site[ast.Call]]] | None = None
        #: per-file caches a rule may keep its own answers in, keyed by the rule's code
        self.rule_memo: dict[str, dict[int, bool]] = {}
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

    def parents(self, stmt: ast.AST) -> dict[int, ast.AST]:
        """The parent (by ``id``) of each expression node of a statement's own header,
        memoised (big statements hold many literals)."""
        p = self._parents.get(id(stmt))
        if p is None:
            p = self._parents[id(stmt)] = header_parents(stmt)
        return p

    # ----------------------------------------------------------------- devices
    def mentions_availability(self, node: ast.AST) -> bool:
        """Does an expression test for an accelerator (``is_available()``,
        ``device_count()``, a name mentioning cuda/gpu/device/mps/xpu)?"""
        for x in ast.walk(node):
            if isinstance(x, ast.Call) and tail(x.func) in ("is_available", "device_count", "is_built"):
                return True
            if isinstance(x, ast.Name) and AVAIL_NAME.search(x.id):
                return True
            if isinstance(x, ast.Attribute) and AVAIL_NAME.search(x.attr):
                return True
            if isinstance(x, ast.keyword) and x.arg and AVAIL_NAME.search(x.arg):
                return True  # ``@RunIf(min_cuda_gpus=1)``
        return False

    def device_var(self, scope: Scope, at: int, exclude_stmt: ast.AST | None = None) -> str | None:
        """A device variable visible at ``at`` (``device``, ``dev``, ``*_device``), if any."""
        s: Scope | None = scope
        first = True
        while s is not None:
            if s.kind == "class" and not first:
                s = s.parent
                continue
            names = self._device_names.get(id(s))
            if names is None:
                names = self._device_names[id(s)] = sorted(n for n in s.binds if DEVICE_NAME.match(n))
            for name in names:
                lst = s.binds[name]
                b = _before(lst, at) if (first or s.kind == "function") else lst[-1][1]
                if b is None or b.stmt is exclude_stmt:
                    continue
                if b.how == "param":
                    return name
                f = self.binding_fact(b)
                if f is not None and f.kind == DEVICE and not is_accel_literal(b.value):
                    return name
            first = False
            s = s.parent
        return None

    def availability_checks(self, scope: Scope) -> list[Site[ast.Call]]:
        """``is_available()`` / ``device_count()`` calls in a scope's ``assert``/``if`` tests."""
        if self._avail_checks is None:
            self._avail_checks = {}
            for name in ("is_available", "device_count"):
                for s in self.calls_by_tail.get(name, ()):
                    test = getattr(s.stmt, "test", None)
                    if isinstance(s.stmt, (ast.Assert, ast.If)) and test is not None and \
                            pos(test) <= s.pos <= end_pos(test):
                        self._avail_checks.setdefault(id(s.ctx.scope), []).append(s)
        return self._avail_checks.get(id(scope), [])
