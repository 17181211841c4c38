"""Every move of the instances of a module class, across the files of the run.

A module built in one place (``self.model = Encoder(...)`` in a trainer's ``__init__``,
``model = Net(args)`` in ``main``) is moved by the code that holds it: ``model =
self.model.cuda()`` in ``train``, ``model.to(device)``.  This module follows each
construction of a class to the name or attribute that holds it and reads every use of that
holder: a move (``.to(d)``, ``.cuda()``, ``.cpu()``) is recorded; an attribute read, a
method call or a call of the instance itself (``model(x)``, ``model.parameters()``) keeps
it where it is; the holder bound to a local name (``model = self.model.cuda()``) is
followed through that name.  A move under a test (``if args.cuda: model.cuda()``),
in a loop or a ``try``, and ``model.apply(fn)``, count as unknown too.  Any other use -- handed to a function
(``nn.DataParallel(model)``, ``accelerator.prepare(model)``), returned, stored elsewhere --
lets the instance go where the analysis cannot see, and the answer is None.

An attribute holder (``self.model``) is looked for by its attribute name in every file of
the run that writes ``.<name>``: an object that holds the model may travel to a file that
does not import the class's file, so every such read counts (a read of another object's
attribute of the same name counts too: that only makes the answer more often None)::

    class Trainer:
        def __init__(self):
            self.model = Encoder()
        def train(self):
            model = self.model.cuda()            # the one move: ``.cuda()``
            return model(batch)
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable, Iterator

from torchferry.check.flow.program import FileFlow
from torchferry.check.flow.project import Project
from torchferry.check.flow.walk import SCOPES, own_nodes

#: per run (its :class:`Project`): attribute name -> :func:`_attr_moves` of it
_ATTR_MOVES: weakref.WeakKeyDictionary[Project, dict[str, list[ast.Call] | None]] = weakref.WeakKeyDictionary()
#: the methods that move a module (what they are given names the device)
MODULE_MOVES = frozenset({"to", "cuda", "cpu", "xpu", "mps", "ipu", "to_empty", "type", "_apply"})


def instance_moves(ff: FileFlow, cls: ast.ClassDef, depth: int = 0) -> list[ast.Call] | None:
    """The move calls of every instance of ``cls`` (a module class ``ff`` defines) in the
    run, or None when they cannot all be known: a construction the analysis cannot list, a
    construction not bound to a plain name or a ``self`` attribute, a use of the holder
    that may take the instance elsewhere (see the module docstring), or a holder that
    never moves it.  An instance held by an attribute of another module class
    (``self.encoder = Encoder(n)`` in a model's ``__init__``) moves with that module too:
    the moves of that class's instances count for it, followed three classes up.

    >>> import ast
    >>> from torchferry.check.flow.project import Project
    >>> src = '''
    ... import torch.nn as nn
    ... class Enc(nn.Module):
    ...     pass
    ... class Trainer:
    ...     def __init__(self):
    ...         self.model = Enc()
    ...     def train(self):
    ...         model = self.model.cuda()
    ...         return model.parameters()
    ... '''
    >>> p = Project({"t.py": src.encode()}, packages=())
    >>> ff = p.file_flow("t.py")
    >>> [ast.unparse(c) for c in instance_moves(ff, ff.defs["Enc"])]
    ['self.model.cuda()']
    """
    if depth > 3:
        return None
    out: list[ast.Call] = []
    for naming in _naming_files(ff, cls):
        if naming is None:
            return None
        other, parents, refs = naming
        for ref in refs:
            holder = _holder(parents, ref)
            found = None if holder is None else _holder_moves(other, parents, holder, depth)
            if not found:
                return None
            out.extend(found)
    return out


def _holder_moves(ff: FileFlow, parents: dict[int, ast.AST], holder: tuple[str | ast.Attribute, ast.AST],
                  depth: int) -> list[ast.Call] | None:
    """The moves of what ``holder`` holds: of the name in its scope, or of every read of the
    attribute in the run, with those of the module whose attribute it is."""
    name, scope = holder
    if isinstance(name, str):
        return _name_moves(scope, name)
    assert ff.project is not None
    known = _ATTR_MOVES.setdefault(ff.project, {})
    if name.attr not in known:
        known[name.attr] = _attr_moves(ff.project.files, name.attr)
    found = known[name.attr]
    owner = parents.get(id(scope))
    if found is None or not isinstance(owner, ast.ClassDef) or not ff.class_info(owner).is_module:
        return found
    more = instance_moves(ff, owner, depth + 1)
    return None if more is None else [*found, *more]


def _naming_files(ff: FileFlow, cls: ast.ClassDef) -> Iterator[
        tuple[FileFlow, dict[int, ast.AST], list[ast.expr]] | None]:
    """Each file of the run that may name ``cls`` (``ff``'s own and the files that import
    it), with its parent map and the nodes naming ``cls`` there, but the first argument of
    ``super(Encoder, self).__init__()``; one None, and no more, where those files are not
    known or one of them cannot be read."""
    project = ff.project
    files = project.importers(ff.path) if project is not None else None
    if project is None or files is None:
        yield None
        return
    for path in sorted({ff.path, *files}):
        other = ff if path == ff.path else project.file_flow(path)
        if other is None:
            yield None
            return
        parents = _parents(other.tree)
        yield other, parents, [r for r in _named(other, cls.name) if not _super_argument(parents, r)]


def _super_argument(parents: dict[int, ast.AST], ref: ast.AST) -> bool:
    call = parents.get(id(ref))
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
        call.func.id == "super" and bool(call.args) and call.args[0] is ref


def _named(ff: FileFlow, name: str) -> Iterator[ast.expr]:
    """The nodes of ``ff`` that may name the class ``name``: the name itself, a name it is
    imported as, an attribute ``<x>.name``."""
    local = {a for a, q in ff.imports.items() if q.rsplit(".", 1)[-1] == name} | {name}
    for node in ast.walk(ff.tree):
        if isinstance(node, ast.Name) and node.id in local and isinstance(node.ctx, ast.Load) or \
                isinstance(node, ast.Attribute) and node.attr == name:
            yield node


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(ch): n for n in ast.walk(tree) for ch in ast.iter_child_nodes(n)}


def _holder(parents: dict[int, ast.AST], ref: ast.AST) -> tuple[str | ast.Attribute, ast.AST] | None:
    """What the construction ``ref(...)`` is stored in: a local name (with the function, or
    module, whose code holds it) or a ``self.<attr>``; None for any other use of the class
    (a subclass, a factory handed it, an annotation, a construction used otherwise)."""
    call = parents.get(id(ref))
    st = parents.get(id(call)) if isinstance(call, ast.Call) and call.func is ref else None
    if not isinstance(st, ast.Assign) or len(st.targets) != 1:
        return None
    target = st.targets[0]
    scope: ast.AST | None = st
    while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        scope = parents.get(id(scope))
    if scope is None:
        return None
    if isinstance(target, ast.Name):
        return target.id, scope
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return target, scope
    return None


def _attr_moves(files: dict[str, bytes], attr: str) -> list[ast.Call] | None:
    """The moves of ``<x>.<attr>`` in every file of the run that writes ``.<attr>``."""
    out: list[ast.Call] = []
    needle = b"." + attr.encode()
    for path, data in files.items():
        if needle not in data:
            continue
        try:
            tree = ast.parse(data.decode("utf-8", "surrogateescape"), path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        parents = _parents(tree)
        reads = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == attr
                 and isinstance(n.ctx, ast.Load)]
        for n in reads:
            found = _use(n, parents)
            if found is None:
                return None
            out.extend(found)
    return out


def _name_moves(scope: ast.AST, name: str) -> list[ast.Call] | None:
    """The moves of the local name ``name`` in ``scope`` (its own code, not nested
    functions: a closure that reads it hands it on)."""
    parents = _parents(scope)
    out: list[ast.Call] = []
    for n in own_nodes(scope, defs=True):
        if isinstance(n, SCOPES) and any(
                isinstance(x, ast.Name) and x.id == name for x in ast.walk(n)):
            return None  # (a closure that reads it may hand it on)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
            found = _use(n, parents)
            if found is None:
                return None
            out.extend(found)
    return out


def _unconditional(st: ast.AST | None, parents: dict[int, ast.AST]) -> bool:
    """Is ``st`` a statement of its function's (or module's) own body, at most inside
    ``with`` blocks: run whenever the function runs?"""
    up = parents.get(id(st)) if isinstance(st, ast.stmt) else None
    while up is not None and not isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if not isinstance(up, (ast.With, ast.AsyncWith)):
            return False
        up = parents.get(id(up))
    return up is not None


def _use(n: ast.expr, parents: dict[int, ast.AST]) -> list[ast.Call] | None:
    """What a read ``n`` of the holder does with the instance: the moves it makes, or None
    where it may take it elsewhere."""
    up = parents.get(id(n))
    if isinstance(up, ast.Call) and up.func is n:
        return []  # ``model(x)``: the module runs where it is
    if not (isinstance(up, ast.Attribute) and up.value is n):
        return None  # handed on, returned, stored, compared
    call = parents.get(id(up))
    if up.attr == "apply":
        return None  # (the function it applies may move each submodule)
    if up.attr not in MODULE_MOVES:
        return []  # ``model.parameters()``, ``model.embedding_dict[...]``, ``model.eval()``
    if not (isinstance(call, ast.Call) and call.func is up):
        return None
    st = parents.get(id(call))
    if not _unconditional(st, parents):
        return None  # ``if args.cuda: model.cuda()``: on the other path it stays
    if isinstance(st, ast.Expr):
        return [call]
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
        scope: ast.AST | None = st
        while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            scope = parents.get(id(scope))
        more = _name_moves(scope, st.targets[0].id) if scope is not None else None
        return None if more is None else [call, *more]
    return None


def moved_under_flag(ff: FileFlow, cls: ast.ClassDef, param: str, attr: str,
                     arms_of: Callable[[ast.Module], dict[int, tuple[tuple[str, bool, ast.expr], ...]]]) -> bool:
    """Is every instance of ``cls`` (a module class ``ff`` defines) in the run built into
    a local name of a function, ``m = Cls(..., args)``, and moved (at least once) only in
    the true arm of ``if <E>.<attr>:``, where ``E`` is what the construction hands for
    ``__init__``'s parameter ``param``: a name bound once in that function, or ``self.<y>``
    that only ``__init__`` methods assign?  Every other read of the name calls the instance
    or reads an attribute of it (``m(x)``, ``m.train()``), and the name is bound to nothing
    else; ``attr`` is assigned in no file of the run that may build one.  ``arms_of``: the
    if-arms each node of a file is in.  Where the flag is false, then, no instance is
    moved."""
    seen = False
    for naming in _naming_files(ff, cls):
        if naming is None or any(isinstance(n, ast.Attribute) and n.attr == attr and
                                 not isinstance(n.ctx, ast.Load) for n in ast.walk(naming[0].tree)):
            return False
        other, parents, refs = naming
        for ref in refs:
            holder = _holder(parents, ref)
            call = parents.get(id(ref))
            if holder is None or not isinstance(holder[0], str) or not isinstance(call, ast.Call):
                return False
            flag = _handed_flag(other, parents, call, holder[1], _init_param(cls, param), attr)
            moves = _flag_moves(holder[1], holder[0], call, flag, arms_of(other.tree)) if flag is not None else None
            if not moves:
                return False
            seen = True
    return seen


def _init_param(cls: ast.ClassDef, param: str) -> tuple[int, str]:
    """(the position among the arguments a construction passes, or -1 for a keyword-only
    one or one ``__init__`` lacks; the name) of the parameter ``param`` of ``cls``'s
    ``__init__``."""
    init = next((st for st in cls.body if isinstance(st, ast.FunctionDef) and st.name == "__init__"), None)
    positional = [a.arg for a in init.args.posonlyargs + init.args.args][1:] if init is not None else []
    return (positional.index(param) if param in positional else -1, param)


def _handed_flag(ff: FileFlow, parents: dict[int, ast.AST], call: ast.Call, scope: ast.AST,
                 param: tuple[int, str], attr: str) -> str | None:
    """The text ``<E>.<attr>`` of the flag for what ``call`` hands for ``__init__``'s
    parameter ``param`` (see :func:`moved_under_flag`), or None."""
    k, name = param
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        return None
    given = call.args[k] if 0 <= k < len(call.args) else next(
        (kw.value for kw in call.keywords if kw.arg == name), None)
    if given is None:
        return None
    if isinstance(given, ast.Name):
        binds = [n for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id == given.id
                 and not isinstance(n.ctx, ast.Load)]
        params = {a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)} \
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
        return f"{given.id}.{attr}" if len(binds) + (given.id in params) == 1 else None
    if isinstance(given, ast.Attribute) and isinstance(given.value, ast.Name) and given.value.id == "self":
        for n in ast.walk(ff.tree):
            if isinstance(n, ast.Attribute) and n.attr == given.attr and not isinstance(n.ctx, ast.Load):
                fn = parents.get(id(parents.get(id(n))))
                while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    fn = parents.get(id(fn))
                if fn is None or fn.name != "__init__":
                    return None
        return f"self.{given.attr}.{attr}"
    return None


def _flag_moves(scope: ast.AST, name: str, call: ast.Call, flag: str,
                arms: dict[int, tuple[tuple[str, bool, ast.expr], ...]]) -> list[ast.Call] | None:
    """The moves of the instance ``call`` builds into the local ``name`` of ``scope``, each
    in the true arm of ``flag``; None for a use that may take it elsewhere, a move anywhere
    else, or ``name`` bound to anything but the instance (see :func:`moved_under_flag`)."""
    parents = _parents(scope)
    out: list[ast.Call] = []
    nodes = list(own_nodes(scope, defs=True))
    if any(isinstance(n, SCOPES) and any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(n))
           for n in nodes):
        return None
    names = [n for n in nodes if isinstance(n, ast.Name) and n.id == name]
    for n in sorted(names, key=lambda n: not isinstance(n.ctx, ast.Load)):  # (the moves first)
        st = parents.get(id(n))
        if not isinstance(n.ctx, ast.Load):
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and st.targets[0] is n and (
                    st.value is call or isinstance(st.value, ast.Call) and st.value in out)):
                return None
            continue
        up = parents.get(id(n))
        if isinstance(up, ast.Call) and up.func is n:
            continue
        if not isinstance(up, ast.Attribute) or up.attr == "apply":
            return None
        if up.attr not in MODULE_MOVES:
            continue
        move = parents.get(id(up))
        if not isinstance(move, ast.Call) or move.func is not up or not isinstance(
                parents.get(id(move)), (ast.Expr, ast.Assign)) or not any(
                t == flag and v for t, v, _ in arms.get(id(move), ())):
            return None
        out.append(move)
    return out


def passed_by_every_construction(ff: FileFlow, cls: ast.ClassDef, param: str) -> bool:
    """Does every construction of ``cls`` (a module class ``ff`` defines) in the run hand
    an argument for ``__init__``'s parameter ``param`` (by position or by name), so that
    its default is never used?  Each place a file of the run (``ff`` and the files that
    import it) names the class must be such a call (``Net(x, device=args.device)``); a
    subclass, a factory handed the class, a call that spreads ``*args``/``**kw`` or one
    that leaves the parameter out answers no, and so does a run that builds none.

    >>> from torchferry.check.flow.project import Project
    >>> src = ("import torch.nn as nn\\nclass M(nn.Module):\\n"
    ...        "    def __init__(self, n, device='cpu'):\\n        super(M, self).__init__()\\n"
    ...        "def main(args):\\n    return M(3, device=args.device), M(4, args.device)\\n")
    >>> ff = Project({"t.py": src.encode()}, packages=()).file_flow("t.py")
    >>> passed_by_every_construction(ff, ff.defs["M"], "device")
    True
    >>> src = src.replace("M(4, args.device)", "M(4)")
    >>> ff = Project({"t.py": src.encode()}, packages=()).file_flow("t.py")
    >>> passed_by_every_construction(ff, ff.defs["M"], "device")
    False
    """
    return bool(construction_arguments(ff, cls, param))


def construction_arguments(ff: FileFlow, cls: ast.ClassDef, param: str) -> list[tuple[FileFlow, ast.expr]] | None:
    """What every construction of ``cls`` (a class ``ff`` defines) in the run hands its
    ``__init__``'s parameter ``param``: each argument, with the file it is written in; None
    where :func:`passed_by_every_construction` answers no (a place that names the class other
    than in a call, a call that spreads ``*args``/``**kw`` or leaves the parameter out, or
    no construction at all).

    >>> from torchferry.check.flow.project import Project
    >>> src = ("import torch.nn as nn\\nclass M(nn.Module):\\n"
    ...        "    def __init__(self, n, mask=None):\\n        super().__init__()\\n"
    ...        "a = M(3, mask=m1)\\nb = M(4, m2)\\n")
    >>> ff = Project({"t.py": src.encode()}, packages=()).file_flow("t.py")
    >>> [ast.unparse(a) for _, a in construction_arguments(ff, ff.defs["M"], "mask")]
    ['m1', 'm2']
    """
    k, name = _init_param(cls, param)
    out: list[tuple[FileFlow, ast.expr]] = []
    for naming in _naming_files(ff, cls):
        if naming is None:
            return None
        other, parents, refs = naming
        for ref in refs:
            call = parents.get(id(ref))
            if not (isinstance(call, ast.Call) and call.func is ref) or _leaves_out(call, k, name):
                return None
            arg = call.args[k] if 0 <= k < len(call.args) else \
                next(kw.value for kw in call.keywords if kw.arg == name)
            out.append((other, arg))
    return out or None


def _leaves_out(call: ast.Call, k: int, name: str) -> bool:
    """May ``call`` leave the parameter at position ``k`` (-1: keyword-only), named
    ``name``, to its default?"""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        return True
    return not (0 <= k < len(call.args) or any(kw.arg == name for kw in call.keywords))
