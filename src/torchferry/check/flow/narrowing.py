"""What a test on a value's type says it is on each arm: ``isinstance`` narrowing.

In::

    y = torch.zeros_like(x) if isinstance(x, torch.Tensor) else np.zeros_like(x)

``x`` is a tensor in the first arm and no tensor in the second, whatever the callers pass.
:func:`narrowings` reads a test (``isinstance(x, C)``, a tuple of classes, ``not``, ``and``
in the true arm, ``or`` in the false arm) into what it says of each name on each arm, and
:func:`narrowed` applies one to a value.  The interpretation narrows the names of an
``if`` statement's arms and of a conditional expression's arms (and, after an ``if`` whose
one arm surely ends, what the other arm said holds on).  Only classes of known kind narrow:
a tensor type of torch (``torch.Tensor``, ``torch.nn.Parameter``, ``torch.FloatTensor``),
``numpy.ndarray``, ``torch.nn.Module``, and Python's numbers.

>>> t = ast.parse("isinstance(x, torch.Tensor)", mode="eval").body
>>> yes, no = narrowings(t, lambda e: "torch.Tensor")
>>> [k.name for k in yes["x"].kinds], yes["x"].positive, no["x"].positive
(['TENSOR'], True, False)
>>> v = narrowed(Value(None, frozenset()), no["x"])
>>> Kind.TENSOR in (v.kinds or {Kind.TENSOR})
False
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import NamedTuple

from torchferry.check.flow.lattice import Basis, Kind, Op, Value
from torchferry.check.flow.tensordata import LIST_TEXT

#: Python's number types, by their names (builtins: no qualified name)
_NUMBERS = frozenset({"int", "float", "bool", "complex"})
#: what a value that is no tensor may be, when nothing else is known of it
_NOT_A_TENSOR = frozenset((Kind.NDARRAY, Kind.SCALAR, Kind.OTHER))

class Narrowing(NamedTuple):
    """On an arm, the name is one of ``kinds`` (``positive``) or none of them."""

    kinds: frozenset[Kind]
    positive: bool


Narrowings = dict[str, Narrowing]


def class_kind(qualname: str | None, node: ast.expr) -> Kind | None:
    """The kind the instances of the class ``node`` (qualified ``qualname``) are, or None.

    >>> class_kind("torch.cuda.FloatTensor", ast.Name("T")).name, class_kind(None, ast.Name("int")).name
    ('TENSOR', 'SCALAR')
    """
    if qualname is None:
        return Kind.SCALAR if isinstance(node, ast.Name) and node.id in _NUMBERS else None
    last = qualname.rsplit(".", 1)[-1]
    if qualname.startswith("torch.") and (last.endswith("Tensor") or qualname == "torch.nn.Parameter"
                                          or qualname == "torch.nn.parameter.Parameter"):
        return Kind.TENSOR
    if qualname in ("numpy.ndarray", "numpy.generic"):
        return Kind.NDARRAY
    if qualname in ("torch.nn.Module", "torch.nn.modules.module.Module"):
        return Kind.MODULE
    return None


def narrowings(test: ast.expr, qualname: Callable[[ast.expr], str | None]) -> tuple[Narrowings, Narrowings]:
    """What ``test`` says of names on its true arm and on its false arm (``qualname``:
    the qualified name of an expression of the scope, or None)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yes, no = narrowings(test.operand, qualname)
        return no, yes
    if isinstance(test, ast.BoolOp):
        parts = [narrowings(v, qualname) for v in test.values]
        # ``a and b`` true: both hold; ``a or b`` false: neither holds
        side = 0 if isinstance(test.op, ast.And) else 1
        out: Narrowings = {}
        for part in parts:
            for name, n in part[side].items():
                out.setdefault(name, n)
        return (out, {}) if side == 0 else ({}, out)
    return _isinstance(test, qualname)


def _isinstance(test: ast.expr, qualname: Callable[[ast.expr], str | None]) -> tuple[Narrowings, Narrowings]:
    """``isinstance(x, C)`` or ``isinstance(x, (C, D))`` of a plain name ``x``."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords and isinstance(test.args[0], ast.Name)):
        return {}, {}
    classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    kinds = [class_kind(qualname(c), c) for c in classes]
    known = frozenset(k for k in kinds if k is not None)
    name = test.args[0].id
    yes: Narrowings = {name: Narrowing(known, True)} if known and None not in kinds else {}
    no: Narrowings = {name: Narrowing(known, False)} if known else {}
    return yes, no


def decided(test: ast.expr, lookup: Callable[[str], Value | None],
            qualname: Callable[[ast.expr], str | None]) -> bool | None:
    """Whether ``test``, ``isinstance(x, list)`` (``tuple``, or a tuple of them), surely
    holds, where ``x`` (its value by ``lookup``) is a batch that torch's default collate
    makes a list of (:func:`~torchferry.check.flow.tensordata.collated_list`); None where
    the analysis cannot tell (any other test or value)."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords and isinstance(test.args[0], ast.Name)
            and qualname(test.func) is None):
        return None
    classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    names = [c.id if isinstance(c, ast.Name) and qualname(c) is None and lookup(c.id) is None else None
             for c in classes]
    v = lookup(test.args[0].id)
    if not names or any(n not in ("list", "tuple") for n in names) or v is None or v.kinds != {Kind.OTHER} \
            or not v.origins or any(o.op is not Op.MADE or o.text != LIST_TEXT for o in v.origins):
        return None
    return "list" in names


def narrowed(v: Value, n: Narrowing) -> Value:
    """``v`` on an arm where ``n`` holds.  A positive narrowing keeps the kinds of ``v``
    among ``n.kinds`` (all of them where ``v``'s kind is unknown or none of them); a
    negative one drops them (what is known to be no tensor but nothing more is an array, a
    number or another object).  Where the analysis holds ``v`` to be only what the test
    rules out, the code is right: the arm runs only for something else.  An item of a
    loader's batch keeps its kind (the batch's analysis reads the tests itself)."""
    if v.kinds is not None and Kind.BATCH in v.kinds:
        return v
    if n.positive:
        kinds = v.kinds & n.kinds if v.kinds is not None and v.kinds & n.kinds else n.kinds
    else:
        rest = v.kinds - n.kinds if v.kinds is not None else frozenset()
        kinds = rest or (_NOT_A_TENSOR - n.kinds if Kind.TENSOR in n.kinds else frozenset())
    if not kinds or kinds == v.kinds:
        return v
    return v._replace(kinds=kinds, basis=max(v.basis, Basis.INFERRED))
