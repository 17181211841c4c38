"""Module names bound both by an import and otherwise: ``import model`` and then, at module
level, ``model = model.coRNN(...).to(device)``.

After that assignment the name no longer refers to the module: a function that reads the
global ``model`` reads whatever the module's code left in it when the function runs.
:func:`shadowed_imports` tells such names, and those among them that every function of the
file is known to read as the module's last binding: the last statement of the module that
binds the name is a plain assignment at its top level, no function rebinds it (``global``),
and nothing the module runs up to that assignment calls a function or class of the file
(which could read the name while it was still the module, or still unassigned).  For the
others the analysis does not know which binding a function sees.

>>> import ast
>>> src = '''
... import model
... import net
... model = model.Net()
... net = net.Net() if ok() else None
... def ok():
...     return True
... '''
>>> shadowed, settled = shadowed_imports(ast.parse(src), {"model", "net", "torch"})
>>> sorted(shadowed), sorted(settled)
(['model', 'net'], ['model'])
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchferry.check.flow.treeindex import TreeIndex, tree_index
from torchferry.check.names import imported_by_call

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (*_FUNCS, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def shadowed_imports(tree: ast.Module, imported: set[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The names of ``imported`` (the module's imports) that the module also binds
    otherwise, and those of them whose binding a function reads is the last one's."""
    index = tree_index(tree)
    if not any(_stored(index, name) for name in imported):
        return frozenset(), frozenset()
    last: dict[str, int] = {}  # name -> index of the last top-level statement binding it
    plain: dict[str, bool | None] = {}  # ... and whether that statement is a plain assignment
    shadowed: set[str] = set()
    for k, st in enumerate(tree.body):
        for name, how in _bindings(st):
            if name not in imported:
                continue
            last[name] = k
            plain[name] = how
            if how is not None:
                shadowed.add(name)
    rebound = {name for g in index.globals for name in g.names} & shadowed  # (declared ``global``)
    shadowed |= rebound
    own = {d.name for d in (*index.functions, *index.classes)}
    settled = {n for n in shadowed - rebound if plain.get(n) and _nothing_called_before(tree, last[n], own)}
    return frozenset(shadowed), frozenset(settled)


def _stored(index: TreeIndex, name: str) -> bool:
    """Does the tree bind ``name`` anywhere other than by an import: a name stored or
    deleted, a function or class defined?  (:func:`_bindings` yields no other binding.)"""
    return any(type(n.ctx) is not ast.Load for n in index.names.get(name, ())) or \
        any(d.name == name for d in (*index.functions, *index.classes))


def _bindings(st: ast.stmt) -> Iterator[tuple[str, bool | None]]:
    """The module-scope names ``st`` binds, each with how: None by an import, True by a
    plain assignment that is ``st`` itself, False otherwise (in a branch, a loop, a
    ``with``, a ``def``...)."""
    if isinstance(st, ast.Assign) and (found := imported_by_call(st)) is not None:
        yield found[0], None  # ``torch = importlib.import_module("torch")``
        return
    top = isinstance(st, (ast.Assign, ast.AnnAssign)) and getattr(st, "value", None) is not None
    for n in _module_scope(st):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                yield (a.asname or a.name.split(".")[0]), None
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            yield n.id, top and isinstance(n.ctx, ast.Store)
        elif isinstance(n, (*_FUNCS, ast.ClassDef)):
            yield n.name, False


def _module_scope(st: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of ``st`` in the module's own scope (a nested scope's node itself, which
    binds its name, but not its body)."""
    todo: list[ast.AST] = [st]
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, _SCOPES):
            todo.extend(_run_at_definition(n))
            continue
        todo.extend(ast.iter_child_nodes(n))


def _run_at_definition(n: ast.AST) -> list[ast.AST]:
    """What of a nested scope runs where it is defined: decorators, defaults, bases."""
    if isinstance(n, _FUNCS):
        return [*n.decorator_list, *n.args.defaults, *(d for d in n.args.kw_defaults if d)]
    if isinstance(n, ast.ClassDef):
        return [*n.decorator_list, *n.bases, *n.keywords]
    if isinstance(n, ast.Lambda):
        return [*n.args.defaults, *(d for d in n.args.kw_defaults if d)]
    return [n.generators[0].iter] if n.generators else []  # type: ignore[attr-defined]


def _nothing_called_before(tree: ast.Module, upto: int, own: set[str]) -> bool:
    """Does the module's code up to its statement ``upto`` (included) call no function
    or class the file defines (``own``: their names; a class body's own statements
    included)?"""
    todo: list[ast.AST] = list(tree.body[:upto + 1])
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in own:
            return False
        if isinstance(n, ast.ClassDef):
            todo.extend(b for b in n.body if not isinstance(b, _FUNCS))
        todo.extend(_run_at_definition(n) if isinstance(n, _SCOPES) else ast.iter_child_nodes(n))
    return True
