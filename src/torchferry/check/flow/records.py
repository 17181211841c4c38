"""Record objects: an attribute of a record built with keywords is the value it was built
with.

``EasyDict(train=loader, test=loader2)`` (the ``easydict`` package),
``types.SimpleNamespace(train=loader)`` and ``argparse.Namespace(train=loader)`` hold each
keyword as an attribute of that name, so ``data.train`` of ``data = EasyDict(train=loader)``
is ``loader``, also where a function of the run returns the record (``data = ld_cifar10()``;
``for x, y in data.train:`` is a loop over that loader)::

    def ld_cifar10():
        train_loader = torch.utils.data.DataLoader(train_set, batch_size=128)
        return EasyDict(train=train_loader, test=test_loader)

    data = ld_cifar10()
    for x, y in data.train:                      # a loop over ``train_loader``
        x.to(device)                             # a discarded move of a batch item

The record is a value with one slot per keyword (:attr:`Value.keys
<torchferry.check.flow.lattice.Value.keys>`) whose origin says which record type built it
(:func:`built`); :func:`field` reads an attribute of such a value.  An attribute that any
file the record may reach writes (by name: ``x.train = ...``, ``del x.train``,
``x["train"] = ...``, ``x.update(train=...)``, ``x.pop("train")``, ``setattr(x,
"train", ...)``) is not known, and neither is any attribute where a file writes one by a
name it computes (``setattr(x, k, v)``, ``x.update(d)``, ``vars(x)``, ``x.__dict__``,
``x.clear()``): :func:`written`.  The files read are the one whose code reads the
attribute and those its findings already depend on (what it imports, what imports it, and
what those import: :meth:`Project.dependency_salt
<torchferry.check.flow.project.Project.dependency_salt>`).

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = ("import torch\\nfrom easydict import EasyDict\\n"
...        "def load():\\n    return EasyDict(train=torch.utils.data.DataLoader([]))\\n"
...        "def run():\\n    data = load()\\n    return data.train\\n")
>>> ff = FileFlow(ast.parse(src), "<example>")
>>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "run")
>>> sorted(k.name for k in res.returns.kinds)
['LOADER']
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.lattice import Kind, Op, Origin, Value, container

if TYPE_CHECKING:
    from torchferry.check.flow.program import FileFlow

#: the record types whose keyword arguments become attributes of those names, with the
#: keywords that are not attributes.  Read in their sources:
#: ``easydict`` 1.14 (``easydict/__init__.py``, ``EasyDict.__init__(self, d=None,
#: **kwargs)``: ``d`` a mapping whose items become attributes, each keyword
#: ``setattr(self, k, v)``; ``__setattr__`` keeps the value, except that a ``dict`` becomes
#: an ``EasyDict`` of the same items and a list or tuple is rebuilt of the same items, a
#: ``dict`` among them made an ``EasyDict``; the same in 1.9, which rebuilds a tuple as a
#: list of the same items, so a loader, a tensor or a module is kept as given in both);
#: CPython 3.11 ``Lib/argparse.py`` (``Namespace.__init__(self, **kwargs)``: ``setattr``
#: of each keyword) and ``Objects/namespaceobject.c`` (``SimpleNamespace(**kwargs)``: each
#: keyword an attribute; 3.13 adds a positional mapping, not read here)
RECORD_TYPES: dict[str, frozenset[str]] = {
    "easydict.EasyDict": frozenset({"d"}),
    "types.SimpleNamespace": frozenset(),
    "argparse.Namespace": frozenset(),
}
#: the text of a record's origin (what :func:`is_record` recognises)
_RECORD_TEXT = "{}(...)"
_TEXTS = frozenset(_RECORD_TEXT.format(q.rsplit(".", 1)[-1]) for q in RECORD_TYPES)
#: methods of a mapping (``EasyDict`` is a ``dict``) that write the key their first argument
#: names
_KEYED_WRITES = frozenset({"pop", "setdefault", "__setattr__", "__setitem__", "__delattr__",
                           "__delitem__"})
#: methods that write keys named by a mapping or none at all
_BULK_WRITES = frozenset({"clear", "popitem"})
#: a file writes attributes by names it computes (every record attribute is then unknown)
ANY = "*"


def built(qual: str, node: ast.Call, kws: list[tuple[str, Value]], args: list[Value]) -> Value | None:
    """The record a call of ``qual`` builds (a value with one slot per keyword, and for
    ``EasyDict`` the items of a dict written in the call: ``EasyDict({"train": loader})``);
    None when ``qual`` is no record type or the call's attributes are not all written out
    (``**kwargs``, a positional mapping held in a name)."""
    refused = RECORD_TYPES.get(qual)
    if refused is None or any(k == "**" or k in refused for k, _ in kws):
        return None
    keys = list(kws)
    if node.args:
        if qual != "easydict.EasyDict" or len(node.args) != 1 or not isinstance(node.args[0], ast.Dict) \
                or args[0].keys is None or any(k is None for k in node.args[0].keys):
            return None
        keys = list(args[0].keys) + keys
    written = dict(keys)  # (a keyword after the mapping's item of that name wins, as in ``dict.update``)
    origin = Origin(Op.MADE, node.lineno, node.col_offset, _RECORD_TEXT.format(qual.rsplit(".", 1)[-1]),
                    node=node)
    return container(keys=tuple(written.items()), origin=origin)


def is_record(v: Value) -> bool:
    """Is ``v`` surely a record :func:`built` made (its slots known, every construction
    among its origins a record's)?"""
    if v.keys is None or v.kinds != frozenset((Kind.OTHER,)):
        return False
    made = [o for o in v.origins if o.op is Op.MADE]
    return bool(made) and all(o.text in _TEXTS for o in made)


def field(ff: FileFlow, v: Value, attr: str) -> Value | None:
    """``v.attr`` of a record ``v``: the value it was built with; None when ``v`` is not
    surely a record, was built without ``attr``, or a file it may reach writes it."""
    if not is_record(v) or v.keys is None:
        return None
    found = dict(v.keys).get(attr)
    if found is None or attr in dir(dict) or written(ff, attr):
        return None
    return found


def written(ff: FileFlow, attr: str) -> bool:
    """Does a file the code of ``ff`` may hand a record to write its attribute ``attr``
    (or attributes by computed names)?  True when those files are not all known."""
    project = ff.project
    if project is None:
        own = _writes(ff.tree)
        return attr in own or ANY in own
    paths = _salted(ff)
    if paths is None:
        return True
    for path in paths:
        names = _file_writes(ff, path)
        if names is None or attr in names or ANY in names:
            return True
    return False


def _salted(ff: FileFlow) -> set[str] | None:
    """``ff``'s file, the files it imports, the files that import it and what those import
    (None: too many importers to know them)."""
    project = ff.project
    assert project is not None
    importers = project.importers(ff.path)
    if importers is None:
        return None
    paths = {ff.path} | set(project.dependencies(ff.path))
    for p in importers:
        paths.add(p)
        paths |= project.dependencies(p)
    return paths


#: the attribute names each file's text writes (by its content digest)
_WRITES: dict[str, frozenset[str] | None] = {}
_WRITES_CAP = 4096


def _file_writes(ff: FileFlow, path: str) -> frozenset[str] | None:
    """The names the file ``path`` of the run writes (:func:`_writes`); None when it cannot
    be read."""
    if path == ff.path:
        return _writes(ff.tree)
    project = ff.project
    assert project is not None
    data = project.files.get(path)
    if data is None:
        return None
    key = project.content_hash(path)
    if key not in _WRITES:
        if len(_WRITES) >= _WRITES_CAP:
            _WRITES.clear()
        try:
            tree = ast.parse(data.decode("utf-8", "surrogateescape"))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            _WRITES[key] = None
        else:
            _WRITES[key] = _writes(tree)
    return _WRITES[key]


def _writes(tree: ast.AST) -> frozenset[str]:
    """The attribute names ``tree`` writes or deletes on any object, the string keys it
    writes by subscript or by a mapping's method, and :data:`ANY` where it writes names it
    computes.

    >>> sorted(_writes(ast.parse("a.x = 1\\ndel b.y\\nc['z'] += 1\\nd.update(w=2)\\nf(e.v)")))
    ['w', 'x', 'y', 'z']
    >>> sorted(_writes(ast.parse("setattr(o, name, 1)"))), sorted(_writes(ast.parse("o.update(d)")))
    (['*'], ['*'])
    """
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if not isinstance(node.ctx, ast.Load):
                names.add(node.attr)
            elif node.attr == "__dict__":
                names.add(ANY)
        elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            names |= _subscript_writes(node.slice)
        elif isinstance(node, ast.Call):
            names |= _call_writes(node)
    return frozenset(names)


def _call_writes(node: ast.Call) -> set[str]:
    """The names a call may write: ``setattr(o, "k", v)``, ``o.pop("k")``,
    ``o.update(k=v)``; :data:`ANY` for a name computed or a mapping handed over."""
    func = node.func
    if isinstance(func, ast.Name) and func.id in ("setattr", "delattr"):
        return _named(node.args[1] if len(node.args) > 1 else None)
    if isinstance(func, ast.Name) and func.id == "vars":
        return {ANY}
    if not isinstance(func, ast.Attribute):
        return set()
    if func.attr == "update":
        out = {k.arg or ANY for k in node.keywords}
        if any(not _number(a) for a in node.args):
            out.add(ANY)
        return out
    if func.attr in _KEYED_WRITES and node.args and not _number(node.args[0]):
        return _named(node.args[0])
    return {ANY} if func.attr in _BULK_WRITES else set()


def _subscript_writes(key: ast.expr) -> set[str]:
    """The key a subscript store writes: its name where a string is written out, none for
    a number, a slice or a tuple of them (``x[0] = 1``, ``x[:, k] = 0``: no attribute of a
    record), :data:`ANY` for a key the code computes."""
    parts = key.elts if isinstance(key, ast.Tuple) else [key]
    if all(isinstance(e, ast.Slice) or _number(e) for e in parts):
        return set()
    return _named(key)


def _named(key: ast.expr | None) -> set[str]:
    """The name a written key is, or :data:`ANY` when the code computes it."""
    return {key.value} if isinstance(key, ast.Constant) and isinstance(key.value, str) else {ANY}


def _number(e: ast.expr) -> bool:
    """Is ``e`` a number written out (``pbar.update(1)``, ``xs.pop(0)``: no key of a record)?"""
    return isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) or \
        isinstance(e, ast.UnaryOp) and isinstance(e.operand, ast.Constant)
