"""Which parameter of a function of the run each argument of a call binds, as Python binds them.

A call binds its positional arguments to the function's positional parameters in order
(past them, to its ``*args``), and each keyword argument to the parameter of that name
(positional-or-keyword or keyword-only; one of no such name, to its ``**kwargs``).  The
parameters the call leaves out take their defaults.  Parameters are numbered as
:attr:`~torchferry.check.flow.events.ScopeResult.params` numbers them
(:func:`~torchferry.check.flow.converted.param_names`: the positional ones, ``*args``, the
keyword-only ones, ``**kwargs``).

The binding is unknown (None), never guessed, when the call spreads ``*args`` or ``**kw``
(what they hold is not written out), or when Python would refuse it: a keyword that names
no parameter of a function without ``**kwargs``, a keyword that names a positional-only
parameter or one already bound, too many positional arguments for a function without
``*args``, or a parameter without a default left unbound.

>>> import ast
>>> fn = ast.parse("def loss(model, x, y=None, *, beta=1.0): pass").body[0]
>>> call = ast.parse("loss(net, y=t, x=d)").body[0].value
>>> b = bind(fn, call)
>>> {k: ast.unparse(a.node) for k, a in b.args.items()}, sorted(b.defaulted)
({0: 'net', 2: 't', 1: 'd'}, [3])
>>> bind(fn, ast.parse("loss(net, d, **kw)").body[0].value) is None
True
"""

from __future__ import annotations

import ast
from typing import NamedTuple

#: the nodes a call of the run may run
Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


class Arg(NamedTuple):
    """One argument of a call, as the call writes it: its expression, and either its index
    among the call's positional arguments or the keyword that passes it."""

    node: ast.expr
    position: int | None = None
    keyword: str | None = None

    def how(self) -> str:
        """How the call passes it, for an evidence note (``keyword `x_natural=```)."""
        if self.keyword is not None:
            return f"keyword `{self.keyword}=`"
        return f"positional argument {(self.position or 0) + 1}"


class Binding(NamedTuple):
    """A call's arguments bound to a function's parameters: parameter index -> the
    argument that binds it (``args``), and the parameters left to their defaults."""

    args: dict[int, Arg]
    defaulted: frozenset[int]


def bind(fn: ast.AST, call: ast.Call, first: int = 0) -> Binding | None:
    """The binding of ``call``'s arguments to the parameters of ``fn``, the first ``first``
    of them bound by the call itself (``self`` of a method called on an instance,
    ``net.step(x)``); None when not known (see the module docstring)."""
    a = getattr(fn, "args", None)
    if not isinstance(a, ast.arguments) or any(isinstance(x, ast.Starred) for x in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    positional = [*a.posonlyargs, *a.args]
    if first > len(positional):
        return None
    out = _positional_args(a, call, first)
    if out is None or not _keyword_args(a, call, out, first):
        return None
    return _with_defaults(a, out, first)


def default_of(a: ast.arguments, name: str) -> ast.expr | None:
    """The default of the parameter ``name`` of ``a``, if it has one.

    >>> fn = ast.parse("def f(a, b=1, *, c=None, d): pass").body[0]
    >>> [ast.unparse(d) if d else d for d in (default_of(fn.args, n) for n in "abcd")]
    [None, '1', 'None', None]
    """
    positional = [*a.posonlyargs, *a.args]
    for p, d in zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=True):
        if p.arg == name:
            return d
    for p, kd in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        if p.arg == name:
            return kd
    return None


def _positional_args(a: ast.arguments, call: ast.Call, first: int) -> dict[int, Arg] | None:
    """The positional parameters the call's positional arguments bind; None when there are
    more of them than parameters and no ``*args`` takes the rest."""
    n = len(a.posonlyargs) + len(a.args)
    out: dict[int, Arg] = {}
    for j, x in enumerate(call.args):
        if first + j < n:
            out[first + j] = Arg(x, position=j)
        elif a.vararg is None:
            return None
    return out


def _keyword_args(a: ast.arguments, call: ast.Call, out: dict[int, Arg], first: int) -> bool:
    """Bind the call's keyword arguments into ``out`` (the first ``first`` parameters are
    bound already); False when Python would refuse one."""
    index = _keyword_index(a)
    for k in call.keywords:
        assert k.arg is not None  # (``**kw`` is refused before)
        i = index.get(k.arg)
        if i is None:
            if a.kwarg is None:
                return False  # no such parameter (a positional-only one included)
            continue  # into ``**kwargs``, with any other name it holds
        if i in out or i < first:
            return False  # bound twice
        out[i] = Arg(k.value, keyword=k.arg)
    return True


def _keyword_index(a: ast.arguments) -> dict[str, int]:
    """The parameters a keyword can name (not the positional-only ones), by name -> index."""
    start = len(a.posonlyargs)
    index = {p.arg: start + i for i, p in enumerate(a.args)}
    after = start + len(a.args) + (1 if a.vararg is not None else 0)
    index.update((p.arg, after + i) for i, p in enumerate(a.kwonlyargs))
    return index


def _with_defaults(a: ast.arguments, out: dict[int, Arg], first: int) -> Binding | None:
    """``out`` with the parameters it leaves unbound: each must have a default (None when
    one has not)."""
    positional = [*a.posonlyargs, *a.args]
    without = len(positional) - len(a.defaults)  # (the defaults belong to the last ones)
    defaulted = set()
    for i in range(first, len(positional)):
        if i not in out:
            if i < without:
                return None
            defaulted.add(i)
    after = len(positional) + (1 if a.vararg is not None else 0)
    for i, d in enumerate(a.kw_defaults):
        if after + i not in out:
            if d is None:
                return None
            defaulted.add(after + i)
    return Binding(out, frozenset(defaulted))
