"""What a file's syntax tree names and calls, found in one walk and kept with the tree.

Several questions of the analysis read every call, name or attribute of a file (the names
a file uses as values, the attributes it assigns on other objects, the nodes that may name
a function of another file).  Each used to walk the whole tree, once per analysis of the
file, and a file is analysed more than once in a run (reached by a call, then checked; a
checked file's analysis dropped, then reached again).  A syntax tree is never changed once
parsed, so :func:`tree_index` walks it once and keeps the result for as long as the tree
lives.

>>> import ast
>>> tree = ast.parse("import torch\\nx = f(a.b)\\nobj.w = torch.ones(2)\\n")
>>> index = tree_index(tree)
>>> index is tree_index(tree)
True
>>> sorted(index.names), sorted(index.attributes), len(index.calls), index.functions
(['a', 'f', 'obj', 'torch', 'x'], ['b', 'ones', 'w'], 2, [])
"""

from __future__ import annotations

import ast
import weakref
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: nodes without fields: the contexts of names, the operators and the jumps
_LEAVES = frozenset((ast.Load, ast.Store, ast.Del, ast.Pass, ast.Break, ast.Continue,
                     *ast.operator.__subclasses__(), *ast.unaryop.__subclasses__(),
                     *ast.cmpop.__subclasses__(), *ast.boolop.__subclasses__()))


@dataclass
class TreeIndex:
    """The calls, classes, functions and ``global`` statements of a tree, its names by identifier and its attributes by
    attribute name, each in :func:`ast.walk`'s order; the answers found from them are kept
    here too."""

    calls: list[ast.Call] = field(default_factory=list)
    classes: list[ast.ClassDef] = field(default_factory=list)
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=list)
    #: the ``global`` statements
    globals: list[ast.Global] = field(default_factory=list)
    #: the ``import`` and ``from ... import`` statements, at any depth
    imports: list[ast.Import | ast.ImportFrom] = field(default_factory=list)
    names: dict[str, list[ast.Name]] = field(default_factory=dict)
    attributes: dict[str, list[ast.Attribute]] = field(default_factory=dict)
    _value_names: frozenset[str] | None = None
    _called_names: Counter[str] | None = None
    _function_calls: dict[frozenset[str], Counter[str]] = field(default_factory=dict)
    _outside_stores: frozenset[str] | None = None

    def value_names(self) -> frozenset[str]:
        """The names the tree uses other than as the function of a call (``f`` of
        ``map(f, xs)``, ``step`` of ``hooks.append(self.step)``).

        >>> sorted(tree_index(ast.parse("g(f, a.b.c())")).value_names())
        ['a', 'b', 'f']
        """
        if self._value_names is None:
            called = {id(c.func) for c in self.calls}
            self._value_names = frozenset(
                [k for k, nodes in self.names.items() if any(id(n) not in called for n in nodes)] +
                [k for k, nodes in self.attributes.items() if any(id(n) not in called for n in nodes)])
        return self._value_names

    def called_names(self) -> Counter[str]:
        """How many calls of the tree call each name (``f(x)``, ``obj.f(x)``).

        >>> tree_index(ast.parse("f(1); o.f(2); g()(3)")).called_names()
        Counter({'f': 2, 'g': 1})
        """
        if self._called_names is None:
            self._called_names = Counter(name for name in map(_called_name, self.calls) if name is not None)
        return self._called_names

    def function_calls(self, modules: frozenset[str] = frozenset()) -> Counter[str]:
        """How many calls of the tree may call a function of its module by each name: a
        call of the bare name (``f(x)``), or of the name as an attribute of a module that an
        ``import`` of the tree (at any depth) or ``modules`` binds (``T.f(x)`` after ``import
        train as T``), which may be this module.  ``obj.f(x)`` of another receiver calls
        what ``obj`` holds: a function of the module only through an attribute set to it,
        and a function so used is named as a value (:meth:`value_names`).

        >>> tree_index(ast.parse("import a.b as T\\nimport c.d\\nf(1); o.f(2); T.f(3); c.d.f(4); a.f(5)")).function_calls()
        Counter({'f': 3})
        >>> tree_index(ast.parse("m.f(5)")).function_calls(frozenset({"m"}))
        Counter({'f': 1})
        """
        found = self._function_calls.get(modules)
        if found is None:
            bound = modules | {a.asname or a.name.split(".", 1)[0] for st in self.imports for a in st.names}
            found = self._function_calls[modules] = Counter(
                f.id if isinstance(f, ast.Name) else f.attr for f in (c.func for c in self.calls)
                if isinstance(f, ast.Name) or isinstance(f, ast.Attribute) and
                isinstance(head := _head(f.value), ast.Name) and head.id in bound)
        return found

    def outside_stores(self) -> frozenset[str]:
        """The attributes the tree assigns or deletes on something other than a plain name
        ``self`` (``x.attr = v``), and ``""`` when it calls ``setattr``.

        >>> sorted(tree_index(ast.parse("self.a = 1; x.b = 2; del y.c.d; setattr(z, 'e', 3)")).outside_stores())
        ['', 'b', 'd']
        """
        if self._outside_stores is None:
            out = {attr for attr, nodes in self.attributes.items()
                   if any(type(n.ctx) is not ast.Load and
                          not (type(n.value) is ast.Name and n.value.id == "self") for n in nodes)}
            if any(type(c.func) is ast.Name and c.func.id == "setattr" for c in self.calls):
                out.add("")
            self._outside_stores = frozenset(out)
        return self._outside_stores


def _head(node: ast.expr) -> ast.expr:
    """``a`` of ``a.b.c``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _called_name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


_INDEXES: weakref.WeakKeyDictionary[ast.AST, TreeIndex] = weakref.WeakKeyDictionary()


def tree_index(tree: ast.AST) -> TreeIndex:
    """The :class:`TreeIndex` of ``tree``, from one walk the first time it is asked for."""
    found = _INDEXES.get(tree)
    if found is None:
        found = _INDEXES[tree] = _build(tree)
    return found


def _build(tree: ast.AST) -> TreeIndex:
    index = TreeIndex()
    calls, names, attributes = index.calls, index.names, index.attributes
    call, name, attribute, class_def = ast.Call, ast.Name, ast.Attribute, ast.ClassDef
    function_def, async_def, global_ = ast.FunctionDef, ast.AsyncFunctionDef, ast.Global
    import_, import_from = ast.Import, ast.ImportFrom
    node_type, leaves = ast.AST, _LEAVES
    todo: list[Any] = [tree]
    add = todo.append
    for node in todo:
        t = type(node)
        if t is name:
            bucket = names.get(node.id)
            if bucket is None:
                names[node.id] = [node]
            else:
                bucket.append(node)
            continue  # (only its context below it)
        if t is attribute:
            found = attributes.get(node.attr)
            if found is None:
                attributes[node.attr] = [node]
            else:
                found.append(node)
        elif t is call:
            calls.append(node)
        elif t is class_def:
            index.classes.append(node)
        elif t is function_def or t is async_def:
            index.functions.append(node)
        elif t is global_:
            index.globals.append(node)
        elif t is import_ or t is import_from:
            index.imports.append(node)
        for field_name in node._fields:
            v = getattr(node, field_name, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, node_type) and type(x) not in leaves:
                        add(x)
            elif isinstance(v, node_type) and type(v) not in leaves:
                add(v)
    return index
