"""Which classes of the run a method's receiver may be an instance of.

A value that several constructors may have built (``self.decoder = A(n).to(d) if
attention else B(n).to(d)``) holds an instance of one of their classes, chosen at run
time: ``self.decoder.step(i, h)`` runs ``A.step`` or ``B.step``.  A fact about what the
call does with its arguments holds only where it holds for each of them.
:func:`made_classes` lists the classes; :func:`refused` tells a class whose method Python
would refuse the call (too many positional arguments, a keyword the method does not
take, a parameter without a default left out): the call raises ``TypeError`` on such an
instance whatever the device, so in a program that runs on the CPU it never reaches the
call with one (``if isinstance(self.decoder, A): self.decoder.step(i, h, e) else:
self.decoder.step(i, h)``).

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = '''
... import torch
... from torch import nn
... class A(nn.Module):
...     def step(self, i, h, e):
...         return i
... class B(nn.Module):
...     def step(self, i, h):
...         return i
... dec = A() if torch.cuda.is_available() else B()
... dec.step(1, 2)
... '''
>>> ff = FileFlow(ast.parse(src), "m.py")
>>> res = ff.summary(ff.tree, ff)
>>> c = next(c for c in res.calls.values() if ast.unparse(c.node) == "dec.step(1, 2)")
>>> [info.node.name for info in made_classes(ff, c.receiver)]
['A', 'B']
>>> [refused(info, "step", c.node) for info in made_classes(ff, c.receiver)]
[True, False]
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.binding import bind
from torchferry.check.flow.lattice import Op, Value

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow


def made_classes(ff: FileFlow, v: Value, whole: bool = False) -> list[ClassInfo]:
    """The classes of the run whose constructors, called in this file, made ``v``, each
    once, in the order of ``v``'s origins (a making of another kind is left out: the
    caller decides what that means; ``whole``: none then, as when ``v`` may be something
    else)."""
    out: list[ClassInfo] = []
    for o in v.origins:
        if o.op is not Op.MADE:
            continue
        info = ff.class_called(o.node) if o.path is None and isinstance(o.node, ast.Call) else None
        if info is None and whole:
            return []
        if info is not None and all(info is not seen for seen in out):
            out.append(info)
    return out


def refused(info: ClassInfo, name: str, call: ast.Call) -> bool:
    """Would Python refuse ``call`` (``<instance>.name(...)``) for an instance of ``info``,
    whose method ``name`` is one of the run?  False where the method is not known, where
    the call spreads ``*args`` or ``**kw`` (the binding is then not known), and where it
    binds."""
    found = info.method(name)
    if found is None or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return False
    fn = found[1]
    if any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in fn.decorator_list):
        return False
    return bind(fn, call, 1) is None
