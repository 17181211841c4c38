"""An attribute of ``self`` that holds a bound method of the instance itself.

``self.rl_loss = self.dqn_rl_loss`` on one branch of ``__init__`` and ``self.rl_loss =
self.dist_rl_loss`` on the other: a later ``self.rl_loss(x)`` calls one of the two methods,
with the same ``self``.  Python looks an instance attribute up before the class's methods,
and ``self.m`` of a method ``m`` defined by a ``def`` without decorators is that function
bound to the instance, so the call is a call of the method.  This is known only where every
binding of the attribute in the class's text (and its bases' in the run) is such a store,
each naming a method of the class; anything else bound there (a parameter, a lambda, what a
call returns, a tuple target, ``+=``, a class-level value) leaves it unknown.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.converted import attribute_bindings
from torchferry.check.flow.walk import own_nodes

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo

#: methods an attribute is said to hold, at most (more: left unknown)
_MAX_METHODS = 4


def held_methods(cls: ClassInfo, attr: str) -> tuple[str, ...]:
    """The names of the methods of ``cls`` that ``self.<attr>`` holds, one or more, when every
    binding of ``<x>.<attr>`` in the text of ``cls`` and its bases in the run is ``self.<attr>
    = self.<method>`` (or ``self.<a> if c else self.<b>``) in a method, ``self`` being that
    method's first parameter, and each ``<method>`` a plain method of ``cls``; else none.

    >>> from torchferry.check.flow.program import FileFlow
    >>> src = (
    ...     "class A:\\n"
    ...     "    def __init__(self, c):\\n"
    ...     "        self.f = self.a if c else self.b\\n"
    ...     "    def a(self, x):\\n"
    ...     "        return x\\n"
    ...     "    def b(self, x):\\n"
    ...     "        return x\\n")
    >>> ff = FileFlow(ast.parse(src), "<example>")
    >>> held_methods(ff.classes[id(ff.tree.body[0])], "f")
    ('a', 'b')
    >>> ff = FileFlow(ast.parse(src + "    def g(self, h):\\n        self.f = h\\n"), "<example>")
    >>> held_methods(ff.classes[id(ff.tree.body[0])], "f")
    ()
    """
    names: list[str] = []
    found = False
    for c in cls.lineage():
        if _class_level(c.node, attr):
            return ()
        bindings = attribute_bindings(c).get(attr, [])
        stores = _self_stores(c, attr) if bindings else {}
        for target, value in bindings:
            self_name = stores.get(id(target))
            held = _named_methods(value, self_name) if value is not None and self_name else None
            if not held:
                return ()
            names.extend(held)
            found = True
    unique = tuple(dict.fromkeys(names))
    if not found or len(unique) > _MAX_METHODS or not all(_plain_method(cls, n) for n in unique):
        return ()
    return unique


def _self_stores(c: ClassInfo, attr: str) -> dict[int, str]:
    """The targets ``<self>.<attr>`` of a plain assignment in a method of ``c`` (not in a
    function or class nested in it), by id, each with the method's first parameter."""
    out: dict[int, str] = {}
    for fn in c.methods.values():
        if not fn.args.args or fn.decorator_list:
            continue
        self_name = fn.args.args[0].arg
        for st in own_nodes(fn):
            if isinstance(st, ast.Assign) and len(st.targets) == 1:
                t = st.targets[0]
                if isinstance(t, ast.Attribute) and t.attr == attr and \
                        isinstance(t.value, ast.Name) and t.value.id == self_name:
                    out[id(t)] = self_name
    return out


def _named_methods(value: ast.expr, self_name: str) -> tuple[str, ...] | None:
    """The attributes of ``self_name`` that ``value`` is on every path (``self.a``, ``self.a
    if c else self.b``), else None."""
    if isinstance(value, ast.IfExp):
        body = _named_methods(value.body, self_name)
        orelse = _named_methods(value.orelse, self_name)
        return None if body is None or orelse is None else (*body, *orelse)
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and \
            value.value.id == self_name:
        return (value.attr,)
    return None


def _plain_method(cls: ClassInfo, name: str) -> bool:
    """Is ``name`` a method of ``cls`` (or a base in the run) defined by a ``def`` without
    decorators (so ``self.<name>`` is the function bound to the instance)?"""
    found = cls.method(name)
    return found is not None and not found[1].decorator_list and bool(found[1].args.args)


def _class_level(node: ast.ClassDef, attr: str) -> bool:
    """Does the class body itself bind ``attr`` (``rl_loss = None``, ``def rl_loss``)?"""
    for st in node.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and st.name == attr:
            return True
        targets = st.targets if isinstance(st, ast.Assign) else \
            [st.target] if isinstance(st, (ast.AnnAssign, ast.AugAssign)) else []
        if any(isinstance(x, ast.Name) and x.id == attr for t in targets for x in ast.walk(t)):
            return True
    return False
