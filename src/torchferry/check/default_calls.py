"""The calls of the run that leave a parameter to its default.

``def f(x, device="cuda")`` hard-codes nothing by itself: a caller that passes ``device``
chooses.  It is the call ``f(x)`` that runs on the default.  :func:`relying_call` finds such
a call of a function defined at a file's top level (``f(...)``), or of a class defined there
through its own ``__init__`` (``Block(...)``), among the calls of the file and of the files of
the run that import it, binding positional and keyword arguments as Python does.  It answers
only where every use of the name is known to be a call: the name handed on as a value
(``map(f, xs)``, a subclass, an annotation), a call that spreads ``*args`` / ``**kw``, an
attribute call (``mod.f(...)``, which may be another object's method), a decorated
function, a name bound twice, a star import or an importer that cannot be read make it
answer None.  A function of an importer that imports the name itself (``def f(): from m
import g``) binds it in its own scope alone: its calls count only where that import loads
the checked file.  A call under a test on availability (``if torch.cuda.is_available():``) is
not counted: the default is the accelerator's there.

A call spreading the ``**kw`` of the top-level function ``g`` it stands in, ``kw`` used
nowhere else in ``g``, is followed one step (:func:`_forwarded`): it relies on the default
where a call of ``g`` passes no such keyword, or where ``g`` keeps the keyword out of ``kw``
by taking it as its own parameter.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from dataclasses import dataclass

from torchferry.check.flow.binding import bind
from torchferry.check.flow.converted import param_names
from torchferry.check.flow.project import Project
from torchferry.check.scopes import Walker

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Target:
    """What a call names to run the function: the name, and how many parameters the call
    binds implicitly before its first positional argument (``self`` of ``__init__``)."""

    name: str
    skipped: int


@dataclass(frozen=True)
class Reliance:
    """A call that leaves the parameter unbound: its file (None: the checked one) and place."""

    name: str
    line: int
    column: int
    path: str | None = None


def relying_call(tree: ast.Module, path: str, project: Project | None,
                 fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str) -> Reliance | None:
    """A call of the run that runs ``fn`` (defined in ``tree``, the file ``path``) without
    binding its parameter ``param``, so that ``param`` takes its default; None when there is
    none or when not every call of the run is known (see the module's docstring)."""
    target = _target(tree, fn)
    if target is None or param not in param_names(fn):
        return None
    files = _run_trees(tree, path, project, target.name)
    if files is None:
        return None
    found: list[Reliance] = []
    for other, other_tree in files:
        ours = _loads_here(project, other, path)
        calls = _calls_of(other_tree, target.name, own=other is None, ours=ours)
        if calls is None:
            return None
        for call, guarded in calls:
            bound = _binds(call, fn, param, target.skipped)
            if bound is None:
                forwarded = _forwarded(other_tree, other, path, project, call, fn, param, target.skipped)
                if forwarded is None:
                    return None
                if forwarded is not _NOT_RELIED and not guarded:
                    found.append(forwarded)
                continue
            if not bound and not guarded:
                found.append(Reliance(target.name, call.lineno, call.col_offset, other))
    return found[0] if found else None


#: :func:`_forwarded`'s answer for a forwarding call that binds the parameter, or whose
#: forwarder no call of the run leaves without it
_NOT_RELIED = Reliance("", 0, 0)


def _forwarded(tree: ast.Module, where: str | None, path: str, project: Project | None,
               call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str,
               skipped: int) -> Reliance | None:
    """For ``call`` (in ``tree``, the file ``where``: None for the checked file ``path``)
    spreading the ``**kw`` of the top-level function ``g`` it stands in (``def g(cfg, **kw):
    return fn(cfg, **kw)``), ``kw`` used nowhere else in ``g``: whether the call leaves
    ``param`` of ``fn`` to its default.  It does where its own arguments do not bind
    ``param`` and ``kw`` cannot hold it (``param`` a parameter of ``g`` that takes it by
    keyword: the call itself is the reliance), or where a call of ``g`` in the run passes
    no ``param=`` (that call is).  :data:`_NOT_RELIED` where it binds ``param`` or no such
    call of ``g`` exists; None where this is not known (another spread, ``kw`` read or
    changed in ``g``, a call of ``g`` that spreads ``**``)."""
    g = _forwarder(tree, call)
    if g is None:
        return None
    bound = _binds(ast.Call(call.func, call.args, [k for k in call.keywords if k.arg is not None]),
                   fn, param, skipped)
    if bound is None:
        return None
    if bound:
        return _NOT_RELIED
    a = g.args
    if param in {x.arg for x in (*a.args, *a.kwonlyargs)}:
        return Reliance(fn.name if skipped == 0 else _class_of(tree, fn), call.lineno, call.col_offset, where)
    return _caller_without(tree, where, path if where is None else where, project, g, param)


def _class_of(tree: ast.Module, fn: ast.AST) -> str:
    """The name of the top-level class whose method ``fn`` is (``__init__``)."""
    return next((st.name for st in tree.body if isinstance(st, ast.ClassDef)
                 and any(s is fn for s in st.body)), "")


def _forwarder(tree: ast.Module, call: ast.Call) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The top-level function ``g`` whose body holds ``call`` when the call spreads exactly
    ``**kw``, ``g``'s own ``**kw``, and nothing else (no ``*args``), ``kw`` being read
    nowhere else in ``g`` and never bound there."""
    spread = [k for k in call.keywords if k.arg is None]
    if len(spread) != 1 or not isinstance(spread[0].value, ast.Name) \
            or any(isinstance(x, ast.Starred) for x in call.args):
        return None
    kw = spread[0].value.id
    for g in tree.body:
        if not isinstance(g, _FUNCS) or g.args.kwarg is None or g.args.kwarg.arg != kw:
            continue
        nodes = _own_nodes(g)
        if not any(n is call for n in nodes):
            continue
        uses = [n for n in nodes if isinstance(n, ast.Name) and n.id == kw]
        shadowed = any(isinstance(n, (*_FUNCS, ast.ClassDef, ast.Lambda)) for n in nodes
                       if kw in _mentioned(n))
        return g if len(uses) == 1 and uses[0] is spread[0].value and not shadowed else None
    return None


def _mentioned(n: ast.AST) -> set[str]:
    """The names a nested function, class or lambda reads or binds (it may read ``kw``)."""
    return {x.id for x in ast.walk(n) if isinstance(x, ast.Name)}


def _caller_without(tree: ast.Module, where: str | None, path: str, project: Project | None,
                    g: ast.FunctionDef | ast.AsyncFunctionDef, param: str) -> Reliance | None:
    """A call of ``g`` (top-level in ``tree``, the file ``path``; ``where`` as the checked
    file names it) in the run that passes no ``param=`` and no ``**`` spread, under no test
    on availability; :data:`_NOT_RELIED` where there is none; None where not every call of
    ``g`` is known or one spreads ``**``."""
    if _target(tree, g) is None:
        return None
    files = _run_trees(tree, path, project, g.name)
    if files is None:
        return None
    for other, other_tree in files:
        calls = _calls_of(other_tree, g.name, own=other is None, ours=_loads_here(project, other, path))
        if calls is None:
            return None
        for c, guarded in calls:
            if any(k.arg is None for k in c.keywords):
                return None
            if not guarded and all(k.arg != param for k in c.keywords):
                return Reliance(g.name, c.lineno, c.col_offset, where if other is None else other)
    return _NOT_RELIED


def _target(tree: ast.Module, fn: ast.AST) -> Target | None:
    """How the run calls ``fn``: a function at the file's top level by its name, an
    ``__init__`` of a class there by the class's name; None otherwise (or decorated)."""
    if not isinstance(fn, _FUNCS) or fn.decorator_list:
        return None
    if any(st is fn for st in tree.body):
        return Target(fn.name, 0) if _bound_once(tree, fn.name) else None
    if fn.name != "__init__":
        return None
    for st in tree.body:
        if isinstance(st, ast.ClassDef) and any(s is fn for s in st.body) and not st.decorator_list:
            return Target(st.name, 1) if _bound_once(tree, st.name) else None
    return None


def _bound_once(tree: ast.Module, name: str) -> bool:
    """Is ``name`` bound once in the file: by its ``def`` or ``class`` alone?"""
    count = 0
    for n in ast.walk(tree):
        if isinstance(n, (*_FUNCS, ast.ClassDef)) and n.name == name:
            count += 1
        elif isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return False
        elif isinstance(n, ast.alias) and (n.asname or n.name).split(".")[0] == name:
            return False
    return count == 1


def _binds(call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str,
           skipped: int) -> bool | None:
    """Does ``call`` bind ``param`` of ``fn`` (with ``skipped`` parameters bound before its
    arguments)?  None when the binding is not known (:func:`~torchferry.check.flow.binding.bind`:
    a ``*args`` / ``**kw`` spread, or a call Python would refuse)."""
    binding = bind(fn, call, skipped)
    if binding is None:
        return None
    return param_names(fn).index(param) in binding.args


def _run_trees(tree: ast.Module, path: str, project: Project | None,
               name: str) -> list[tuple[str | None, ast.Module]] | None:
    """The checked file's tree, then those of the files of the run that import it and whose
    text names ``name``; None when they cannot all be read."""
    out: list[tuple[str | None, ast.Module]] = [(None, tree)]
    if project is None:
        return out
    here = os.path.abspath(path)
    if here not in project.files:
        return None
    importers = project.importers(here)
    if importers is None:
        return None
    needle = name.encode()
    for p in sorted(importers - {here}):
        data = project.files.get(p, b"")
        if needle not in data:
            continue
        if b"import *" in data:
            return None
        other = project.file_flow(p)
        if other is None:
            return None
        out.append((p, other.tree))
    return out


def _loads_here(project: Project | None, other: str | None,
                path: str) -> Callable[[ast.ImportFrom], bool] | None:
    """For an importing file ``other``: does one of its ``from M import ...`` load ``M``
    from the checked file ``path``?  None for the checked file itself (or without a run)."""
    if other is None or project is None:
        return None
    here = os.path.abspath(path)

    def ours(st: ast.ImportFrom) -> bool:
        return project.find_module(other, "." * st.level + (st.module or "")) == here
    return ours


def _calls_of(tree: ast.Module, name: str, own: bool,
              ours: Callable[[ast.ImportFrom], bool] | None = None) -> list[tuple[ast.Call, bool]] | None:
    """The calls ``name(...)`` of ``tree``, each with whether a test on availability guards
    it; None when the file names ``name`` other than as such a call (``obj.name``, a value,
    a base class) or, outside the defining file (``own``), defines it itself.  With
    ``ours``, a call in a function that imports ``name`` itself (``def f(): from m import
    name``) counts only where that import loads the checked file: the import binds the
    name in that function alone, to what its module holds."""
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    out: list[tuple[ast.Call, bool]] = []
    for n in ast.walk(tree):
        if isinstance(n, (*_FUNCS, ast.ClassDef)) and n.name == name and not own:
            return None
        if isinstance(n, ast.Attribute) and n.attr == name:
            return None
        if not (isinstance(n, ast.Name) and n.id == name):
            continue
        parent = parents.get(id(n))
        if isinstance(parent, ast.Call) and parent.func is n:
            local = _local_import(parents, n, name) if ours is not None else None
            if local is not None and ours is not None and not ours(local):
                continue  # (the name of that function is another module's)
            out.append((parent, _guarded(parents, parent)))
        elif not (own and _names_super(parent, n)):
            return None
    return out


def _names_super(parent: ast.AST | None, n: ast.Name) -> bool:
    """``super(Name, self)``: the class named, no instance built."""
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
        parent.func.id == "super" and bool(parent.args) and parent.args[0] is n


def _local_import(parents: dict[int, ast.AST], node: ast.AST, name: str) -> ast.ImportFrom | None:
    """The ``from M import name`` of the innermost function around ``node`` that binds
    ``name`` by such an import alone; None when no enclosing function imports it (or one
    binds it otherwise first, or imports it twice)."""
    up = parents.get(id(node))
    while up is not None:
        if isinstance(up, (*_FUNCS, ast.Lambda)):
            found = _own_import(up, name)
            if found is not None:
                return found if isinstance(found, ast.ImportFrom) else None
        up = parents.get(id(up))
    return None


def _own_import(fn: ast.AST, name: str) -> ast.ImportFrom | bool | None:
    """How ``fn`` binds ``name`` in its own scope: by one ``from M import name`` (that
    statement), otherwise (False: a parameter, an assignment, a second import), or not at
    all (None)."""
    if isinstance(fn, _FUNCS) and name in param_names(fn):
        return False
    found: list[ast.AST] = []
    for n in _own_nodes(fn):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            found.extend(n for a in n.names if (a.asname or a.name.split(".")[0]) == name)
        elif isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) or \
                isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names or \
                isinstance(n, (*_FUNCS, ast.ClassDef)) and n.name == name:
            found.append(n)
    if not found:
        return None
    one = found[0]
    return one if len(found) == 1 and isinstance(one, ast.ImportFrom) else False


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    """The nodes of ``fn``'s body that belong to its own scope (not to nested functions or
    classes, whose own names and definitions are kept)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(fn.body) if isinstance(fn, _FUNCS) else [getattr(fn, "body", fn)]
    while todo:
        n = todo.pop()
        out.append(n)
        if isinstance(n, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return out


def _guarded(parents: dict[int, ast.AST], node: ast.AST) -> bool:
    """Is ``node`` in an arm of an ``if`` (or conditional expression, or ``while``) whose
    test mentions availability?"""
    child, up = node, parents.get(id(node))
    while up is not None:
        if isinstance(up, (ast.If, ast.IfExp, ast.While)) and child is not up.test and \
                Walker.mentions_availability(up.test):
            return True
        child, up = up, parents.get(id(up))
    return False
