"""What ``from M import *`` binds: the names a module binds at its top level and which of
them a star import hands on (Python's rule: the strings of a literal ``__all__``, else every
name that does not start with an underscore).

The analysis of one module, read off its syntax tree (:func:`exports_of`); the files of the
run are followed by :meth:`torchferry.check.flow.project.Project.star_imports`.

>>> ex = exports_of(ast.parse("import torch\\nfrom torch import nn as _nn, LongTensor\\n"
...                           "from .core import *\\nx = 1\\ndef f(): pass\\n"))
>>> ex.imports, ex.stars, sorted(ex.bound)
({'torch': 'torch', '_nn': 'torch.nn', 'LongTensor': 'torch.LongTensor'}, ('.core',), ['f', 'x'])
>>> [ex.exports(n) for n in ("torch", "_nn", "x")]
[True, False, True]
>>> exports_of(ast.parse("import torch\\n__all__ = ['f']\\ndef f(): pass\\n")).exports("torch")
False
>>> exports_of(ast.parse("import torch\\n__all__ = ['f'] + extra\\n")).exports("f")
False
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from torchferry.check.flow.treeindex import tree_index

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


class AllList(enum.Enum):
    """How a module spells its ``__all__``."""

    ABSENT = "absent"  #: no ``__all__``: the public names are exported
    LITERAL = "literal"  #: one assignment of a literal list or tuple of strings
    UNKNOWN = "unknown"  #: written otherwise (built, extended): nothing is known exported


@dataclass(frozen=True)
class Exports:
    """A module's top-level bindings, as a star import of it sees them."""

    #: the names its own top-level imports bind (also under ``if``/``try``), bound once
    #: each: name -> the qualified name as the module spells it (``.core.f`` relative)
    imports: dict[str, str]
    #: the modules it star-imports itself, in order, as spelled (``.core``)
    stars: tuple[str, ...]
    #: every other name it binds at its top level (assignments, definitions, imports bound
    #: twice or inside a loop or ``with``, ``global`` names of its functions)
    bound: frozenset[str]
    all_kind: AllList
    #: the strings of a literal ``__all__``
    listed: frozenset[str]

    def exports(self, name: str) -> bool:
        """Does ``from <this module> import *`` bind ``name``?"""
        if self.all_kind is AllList.ABSENT:
            return not name.startswith("_")
        return self.all_kind is AllList.LITERAL and name in self.listed


def exports_of(tree: ast.Module) -> Exports:
    """The :class:`Exports` of a module's syntax tree."""
    imports: dict[str, str] = {}
    twice: set[str] = set()
    stars: list[str] = []
    for name, qual in _top_imports(tree.body, stars):
        if name in imports and imports[name] != qual:
            twice.add(name)
        imports[name] = qual
    bound = _bound(tree) | twice
    kind, listed = _all_list(tree)
    return Exports({n: q for n, q in imports.items() if n not in bound}, tuple(stars),
                   frozenset(bound), kind, listed)


class Bound(NamedTuple):
    """A name an import statement binds and the qualified name it binds it to (``*`` and the
    module, as spelled, for a star import); ``plain`` for ``import a.b`` without ``as``,
    which binds ``a``."""

    name: str
    qualified: str
    plain: bool = False


def import_bindings(st: ast.Import | ast.ImportFrom) -> Iterator[Bound]:
    """What the import statement ``st`` binds, alias by alias.

    >>> [tuple(b) for b in import_bindings(ast.parse("from .core import f as g, h").body[0])]
    [('g', '.core.f', False), ('h', '.core.h', False)]
    >>> [tuple(b) for b in import_bindings(ast.parse("from .core import *").body[0])]
    [('*', '.core', False)]
    >>> [tuple(b) for b in import_bindings(ast.parse("import torch.nn, numpy as np").body[0])]
    [('torch', 'torch', True), ('np', 'numpy', False)]
    """
    if isinstance(st, ast.Import):
        for a in st.names:
            top = a.name.split(".")[0]
            yield Bound(a.asname, a.name) if a.asname else Bound(top, top, True)
        return
    base = "." * st.level + (st.module or "")
    for a in st.names:
        if a.name == "*":
            yield Bound("*", base)
        else:
            yield Bound(a.asname or a.name, f"{base}{'.' if st.module else ''}{a.name}")


def _top_imports(body: list[ast.stmt], stars: list[str]) -> Iterator[tuple[str, str]]:
    """(name, qualified name) of the imports of a module's top level and of the bodies of
    its ``if`` and ``try`` statements; the star-imported modules are appended to ``stars``."""
    for st in body:
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            for b in import_bindings(st):
                if b.name == "*":
                    stars.append(b.qualified)
                else:
                    yield b.name, b.qualified
        elif isinstance(st, (ast.If, ast.Try)):
            yield from _top_imports(st.body, stars)
            for h in getattr(st, "handlers", ()):
                yield from _top_imports(h.body, stars)
            yield from _top_imports(st.orelse, stars)
            yield from _top_imports(getattr(st, "finalbody", []), stars)


def _bound(tree: ast.Module) -> set[str]:
    """The names the module binds at its top level otherwise than by an import of its top
    level (or of an ``if``/``try`` there), and the names its functions declare ``global``."""
    out = {n for node in tree_index(tree).globals for n in node.names}
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        st = todo.pop()
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(st.name)
        elif isinstance(st, (ast.If, ast.Try)):
            todo += st.body + st.orelse + getattr(st, "finalbody", [])
            todo += [s for h in getattr(st, "handlers", ()) for s in h.body]
            out.update(h.name for h in getattr(st, "handlers", ()) if h.name)
            out |= _stored(getattr(st, "test", None))
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            continue
        else:
            out |= _stored(st)
    return out


def _stored(node: ast.AST | None) -> set[str]:
    """The names ``node`` binds (stores or deletes, imports included), not looking into
    the bodies of functions, classes and lambdas, which bind their own."""
    out: set[str] = set()
    todo = [node] if node is not None else []
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names if a.name != "*")
        elif isinstance(n, _SCOPES):
            if not isinstance(n, ast.Lambda):
                out.add(n.name)
            continue
        todo.extend(ast.iter_child_nodes(n))
    return out


def _all_list(tree: ast.Module) -> tuple[AllList, frozenset[str]]:
    """How the module spells ``__all__`` (see :class:`AllList`), with its strings."""
    uses = tree_index(tree).names.get("__all__", ())
    if not uses:
        return AllList.ABSENT, frozenset()
    one = [st for st in tree.body if isinstance(st, ast.Assign) and len(st.targets) == 1
           and isinstance(st.targets[0], ast.Name) and st.targets[0].id == "__all__"]
    if len(uses) != 1 or len(one) != 1 or not isinstance(one[0].value, (ast.List, ast.Tuple)):
        return AllList.UNKNOWN, frozenset()
    items = one[0].value.elts
    strings = [e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if len(strings) != len(items):
        return AllList.UNKNOWN, frozenset()
    return AllList.LITERAL, frozenset(strings)
